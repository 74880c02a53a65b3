import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pyLen, pyRound, pySlice, pyStrip, pyWordPattern } from '../../src/core/python/text.js';

// Expected values were produced with CPython 3.11 (`str.strip`, `len`, `round`, `re.findall(r'\bw\b')`).
describe('Python string semantics', () => {
  it('str.strip removes U+001C–U+001F and U+0085 but keeps U+FEFF, unlike String.trim', () => {
    assert.equal(pyStrip('\u001c\u001d\u001e\u001f\u0085 a b\u00a0\u3000'), 'a b');
    assert.equal(pyStrip('\ufeffa\ufeff'), '\ufeffa\ufeff');
    assert.equal('\ufeffa'.trim(), 'a', 'JavaScript differs here');
    assert.equal(pyStrip(''), '');
    assert.equal(pyStrip(' \t\n'), '');
  });

  it('len and slicing count code points', () => {
    assert.equal(pyLen('ɖe 😀'), 4);
    assert.equal(pySlice('😀😀😀', 2), '😀😀');
    assert.equal(pySlice('abc', 5), 'abc');
  });

  it('word boundaries are Unicode-aware', () => {
    const re = new RegExp(pyWordPattern('le'), 'gu');
    // Python: re.findall(r'\ble\b', 'ɖele le ŋle le.') == ['le', 'le']
    assert.equal('ɖele le ŋle le.'.match(re)?.length, 2);
    assert.equal('ale_le le'.match(re)?.length, 1);
  });
});

describe('pyRound', () => {
  it('rounds half to even on the exact binary value', () => {
    const cases: [number, number, number][] = [
      [18.25, 1, 18.2],
      [18.75, 1, 18.8],
      [0.125, 2, 0.12],
      [0.375, 2, 0.38],
      [2.5, 0, 2],
      [3.5, 0, 4],
      [-2.5, 0, -2],
      [0.9500000000000001, 3, 0.95],
      [73.45, 1, 73.5],
      [0.6665, 3, 0.666],
      [1.0005, 3, 1],
      [66.66666666666667, 1, 66.7],
      [2.675, 2, 2.67],
      [0.5, 0, 0],
      [1.5, 0, 2],
    ];
    for (const [x, n, want] of cases) assert.equal(pyRound(x, n), want, `round(${x}, ${n})`);
  });
});
