// Which top-level names a template reads. Over-reporting is the safe side: callers use this to
// decide whether rendering a var's own template could blank out text that was meant literally.

const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'in',
  'is',
  'if',
  'else',
  'elif',
  'true',
  'false',
  'none',
  'null',
  'True',
  'False',
  'None',
  'loop',
  'with',
  'without',
  'context',
  'as',
  'import',
  'from',
  'ignore',
  'missing',
  'recursive',
]);

const TAG = /\{\{-?([\s\S]*?)-?\}\}|\{%-?([\s\S]*?)-?%\}/g;
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;
const IDENTIFIER = /[A-Za-z_]\w*/g;

/**
 * The root variable names a Nunjucks template refers to (`user` for `{{ user.name | upper }}`),
 * excluding attribute names, filter names, function calls, keywords and block tag names.
 */
export function templateVariableRoots(template: string): string[] {
  const names = new Set<string>();
  if (!template.includes('{{') && !template.includes('{%')) return [];
  for (const match of template.matchAll(TAG)) {
    let expr = match[1] ?? match[2] ?? '';
    if (match[2] !== undefined) expr = expr.trimStart().replace(/^\w+/, ' ');
    expr = expr.replace(STRING_LITERAL, ' ');
    for (const id of expr.matchAll(IDENTIFIER)) {
      const start = id.index ?? 0;
      if (start > 0 && /[0-9]/.test(expr[start - 1])) continue;
      const before = expr.slice(0, start).trimEnd();
      const prev = before[before.length - 1];
      if (prev === '.' || prev === '|') continue;
      if (/^[0-9]/.test(id[0]) || KEYWORDS.has(id[0])) continue;
      const after = expr.slice(start + id[0].length).trimStart();
      if (after.startsWith('(')) continue;
      // A keyword argument name (`default(x, boolean=true)`) is not a variable.
      if (after.startsWith('=') && !after.startsWith('==')) continue;
      names.add(id[0]);
    }
  }
  return [...names];
}
