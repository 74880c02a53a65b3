// Python's `json.dumps`, byte for byte, for hashes and files that Python tools compute and read:
// `ensure_ascii` escaping (lowercase `\uXXXX`, surrogate pairs above U+FFFF), float `repr`
// (`1.0`, `1e-05`, `1e+16`), exact integers, `sort_keys` in code-point order, and `indent`.
import { PyFloat, PyInt } from './json-loads.js';

export interface PyDumpOptions {
  /** Sort object keys by code point at every level (Python's `sort_keys=True`). */
  sortKeys?: boolean;
  /** Pretty-print with this many spaces per level (Python's `indent`). */
  indent?: number;
  /** Item and key separators; Python's defaults are `, ` / `: ` (`,` / `: ` with indent). */
  separators?: [string, string];
  /** Python's `ensure_ascii` (default true): false writes non-ASCII text as itself. */
  ensureAscii?: boolean;
}

/** Marks a number to be written as a Python float (`0.0`, not `0`). */
export function pyFloat(value: number): PyFloat {
  return new PyFloat(value);
}

/** Python's `repr(float)`: the shortest round-tripping digits, in Python's layout. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest digits that round-trip, as repr does.
  const [mantissa, exp] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exp) + 1;
  const sign = x < 0 ? '-' : '';
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${rest}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** A float as `json.dumps` writes it: repr, except NaN and the infinities as bare words. */
function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pyFloatRepr(x);
}

/** A string as `json.dumps(ensure_ascii=True)` writes it. */
export function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      out += c === 0x22 ? '\\"' : c === 0x5c ? '\\\\' : s[i];
      continue;
    }
    switch (c) {
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x0c:
        out += '\\f';
        break;
      default:
        // UTF-16 units are what Python writes too: a character above U+FFFF becomes its surrogate pair.
        out += `\\u${c.toString(16).padStart(4, '0')}`;
    }
  }
  return `${out}"`;
}

/**
 * A string as `json.dumps(ensure_ascii=False)` writes it: only `"`, `\\` and control characters
 * below U+0020 escaped (the short forms where JSON has them); everything else as itself.
 */
export function pyJsonStringRaw(s: string): string {
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(from, i);
    from = i + 1;
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}${s.slice(from)}"`;
}

/** Compares strings by code point, as Python sorts str (JavaScript's default sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Units differ: only a surrogate against a unit above U+DFFF orders differently by code point.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y : x) > 0xdfff) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Python's `json.dumps(value, ensure_ascii=True, ...)` (or `ensure_ascii=False` by option). Accepts parsed PyValues and plain
 * JavaScript: a PyFloat (see `pyFloat`) or a non-integral number is a float, an integral number or
 * bigint an int; Maps and plain objects are dicts.
 */
export function pyJsonDumps(value: unknown, options: PyDumpOptions = {}): string {
  const indent = options.indent;
  const str = options.ensureAscii === false ? pyJsonStringRaw : pyJsonString;
  const [itemSep, keySep] = options.separators ?? (indent === undefined ? [', ', ': '] : [',', ': ']);
  const parts: string[] = [];
  const write = (v: unknown, level: number): void => {
    if (v === null || v === undefined) parts.push('null');
    else if (v === true) parts.push('true');
    else if (v === false) parts.push('false');
    else if (typeof v === 'string') parts.push(str(v));
    else if (v instanceof PyInt) parts.push(v.value.toString());
    else if (v instanceof PyFloat) parts.push(jsonFloat(v.value));
    else if (typeof v === 'bigint') parts.push(v.toString());
    else if (typeof v === 'number') parts.push(Number.isInteger(v) ? BigInt(v).toString() : jsonFloat(v));
    else if (Array.isArray(v)) container('[', ']', v, level, (item) => write(item, level + 1));
    else if (typeof v === 'object') {
      // A plain object's undefined fields are absent, as JSON.stringify leaves them out.
      let entries =
        v instanceof Map
          ? [...v.entries()]
          : Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      if (options.sortKeys) entries = entries.sort((a, b) => compareCodePoints(String(a[0]), String(b[0])));
      container('{', '}', entries, level, ([k, x]) => {
        parts.push(str(String(k)), keySep);
        write(x, level + 1);
      });
    } else throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
  };
  function container<T>(
    open: string,
    close: string,
    items: T[],
    level: number,
    each: (item: T) => void,
  ): void {
    if (items.length === 0) {
      parts.push(open + close);
      return;
    }
    const inner = indent === undefined ? '' : `\n${' '.repeat(indent * (level + 1))}`;
    const outer = indent === undefined ? '' : `\n${' '.repeat(indent * level)}`;
    parts.push(open);
    items.forEach((item, i) => {
      parts.push(i === 0 ? inner : itemSep + inner);
      each(item);
    });
    parts.push(outer + close);
  }
  write(value, 0);
  return parts.join('');
}
