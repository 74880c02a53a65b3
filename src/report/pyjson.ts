// JSON as Python's `json.dump(obj, ensure_ascii=False, indent=2)` writes it, so a native results
// file matches its tool's byte for byte: floats keep their `.0`, and Python's repr switches to
// exponent notation at other thresholds than JavaScript does.

/** A number Python holds as a float (written `1.0`, not `1`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's `repr(float)`: the shortest round-trip digits, `.0` on whole numbers, `1e-05` style exponents. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const plain = String(x);
  // In this range String(x) is never exponential, and has the same shortest digits.
  return Number.isInteger(x) ? `${plain}.0` : plain;
}

/** Serialises like Python's json.dumps(value, ensure_ascii=False, indent=2); PyFloat marks floats. */
export function pyJson(value: unknown, indent = 2, level = 0): string {
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  const pad = ' '.repeat(indent * (level + 1));
  const end = ' '.repeat(indent * level);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + pyJson(v, indent, level + 1)).join(',\n')}\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${pyJson(v, indent, level + 1)}`).join(',\n')}\n${end}}`;
}
