// Python's str.format_map and str()/repr() spelling, against values python3 computed
// (test/fixtures/lve/python-reference.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PyFormatError, pyFormatMap } from '../../src/core/python/format.js';
import { type PyValue, pyJsonLoads } from '../../src/core/python/json-loads.js';
import { pyStr, toPyValue } from '../../src/core/python/str.js';
import { fixture } from '../support/paths.js';

const raw = readFileSync(fixture('lve', 'python-reference.json'), 'utf8');
const reference = JSON.parse(raw);
// The values keep Python's types (0.0 stays a float), as json.loads gives them.
const values = (pyJsonLoads(raw) as Map<string, PyValue>).get('values') as Map<string, PyValue>;

describe('pyFormatMap', () => {
  for (const c of reference.format as {
    template: string;
    result?: string;
    error?: string;
    message?: string;
  }[]) {
    it(`${JSON.stringify(c.template)} → ${c.error ? `${c.error}: ${c.message}` : JSON.stringify(c.result)}`, () => {
      if (c.error !== undefined) {
        assert.throws(
          () => pyFormatMap(c.template, values),
          (err: unknown) =>
            err instanceof PyFormatError && err.pyType === c.error && err.message === c.message,
        );
        return;
      }
      if (/[:.[]/.test(c.template)) {
        // Format specs and attribute/index access: legal Python that assay refuses, saying so.
        assert.throws(
          () => pyFormatMap(c.template, values),
          (err: unknown) =>
            err instanceof PyFormatError &&
            err.pyType === 'Unsupported' &&
            /not supported by assay/.test(err.message),
        );
        return;
      }
      assert.equal(pyFormatMap(c.template, values), c.result);
    });
  }
});

describe("pyFormatMap(…, 'format'): str.format(**values)", () => {
  it('reports a positional field as Python does', () => {
    assert.throws(
      () => pyFormatMap('\\d{3}', new Map(), 'format'),
      /Replacement index 3 out of range for positional args tuple/,
    );
    assert.throws(() => pyFormatMap('{} {}', new Map(), 'format'), /Replacement index 0 out of range/);
    assert.equal(pyFormatMap('[0-9]{{1,6}} {a}', new Map([['a', 'x']]), 'format'), '[0-9]{1,6} x');
  });
});

describe('pyStr', () => {
  it('spells JSON values as Python str() does', () => {
    assert.equal(pyStr(toPyValue(true)), 'True');
    assert.equal(pyStr(toPyValue(null)), 'None');
    assert.equal(pyStr(toPyValue(['a', "b'c", 1, null])), `['a', "b'c", 1, None]`);
    assert.equal(pyStr(toPyValue({ k: 'v' })), "{'k': 'v'}");
    assert.equal(pyStr(pyJsonLoads('1.0')), '1.0');
    assert.equal(pyStr(pyJsonLoads('1e20')), '1e+20');
    assert.equal(pyStr(pyJsonLoads('12345678901234567890')), '12345678901234567890');
  });
});

describe('pyFormatMap: !a is ascii()', () => {
  it('escapes every non-ASCII character of the repr, in containers too (python3 computed)', () => {
    const values = new Map<string, PyValue>([
      ['x', 'café ☃ 😀'],
      ['y', ['é', new Map<string, PyValue>([['k', 'ü']])]],
      ['z', 'é'],
    ]);
    assert.equal(
      pyFormatMap('{x!a}|{y!a}|{z!r}', values),
      "'caf\\xe9 \\u2603 \\U0001f600'|['\\xe9', {'k': '\\xfc'}]|'é'",
    );
  });
});
