import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareCodePoints,
  pyFloat,
  pyFloatRepr,
  pyJsonDumps,
  pyJsonString,
} from '../../src/core/python/json-dumps.js';
import {
  PyFloat,
  PyInt,
  PyJsonAbort,
  PyJsonError,
  pyJsonLoads,
  pyToJs,
  pyTypeName,
} from '../../src/core/python/json-loads.js';

// Every expected value below was produced by CPython 3.11's json module on the same input.
const canonical = (text: string): string =>
  pyJsonDumps(pyJsonLoads(text), { sortKeys: true, separators: [',', ':'] });

function pyError(text: string): string {
  try {
    pyJsonLoads(text);
  } catch (err) {
    assert.ok(err instanceof PyJsonError);
    return err.message;
  }
  assert.fail(`${JSON.stringify(text)} parsed`);
}

describe('pyJsonLoads', () => {
  it('keeps floats as floats and ints exact', () => {
    assert.equal(canonical('1.0'), '1.0');
    assert.equal(canonical('1e5'), '100000.0');
    assert.equal(canonical('-0'), '0');
    assert.equal(canonical('-0.0'), '-0.0');
    assert.equal(canonical('123456789012345678901234567890'), '123456789012345678901234567890');
    assert.equal(canonical('[NaN, 1e400, -1e400]'), '[NaN,Infinity,-Infinity]');
    assert.equal(canonical('[Infinity, -Infinity]'), '[Infinity,-Infinity]');
    assert.ok(pyJsonLoads('2') instanceof PyInt);
    assert.ok(pyJsonLoads('2.5') instanceof PyFloat);
  });

  it('keeps the last of duplicate keys, escapes surrogates as Python does', () => {
    assert.equal(canonical('{"a":1,"a":2}'), '{"a":2}');
    assert.equal(canonical('"\\ud800"'), '"\\ud800"');
    assert.equal(canonical('"\\ud800\\udc00"'), '"\\ud800\\udc00"');
    assert.equal(canonical('"\\ud800\\u0041x"'), '"\\ud800Ax"');
    assert.equal(canonical('"\\/"'), '"/"');
    assert.equal(canonical('{"é": "ü", "😀": 1}'), '{"\\u00e9":"\\u00fc","\\ud83d\\ude00":1}');
  });

  it("reports Python's messages and positions (code points, 1-based line and column)", () => {
    const vectors: [string, string][] = [
      ['', 'Expecting value: line 1 column 1 (char 0)'],
      [' ', 'Expecting value: line 1 column 2 (char 1)'],
      ['{"a":1,}', 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)'],
      ['[1,]', 'Expecting value: line 1 column 4 (char 3)'],
      ['[1 2]', "Expecting ',' delimiter: line 1 column 4 (char 3)"],
      ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
      ['"abc', 'Unterminated string starting at: line 1 column 1 (char 0)'],
      ['"a\\x"', 'Invalid \\escape: line 1 column 3 (char 2)'],
      ['"\\u12g4"', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
      ['"\\u1234', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
      ['"\\ud800\\udc00', 'Invalid \\uXXXX escape: line 1 column 9 (char 8)'],
      ['"tab\there"', 'Invalid control character at: line 1 column 5 (char 4)'],
      ['01', 'Extra data: line 1 column 2 (char 1)'],
      ['1.', 'Extra data: line 1 column 2 (char 1)'],
      ['nan', 'Expecting value: line 1 column 1 (char 0)'],
      ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
      ['  [1,\n 2,\n x]', 'Expecting value: line 3 column 2 (char 11)'],
      ['"😀" 1', 'Extra data: line 1 column 5 (char 4)'],
      ['{', 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
      ['[-]', 'Expecting value: line 1 column 2 (char 1)'],
    ];
    for (const [text, message] of vectors) assert.equal(pyError(text), message, JSON.stringify(text));
  });

  it('raises what Python raises past its limits: ValueError over 4300 digits, RecursionError past 995 levels', () => {
    assert.throws(
      () => pyJsonLoads('1'.repeat(4301)),
      (e: unknown) => e instanceof PyJsonAbort && e.pyType === 'ValueError',
    );
    assert.throws(
      () => pyJsonLoads(`${'['.repeat(996)}`),
      (e: unknown) => e instanceof PyJsonAbort && e.pyType === 'RecursionError',
      'the depth is reached before the missing brackets are noticed, as in Python',
    );
    // A decode error met before the limit wins, as Python scans left to right.
    assert.throws(() => pyJsonLoads(`[x, ${'1'.repeat(5000)}]`), PyJsonError);
  });

  it("names Python's types", () => {
    const names = ['{}', '[]', '1', '1.0', '"x"', 'true', 'null'].map((t) => pyTypeName(pyJsonLoads(t)));
    assert.deepEqual(names, ['dict', 'list', 'int', 'float', 'str', 'bool', 'NoneType']);
  });

  it('converts to plain JavaScript, keeping a __proto__ key an ordinary key', () => {
    const v = pyToJs(pyJsonLoads('{"__proto__": {"x": 1}, "n": [1.5, 2]}')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(v), ['__proto__', 'n']);
    assert.deepEqual(v.n, [1.5, 2]);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
  });
});

describe('pyJsonDumps', () => {
  it("writes floats as Python's repr", () => {
    const text =
      '[1.5e-7, 1e16, 1e15, 0.0001, 0.00001, 123.456, 1e22, 5e-324, 1.7976931348623157e308, 2.5, 100.0, 1E2, 0.1, -1.5]';
    assert.equal(
      canonical(text),
      '[1.5e-07,1e+16,1000000000000000.0,0.0001,1e-05,123.456,1e+22,5e-324,1.7976931348623157e+308,2.5,100.0,100.0,0.1,-1.5]',
    );
    assert.equal(pyFloatRepr(Number.NaN), 'nan');
    assert.equal(pyFloatRepr(-0), '-0.0');
  });

  it('escapes everything outside printable ASCII, U+007F included', () => {
    assert.equal(
      pyJsonString('\u007f\u0080\u2028\u00a0\u0001\b\f\n\r\t"\\/'),
      '"\\u007f\\u0080\\u2028\\u00a0\\u0001\\b\\f\\n\\r\\t\\"\\\\/"',
    );
  });

  it('sorts keys by code point, not by UTF-16 unit', () => {
    // U+FF21 sorts before U+1F600 by code point, after it by UTF-16 unit.
    assert.ok(compareCodePoints('\uff21', '😀') < 0);
    assert.ok('\uff21' > '😀');
    assert.equal(
      pyJsonDumps({ '😀': 1, '\uff21': 2, a: 3 }, { sortKeys: true }),
      '{"a": 3, "\\uff21": 2, "\\ud83d\\ude00": 1}',
    );
  });

  it('indents as json.dumps(indent=2)', () => {
    const value = { a: [], b: {}, c: [1, pyFloat(0)], d: { e: null } };
    assert.equal(
      pyJsonDumps(value, { indent: 2 }),
      '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    0.0\n  ],\n  "d": {\n    "e": null\n  }\n}',
    );
  });
});
