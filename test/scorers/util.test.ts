import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../src/scorers/types.js';
import { parseCommaList, truncate } from '../../src/scorers/util.js';

describe('parseCommaList', () => {
  it('splits on commas, trims items and drops blanks', () => {
    assert.deepEqual(parseCommaList(' a, b ,c'), ['a', 'b', 'c']);
    assert.deepEqual(parseCommaList('a,,b, ,'), ['a', 'b']);
    assert.deepEqual(parseCommaList(''), []);
    assert.deepEqual(parseCommaList(' , , '), []);
    assert.deepEqual(parseCommaList('single'), ['single']);
  });

  it('double quotes protect commas and surrounding spaces', () => {
    assert.deepEqual(parseCommaList('"a,b", c'), ['a,b', 'c']);
    assert.deepEqual(parseCommaList('" padded ", x'), [' padded ', 'x']);
    assert.deepEqual(parseCommaList('x, "y, z"  '), ['x', 'y, z']);
  });

  it('\\" and "" escape a quote inside quotes; \\\\ escapes a backslash', () => {
    assert.deepEqual(parseCommaList('"say \\"hi\\"", b'), ['say "hi"', 'b']);
    assert.deepEqual(parseCommaList('"say ""hi""", b'), ['say "hi"', 'b']);
    assert.deepEqual(parseCommaList('"back\\\\slash"'), ['back\\slash']);
    assert.deepEqual(parseCommaList('"keep \\n as is"'), ['keep \\n as is']);
  });

  it('quotes inside an unquoted item and backslashes there are literal', () => {
    assert.deepEqual(parseCommaList('say "hi", b'), ['say "hi"', 'b']);
    assert.deepEqual(parseCommaList('a\\"b, c'), ['a\\"b', 'c']);
  });

  it('an empty quoted item is dropped', () => {
    assert.deepEqual(parseCommaList('"", a'), ['a']);
  });

  it('rejects an unterminated quote and text after a closing quote', () => {
    assert.throws(() => parseCommaList('"abc, d'), ScorerInputError);
    assert.throws(() => parseCommaList('"abc" d, e'), /expected a comma/);
  });

  it('keeps unicode items intact', () => {
    assert.deepEqual(parseCommaList('Straße, "İstanbul, Türkiye", 🎉'), [
      'Straße',
      'İstanbul, Türkiye',
      '🎉',
    ]);
  });
});

describe('truncate', () => {
  it('leaves short text alone and shortens long text with a count', () => {
    assert.equal(truncate('short'), 'short');
    const long = 'a'.repeat(250);
    const t = truncate(long);
    assert.ok(t.startsWith('a'.repeat(200)));
    assert.match(t, /… \(50 more characters\)$/);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(199)}😀tail`;
    const t = truncate(text);
    assert.ok(!t.includes('\ud83d…'));
    assert.ok(t.startsWith('a'.repeat(199) + '…'));
  });
});
