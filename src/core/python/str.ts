// Python's `str()` and `repr()` of parsed JSON/YAML values, for tools that compare text with
// `str(value)` (apastra's inline assertions): `None`, `True`, `1.0`, `['a', 'b']`, `{'k': 1}`.
import { pyFloatRepr } from './json-dumps.js';
import { PyFloat, PyInt, type PyValue } from './json-loads.js';

/** Characters `str.isprintable()` rejects (other, separators), except the plain space. */
const UNPRINTABLE = /[\p{C}\p{Z}]/u;

/** Python's `repr(str)`: single quotes unless the text has `'` and no `"`; escapes as Python writes them. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && UNPRINTABLE.test(ch)) {
      if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** Python's `repr()` of a parsed value. */
export function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return pyStr(v);
}

/** Python's `ascii()` of a parsed value: its repr with every non-ASCII character escaped. */
export function pyAscii(v: PyValue): string {
  let out = '';
  for (const ch of pyRepr(v)) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += ch;
    else if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out;
}

/** Python's `str()` of a parsed value: text as itself, everything else as its repr. */
export function pyStr(v: PyValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (v instanceof PyInt) return v.value.toString();
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  return pyRepr(v);
}

/**
 * A plain JavaScript value (from JSON.parse or a YAML parser) as Python holds it: integers as
 * ints, other numbers as floats, `bigint` (a YAML parser's exact int) as an int, objects as dicts.
 * Where the source wrote `1.0`, JavaScript kept only `1`; parsers that keep the difference should
 * give `bigint` for ints and `number` for floats.
 */
export function toPyValue(v: unknown, intsAreBigint = false): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return new PyInt(v);
  if (typeof v === 'number')
    return !intsAreBigint && Number.isInteger(v) ? new PyInt(BigInt(v)) : new PyFloat(v);
  if (v instanceof PyInt || v instanceof PyFloat) return v;
  if (Array.isArray(v)) return v.map((x) => toPyValue(x, intsAreBigint));
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [String(k), toPyValue(x, intsAreBigint)]));
  if (v instanceof Date) return v.toISOString();
  return new Map(Object.entries(v as object).map(([k, x]) => [k, toPyValue(x, intsAreBigint)]));
}
