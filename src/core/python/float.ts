// Python's `float()` of a value read from JSON: numbers, booleans, and strings in Python's float
// syntax (surrounding whitespace, `_` between digits, inf/nan); anything else raises in Python.
import { type PyValue, pyToJs } from './json-loads.js';

/** Python's `float(x)` of a JSON value (strings as Python parses them); undefined where Python raises. */
export function pyFloat(v: PyValue): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') {
    const n = pyToJs(v);
    return typeof n === 'number' ? n : undefined;
  }
  const s = v.trim();
  if (/^[+-]?(inf|infinity|nan)$/i.test(s))
    return Number(s.replace(/inf(inity)?/i, 'Infinity').replace(/nan/i, 'NaN'));
  if (!/^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/.test(s)) return undefined;
  return Number(s.replace(/_/g, ''));
}
