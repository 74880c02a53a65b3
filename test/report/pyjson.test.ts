import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PyFloat, pyFloatRepr, pyJson } from '../../src/report/pyjson.js';

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
