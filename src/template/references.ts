// Which top-level names a template reads. Over-reporting is the safe side: callers use this to
// decide whether rendering a var's own template could blank out text that was meant literally.

/** Nunjucks's keywords and tag words: names a template never reads as vars. */
export const KEYWORDS = new Set([
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

/**
 * The variable names promptfoo's own quick scan finds in a template (its
 * `extractVariablesFromTemplate`): `{{ name }}` (with or without a filter) and the first word after
 * `{% if` / `{% for` (so `{% if true %}` names `true`), comments dropped; a `for` loop's own
 * variable is replaced by the list it walks. promptfoo decides with these, not with a parse, whether
 * a var value refers to a var that does not exist (and is then left unrendered).
 */
export function promptfooTemplateVariables(template: string): string[] {
  const names = new Set<string>();
  const text = template.replace(/\{#[\s\S]*?#\}/g, '');
  for (const m of text.matchAll(
    /\{\{\s*([^{}\s|]+)\s*(?:\|[^}]+)?\}\}|\{%\s*(?:if|for)\s+([^{}\s]+)\s*.*?%\}/g,
  )) {
    const name = m[1] || m[2];
    if (name) names.add(name);
  }
  for (const m of text.matchAll(/\{%\s*for\s+(\w+)\s+in\s+(\w+)\s*%\}/g)) {
    names.delete(m[1]);
    names.add(m[2]);
  }
  return [...names];
}
