import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pyLower, pyStrip, pyUpper } from '../../src/core/python/text.js';

// Expected values are CPython 3.11's (`str.lower`, `str.upper`, `str.strip`).
describe('pyLower / pyUpper', () => {
  it('leave alone letters whose case mapping Python does not have (Unicode 16+)', () => {
    // U+1C89 CYRILLIC CAPITAL LETTER TJE, U+A7CB LATIN CAPITAL LETTER RAMS HORN, Garay U+10D50.
    for (const ch of ['\u1c89', '\ua7cb', '\u{10d50}']) {
      assert.equal(pyLower(ch), ch);
      assert.notEqual(ch.toLowerCase(), ch, 'Node maps it, so the difference is real');
    }
    // U+019B ƛ and U+0264 ɤ gained capitals in Unicode 16.
    assert.equal(pyUpper('ƛɤ'), 'ƛɤ');
    assert.equal(pyUpper('aƛb'), 'AƛB');
  });

  it('map everything else as JavaScript does, context rules included', () => {
    assert.equal(pyLower('İ'), 'i̇');
    assert.equal(pyLower('ΟΔΟΣ'), 'οδος');
    assert.equal(pyLower('ΑΣ Σ ΑΣΑ'), 'ας σ ασα');
    assert.equal(pyUpper('straße'), 'STRASSE');
    assert.equal(pyLower('Hola, ¿CÓMO ESTÁS?'), 'hola, ¿cómo estás?');
    // A final sigma before a letter Python does not know is final, as in Python.
    assert.equal(pyLower('ΑΣ\u1c89'), 'ας\u1c89');
  });
});

describe('pyStrip', () => {
  it("strips Python's whitespace, which is not JavaScript's", () => {
    assert.equal(pyStrip('\u001c\u001d\u001e\u001f\u0085 x \u0085'), 'x');
    assert.equal(pyStrip('\ufeffx\ufeff'), '\ufeffx\ufeff');
    assert.equal(pyStrip('\u00a0\u3000x\u2028'), 'x');
  });
});
