// Finds object literals that spread an object and then add properties of their own
// (`{ ...base, status, output }`): on Node 20 each property added after a spread costs
// microseconds, paid per job on the per-job path (issue 23, item 3). A lexical scan (the source
// parsed just enough to see object literals): strings, template literals, regular expressions
// and comments are skipped; nesting is followed through (), [] and {}.

/** Where an object literal spreads and then adds: its 1-based line and its text (shortened). */
export interface SpreadThenAdd {
  line: number;
  text: string;
}

/** Object literals in `source` whose top-level entries have a plain property after a spread. */
export function spreadThenAdd(source: string): SpreadThenAdd[] {
  const found: SpreadThenAdd[] = [];
  // Open brackets: their character, where they start, and for braces the entries seen so far.
  const stack: { ch: string; at: number; entryStart: number; spread: boolean; flagged: boolean }[] = [];
  let i = 0;
  const n = source.length;
  const lineOf = (at: number): number => source.slice(0, at).split('\n').length;
  const entry = (top: (typeof stack)[number], end: number): void => {
    const text = source.slice(top.entryStart, end).trim();
    if (text === '') return;
    if (text.startsWith('...')) top.spread = true;
    else if (top.spread && !top.flagged && /^[A-Za-z_$'"[]/.test(text)) {
      top.flagged = true;
      found.push({
        line: lineOf(top.at),
        text: source.slice(top.at, Math.min(end, top.at + 80)).replace(/\s+/g, ' '),
      });
    }
  };
  let previous = '';
  while (i < n) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      i = source.indexOf('\n', i);
      if (i < 0) break;
      continue;
    }
    if (c === '/' && next === '*') {
      i = source.indexOf('*/', i + 2) + 2;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(source, i);
      previous = 'x';
      continue;
    }
    // A regular expression literal: a slash where a value starts.
    if (c === '/' && /[(,=:[!&|?{};+\-*%<>~^]|^$/.test(previous)) {
      i = skipRegex(source, i);
      previous = 'x';
      continue;
    }
    if (c === '(' || c === '[' || c === '{')
      stack.push({ ch: c, at: i, entryStart: i + 1, spread: false, flagged: false });
    else if (c === ')' || c === ']' || c === '}') {
      const top = stack.pop();
      if (top?.ch === '{') entry(top, i);
    } else if (c === ',' || c === ';') {
      const top = stack.at(-1);
      if (top?.ch === '{') {
        if (c === ',') entry(top, i);
        else top.spread = false;
        top.entryStart = i + 1;
      }
    }
    if (!/\s/.test(c)) previous = c;
    i++;
  }
  return found;
}

function skipString(s: string, start: number): number {
  const quote = s[start];
  let i = start + 1;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else if (quote === '`' && c === '$' && s[i + 1] === '{') {
      // A template's expression: skip to its closing brace, through nested strings and braces.
      let depth = 1;
      i += 2;
      while (i < s.length && depth > 0) {
        const d = s[i];
        if (d === '"' || d === "'" || d === '`') {
          i = skipString(s, i);
          continue;
        }
        if (d === '{') depth++;
        else if (d === '}') depth--;
        i++;
      }
    } else i++;
  }
  return i;
}

function skipRegex(s: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') i += 2;
    else if (c === '[') {
      inClass = true;
      i++;
    } else if (c === ']') {
      inClass = false;
      i++;
    } else if (c === '/' && !inClass) {
      i++;
      while (/[a-z]/.test(s[i] ?? '')) i++;
      return i;
    } else if (c === '\n') return i;
    else i++;
  }
  return i;
}
