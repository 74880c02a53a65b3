// Python's `<` on JSON values and `sorted()` by a key: numbers (int, float, bool) by value, strings
// by code point, lists element by element; anything else (None, dicts, a number against a string)
// raises TypeError, as Python does.
import { compareCodePoints } from './json-dumps.js';
import { PyFloat, PyInt, type PyValue } from './json-loads.js';

/** Python raised TypeError comparing two values. */
export class PyTypeError extends Error {}

function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (v instanceof PyInt) return 'int';
  if (v instanceof PyFloat) return 'float';
  if (Array.isArray(v)) return 'list';
  return 'dict';
}

function isNumber(v: PyValue): v is boolean | PyInt | PyFloat {
  return typeof v === 'boolean' || v instanceof PyInt || v instanceof PyFloat;
}

/** Exact comparison of two Python numbers (ints as bigints, so large ints keep their order). */
function compareNumbers(a: boolean | PyInt | PyFloat, b: boolean | PyInt | PyFloat): number {
  const big = (v: boolean | PyInt): bigint => (typeof v === 'boolean' ? BigInt(Number(v)) : v.value);
  if (!(a instanceof PyFloat) && !(b instanceof PyFloat)) {
    const x = big(a);
    const y = big(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof PyFloat && b instanceof PyFloat) return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  // An int against a float: compare exactly where the float is integral, else by value.
  const [int, float, sign] =
    a instanceof PyFloat ? [big(b as boolean | PyInt), a.value, -1] : [big(a), (b as PyFloat).value, 1];
  if (Number.isNaN(float)) return 0;
  if (!Number.isFinite(float)) return sign * (float > 0 ? -1 : 1);
  const floor = Math.floor(float);
  const whole = BigInt(floor);
  const c = int < whole ? -1 : int > whole ? 1 : float > floor ? -1 : 0;
  return sign * c;
}

/**
 * -1, 0 or 1 as Python orders `a` and `b` (0: neither `a < b` nor `b < a`); throws PyTypeError
 * where Python's `<` raises.
 */
export function pyCompare(a: PyValue, b: PyValue): number {
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b);
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(compareCodePoints(a, b));
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      // Python skips equal items first (==, which never raises), then orders the first unequal pair.
      if (pyEquals(a[i], b[i])) continue;
      return pyCompare(a[i], b[i]);
    }
    return Math.sign(a.length - b.length);
  }
  throw new PyTypeError(`'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python's `==` on JSON values (never raises). */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b) === 0 && !isNaNValue(a) && !isNaNValue(b);
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  if (a instanceof Map && b instanceof Map)
    return a.size === b.size && [...a].every(([k, v]) => b.has(k) && pyEquals(v, b.get(k) as PyValue));
  return false;
}

function isNaNValue(v: PyValue): boolean {
  return v instanceof PyFloat && Number.isNaN(v.value);
}

/**
 * `sorted(items, key=key)`: stable; throws PyTypeError when two keys cannot be ordered (with two
 * or more items of kinds Python cannot compare, any sort compares such a pair).
 */
export function pySorted<T>(items: readonly T[], key: (item: T) => PyValue): T[] {
  const keyed = items.map((item, i) => ({ item, key: key(item), i }));
  keyed.sort((x, y) => pyCompare(x.key, y.key) || x.i - y.i);
  return keyed.map((k) => k.item);
}
