// Python string and number semantics that foreign formats' scorers depend on (pramana and
// ÈwéBench score in Python). Where JavaScript differs, these reproduce Python exactly.

/**
 * Characters Python's `str.isspace()` accepts, hence what `str.strip()` removes. JavaScript's
 * `trim()` differs: it also removes U+FEFF, and keeps U+001C–U+001F and U+0085.
 */
const PY_SPACE =
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
const PY_SPACE_SET = new Set(PY_SPACE);

/** Whether a one-character string is whitespace to Python (`str.isspace`). */
export function pyIsSpace(ch: string): boolean {
  return PY_SPACE_SET.has(ch);
}

/** Python's `str.strip()` with no argument. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && PY_SPACE_SET.has(s[start])) start++;
  while (end > start && PY_SPACE_SET.has(s[end - 1])) end--;
  return s.slice(start, end);
}

/** Python's `len(str)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Python's `s[:n]` on a str: the first n code points. */
export function pySlice(s: string, n: number): string {
  if (s.length <= n) return s;
  let out = '';
  let i = 0;
  for (const ch of s) {
    if (i++ >= n) break;
    out += ch;
  }
  return out;
}

/**
 * A regex source for a whole word as Python's `re` sees it: `\b` there is Unicode-aware (Ewe
 * letters like ɖ, ŋ, ɔ are word characters); JavaScript's `\b` is ASCII-only even with the `u` flag.
 * Python's `\w` is exactly letters, numbers and `_` (`str.isalnum`): combining marks such as the
 * tilde U+0303 are not word characters, so `le` is a whole word in `le\u0303`. Use with the `u` flag.
 */
export function pyWordPattern(word: string): string {
  const escaped = word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  return `(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`;
}

/**
 * Python's `round(x, ndigits)`: round half to even on the exact binary value of the double.
 * `toFixed` rounds exact ties away from zero, so ties are detected exactly and sent to the even side.
 */
export function pyRound(x: number, ndigits = 0): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > 100 || ndigits < 0) throw new RangeError('pyRound: ndigits must be in 0..100');
  const fixed = x.toFixed(ndigits);
  if (isExactTie(x, ndigits)) {
    // toFixed went away from zero; step back towards zero when that makes the last digit even.
    const digits = fixed.replace('-', '').replace('.', '');
    const last = Number(digits[digits.length - 1]);
    if (last % 2 === 1) {
      const step = 10 ** -ndigits;
      const back = Math.abs(Number(fixed)) - step;
      return Math.sign(x) * Number(back.toFixed(ndigits));
    }
  }
  return Number(fixed);
}

/** Whether x × 10^n lies exactly halfway between two integers (exact binary arithmetic). */
function isExactTie(x: number, n: number): boolean {
  // x = mantissa × 2^exp exactly, with an integer mantissa.
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mantissa |= 1n << 52n;
    exp = expBits - 1075;
  }
  // x·10^n = mantissa·10^n·2^exp; a tie needs exactly one fractional binary digit, equal to 1/2.
  const scaled = mantissa * 10n ** BigInt(n);
  if (exp >= 0) return false;
  const shift = BigInt(-exp);
  const denominator = 1n << shift;
  const remainder = scaled % denominator;
  return remainder * 2n === denominator;
}

/**
 * Code points whose case mapping arrived after Unicode 15.1 (Unicode 16 and 17: Garay, Beria Erfe,
 * new Latin and Cyrillic letters). Python 3.11–3.13 (Unicode 14–15.1) leaves them unchanged, while
 * Node's ICU maps them. For every other character, and for the context rule of final sigma,
 * Python's `str.lower`/`str.upper` equal JavaScript's `toLowerCase`/`toUpperCase` (checked over
 * every code point).
 */
const LOWER_UNMAPPED: [number, number][] = [
  [0x1c89, 0x1c89],
  [0xa7cb, 0xa7cc],
  [0xa7ce, 0xa7ce],
  [0xa7d2, 0xa7d2],
  [0xa7d4, 0xa7d4],
  [0xa7da, 0xa7da],
  [0xa7dc, 0xa7dc],
  [0x10d50, 0x10d65],
  [0x16ea0, 0x16eb8],
];
const UPPER_UNMAPPED: [number, number][] = [
  [0x019b, 0x019b],
  [0x0264, 0x0264],
  [0x1c8a, 0x1c8a],
  [0xa7cd, 0xa7cd],
  [0xa7cf, 0xa7cf],
  [0xa7d3, 0xa7d3],
  [0xa7d5, 0xa7d5],
  [0xa7db, 0xa7db],
  [0x10d70, 0x10d85],
  [0x16ebb, 0x16ed3],
];

function inRanges(cp: number, ranges: [number, number][]): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

/**
 * Maps case around characters Python does not know: each such character is kept as is and splits
 * the text, which is also how Python's final-sigma rule sees it (an unassigned character is
 * neither cased nor case-ignorable).
 */
function mapCaseExcept(s: string, unmapped: [number, number][], map: (t: string) => string): string {
  // Fast path: none of the exceptions lie below U+019B.
  if (!/[\u019b-\uffff]/.test(s)) return map(s);
  let out = '';
  let segment = '';
  for (const ch of s) {
    if (inRanges(ch.codePointAt(0)!, unmapped)) {
      out += map(segment) + ch;
      segment = '';
    } else segment += ch;
  }
  return out + map(segment);
}

/** Python's `str.lower()` (Python 3.11–3.13). */
export function pyLower(s: string): string {
  return mapCaseExcept(s, LOWER_UNMAPPED, (t) => t.toLowerCase());
}

/** Python's `str.upper()` (Python 3.11–3.13). */
export function pyUpper(s: string): string {
  return mapCaseExcept(s, UPPER_UNMAPPED, (t) => t.toUpperCase());
}
