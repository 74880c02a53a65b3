// The vocabulary of Python `re` patterns (str patterns) in JavaScript regex terms, and the two
// errors core/pyregex.ts raises. Python's classes are Unicode-aware: `\w` is letters, numbers
// and `_` (str.isalnum), `\d` decimal digits, `\s` str.isspace.

/** Python's `re.error`: the pattern is invalid; Python raises at compile time. */
export class PyRegexError extends Error {
  constructor(
    readonly pyMessage: string,
    readonly position?: number,
  ) {
    super(position === undefined ? pyMessage : `${pyMessage} at position ${position}`);
    this.name = 'PyRegexError';
  }
}

/** A valid Python pattern that assay cannot reproduce in JavaScript. */
export class PyRegexUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PyRegexUnsupported';
  }
}

export const WORD = '\\p{L}\\p{N}_';
export const SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
export const DIGIT = '\\p{Nd}';
/** Python's categories as JavaScript class contents, and whether each is negated. */
export const CATEGORIES: Record<string, { set: string; negated: boolean }> = {
  d: { set: DIGIT, negated: false },
  D: { set: DIGIT, negated: true },
  s: { set: SPACE, negated: false },
  S: { set: SPACE, negated: true },
  w: { set: WORD, negated: false },
  W: { set: WORD, negated: true },
};
export const W = `[${WORD}]`;
export const ANCHORS: Record<string, string> = {
  A: '(?<![\\s\\S])',
  Z: '(?![\\s\\S])',
  b: `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`,
  // Python 3.11's \B never matches in an empty string.
  B: `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W})(?:(?<=[\\s\\S])|(?=[\\s\\S])))`,
};
export const SIMPLE_ESCAPES: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
export const OCT = '01234567';
export const DIGITS = '0123456789';
export const HEX = /^[0-9a-fA-F]+$/;
export const MAXREPEAT = 4294967295;

/** A parsed piece: its JavaScript source, its width range, and what kind of item it is. */
export interface Node {
  js: string;
  min: number;
  max: number;
  kind: 'item' | 'anchor' | 'repeat';
  /** The number of groups opened before this piece (its own groups come after). */
  groupsFrom?: number;
}

/** The JavaScript source for one literal code point. */
export function lit(cp: number): string {
  const ch = String.fromCodePoint(cp);
  return /^[A-Za-z0-9]$/.test(ch) ? ch : `\\u{${cp.toString(16)}}`;
}

/** Python's `str.isidentifier()` (for group names). */
export function isIdentifier(name: string): boolean {
  return /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u.test(name);
}
