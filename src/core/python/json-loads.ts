// Python's `json.loads`, value for value and error for error. Suites hashed or scored by Python
// tools depend on what JavaScript's JSON.parse loses: `1.0` stays a float (and is written back as
// `1.0`), integers keep every digit, NaN and Infinity parse, and a failure says what Python says
// ("Expecting ',' delimiter: line 1 column 9 (char 8)"), counting positions in code points.

/** A Python int: its decimal digits, kept exactly (JSON integers can exceed 2^53). */
export class PyInt {
  constructor(readonly value: bigint) {}
}

/** A Python float: a JSON number written with a fraction or an exponent, or NaN/Infinity. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A parsed JSON value as Python holds it. Objects are Maps: insertion order, last duplicate wins. */
export type PyValue = null | boolean | string | PyInt | PyFloat | PyValue[] | PyDict;
export type PyDict = Map<string, PyValue>;

/** Python's `json.JSONDecodeError`: the message, and where (code-point offset, 1-based line and column). */
export class PyJsonError extends Error {
  readonly msg: string;
  readonly pos: number;
  readonly lineno: number;
  readonly colno: number;
  constructor(msg: string, doc: string, unitIndex: number) {
    // Python indexes str by code point; JavaScript by UTF-16 unit.
    const before = doc.slice(0, unitIndex);
    let pos = 0;
    for (const _ of before) pos++;
    const lastNl = before.lastIndexOf('\n');
    const lineno = (before.match(/\n/g)?.length ?? 0) + 1;
    let colno = pos + 1;
    if (lastNl !== -1) {
      colno = 0;
      for (const _ of before.slice(lastNl)) colno++;
    }
    super(`${msg}: line ${lineno} column ${colno} (char ${pos})`);
    this.name = 'PyJsonError';
    this.msg = msg;
    this.pos = pos;
    this.lineno = lineno;
    this.colno = colno;
  }
}

/**
 * Another exception `json.loads` raises, which is not a JSONDecodeError (a tool catching only
 * that stops here): ValueError for an integer over Python's 4300-digit conversion limit,
 * RecursionError for nesting deeper than the interpreter's recursion limit allows.
 */
export class PyJsonAbort extends Error {
  constructor(
    readonly pyType: 'ValueError' | 'RecursionError',
    readonly pyMessage: string,
  ) {
    super(`${pyType}: ${pyMessage}`);
    this.name = 'PyJsonAbort';
  }
}

/** `sys.get_int_max_str_digits()` by default (Python 3.11+): longer integers raise ValueError. */
export const PY_INT_MAX_STR_DIGITS = 4300;
/**
 * The deepest nesting Python 3.11's json.loads decodes with the default recursion limit (1000)
 * when called from a shallow stack: `python3 -c "json.loads('['*995 + ']'*995)"` works and 996
 * raises RecursionError (each enclosing Python frame lowers it by one; a tool's own call stack is a
 * few frames deep, so near this depth the exact limit may differ by a few levels).
 */
