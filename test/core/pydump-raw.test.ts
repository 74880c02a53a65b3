import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pyFloatRepr, pyJsonDumps } from '../../src/core/python/json-dumps.js';
import { PyFloat } from '../../src/core/python/json-loads.js';

const pyJson = (value: unknown): string => pyJsonDumps(value, { indent: 2, ensureAscii: false });

describe("Python's json.dumps(indent=2, ensure_ascii=False)", () => {
  it("writes floats as Python's repr does", () => {
    // Expected strings from python3: repr(x).
    const cases: [number, string][] = [
      [100, '100.0'],
      [0, '0.0'],
      [54.6, '54.6'],
      [0.9500000000000001, '0.9500000000000001'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [1e16, '1e+16'],
      [123456789012345680, '1.2345678901234568e+17'],
      [-2.5, '-2.5'],
    ];
    for (const [x, want] of cases) assert.equal(pyFloatRepr(x), want, String(x));
  });

  it('lays out objects and lists like Python, keeping non-ASCII text', () => {
    const text = pyJson({ a: new PyFloat(1), b: [], c: {}, d: ['ÈwéBench', 2], e: { f: 'x"\n\u001f' } });
    assert.equal(
      text,
      '{\n  "a": 1.0,\n  "b": [],\n  "c": {},\n  "d": [\n    "ÈwéBench",\n    2\n  ],\n  "e": {\n    "f": "x\\"\\n\\u001f"\n  }\n}',
    );
  });
});

describe('ensure_ascii=False strings', () => {
  it("escape only what Python's json.dumps escapes", () => {
    // python3 -c "import json; print(json.dumps(['é\x7f\u2028😀\x00\x1f\"\\\\', {'k': None}], ensure_ascii=False, indent=2))"
    assert.equal(
      pyJson(['é\u007f\u2028😀\u0000\u001f"\\', { k: null, skipped: undefined }]),
      '[\n  "é\u007f\u2028😀\\u0000\\u001f\\"\\\\",\n  {\n    "k": null\n  }\n]',
    );
  });
});