export const PY_JSON_MAX_DEPTH = 995;

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** A value was expected at `at` (Python's StopIteration inside the scanner). */
class Expecting {
  constructor(readonly at: number) {}
}

class Parser {
  private depth = 0;

  constructor(private readonly s: string) {}

  /** Enters an array or object, as Python's scanner recurses (and fails) at each one. */
  private enter(kind: 'array' | 'object'): void {
    if (++this.depth > PY_JSON_MAX_DEPTH)
      throw new PyJsonAbort(
        'RecursionError',
        `maximum recursion depth exceeded while decoding a JSON ${kind} from a unicode string`,
      );
  }

  fail(msg: string, at: number): never {
    throw new PyJsonError(msg, this.s, at);
  }

  /** Skips JSON whitespace (Python's: space, tab, newline, carriage return only). */
  ws(i: number): number {
    const s = this.s;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
    return i;
  }

  value(i: number): [PyValue, number] {
    const s = this.s;
    if (i >= s.length) throw new Expecting(i);
    const c = s[i];
    if (c === '"') return this.string(i + 1);
    if (c === '{') {
      this.enter('object');
      const out = this.object(i + 1);
      this.depth--;
      return out;
    }
    if (c === '[') {
      this.enter('array');
      const out = this.array(i + 1);
      this.depth--;
      return out;
    }
    if (c === 'n' && s.startsWith('null', i)) return [null, i + 4];
    if (c === 't' && s.startsWith('true', i)) return [true, i + 4];
    if (c === 'f' && s.startsWith('false', i)) return [false, i + 5];
    if (c === 'N' && s.startsWith('NaN', i)) return [new PyFloat(Number.NaN), i + 3];
    if (c === 'I' && s.startsWith('Infinity', i)) return [new PyFloat(Number.POSITIVE_INFINITY), i + 8];
    if (c === '-' && s.startsWith('-Infinity', i)) return [new PyFloat(Number.NEGATIVE_INFINITY), i + 9];
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(s);
    if (!m) throw new Expecting(i);
    const end = i + m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const digits = m[0].length - (m[0].startsWith('-') ? 1 : 0);
      if (digits > PY_INT_MAX_STR_DIGITS)
        throw new PyJsonAbort(
          'ValueError',
          `Exceeds the limit (${PY_INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
        );
      return [new PyInt(BigInt(m[0])), end];
    }
    return [new PyFloat(Number(m[0])), end];
  }

  string(start: number): [string, number] {
    const s = this.s;
    const begin = start - 1;
    let out = '';
    let i = start;
    for (;;) {
      let j = i;
      let c = -1;
      for (; j < s.length; j++) {
        c = s.charCodeAt(j);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) this.fail('Invalid control character at', j);
      }
      if (j >= s.length) this.fail('Unterminated string starting at', begin);
      out += s.slice(i, j);
      if (c === 0x22) return [out, j + 1];
      // A backslash.
      j++;
      if (j >= s.length) this.fail('Unterminated string starting at', begin);
      const e = s[j];
      if (e !== 'u') {
        const mapped = ESCAPES[e];
        if (mapped === undefined) this.fail('Invalid \\escape', j - 1);
        out += mapped;
        i = j + 1;
        continue;
      }
      const [unit, after] = this.hex4(j + 1);
      let code = unit;
      let next = after;
      // Python pairs a high surrogate with a following `\u` escape only when text follows it.
      if (
        unit >= 0xd800 &&
        unit <= 0xdbff &&
        after + 6 < s.length &&
        s[after] === '\\' &&
        s[after + 1] === 'u'
      ) {
        const [low, afterLow] = this.hex4(after + 2);
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          next = afterLow;
        }
      }
      out += String.fromCodePoint(code);
      i = next;
    }
  }

  /** The four hex digits of a `\u` escape starting at `at`. */
  private hex4(at: number): [number, number] {
    const digits = this.s.slice(at, at + 4);
    // Python wants a character (the closing quote at least) after the four digits.
    if (at + 4 >= this.s.length || !HEX4.test(digits)) this.fail('Invalid \\uXXXX escape', at - 1);
    return [Number.parseInt(digits, 16), at + 4];
  }

  object(start: number): [PyDict, number] {
    const s = this.s;
    const dict: PyDict = new Map();
    let i = this.ws(start);
    if (s[i] === '}') return [dict, i + 1];
    for (;;) {
      if (s[i] !== '"') this.fail('Expecting property name enclosed in double quotes', i);
      const [key, afterKey] = this.string(i + 1);
      i = this.ws(afterKey);
      if (s[i] !== ':') this.fail("Expecting ':' delimiter", i);
      const [value, afterValue] = this.value(this.ws(i + 1));
      // Python's dict keeps a repeated key's first position and its last value; so does a Map.
      dict.set(key, value);
      i = this.ws(afterValue);
      if (s[i] === '}') return [dict, i + 1];
      if (s[i] !== ',') this.fail("Expecting ',' delimiter", i);
      i = this.ws(i + 1);
    }
  }

  array(start: number): [PyValue[], number] {
    const s = this.s;
    const list: PyValue[] = [];
    let i = this.ws(start);
    if (s[i] === ']') return [list, i + 1];
    for (;;) {
      const [value, after] = this.value(i);
      list.push(value);
      i = this.ws(after);
      if (s[i] === ']') return [list, i + 1];
      if (s[i] !== ',') this.fail("Expecting ',' delimiter", i);
      i = this.ws(i + 1);
    }
  }
}

/**
 * Python's `json.loads(text)`. Throws PyJsonError with Python's message and position, or
 * PyJsonAbort where Python raises something else (see there).
 */
export function pyJsonLoads(text: string): PyValue {
  const p = new Parser(text);
  if (text.startsWith('\ufeff')) p.fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
  try {
    const [value, end] = p.value(p.ws(0));
    const rest = p.ws(end);
    if (rest !== text.length) p.fail('Extra data', rest);
    return value;
  } catch (err) {
    if (err instanceof Expecting) p.fail('Expecting value', err.at);
    throw err;
  }
}

/** Python's `type(value).__name__` for a parsed JSON value. */
export function pyTypeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (v instanceof PyInt) return 'int';
  if (v instanceof PyFloat) return 'float';
  return Array.isArray(v) ? 'list' : 'dict';
}

/** Plain JavaScript for a parsed value: numbers as numbers (large ints lose digits), dicts as objects. */
export function pyToJs(v: PyValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof PyInt) return Number(v.value);
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(pyToJs);
  // fromEntries defines own properties, so a `__proto__` key stays an ordinary key.
  return Object.fromEntries([...v].map(([k, x]) => [k, pyToJs(x)]));
}

/**
 * Python's `json.JSONDecoder().raw_decode(text)`: the value at the very start of `text` (no leading
 * whitespace allowed) and where it ends (a UTF-16 index); what follows is not read. Throws
 * PyJsonError or PyJsonAbort as `json.loads` does.
 */
export function pyJsonRawDecode(text: string): { value: PyValue; end: number } {
  const p = new Parser(text);
  try {
    const [value, end] = p.value(0);
    return { value, end };
  } catch (err) {
    if (err instanceof Expecting) p.fail('Expecting value', err.at);
    throw err;
  }
}
