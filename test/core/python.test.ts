import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pyLen, pyRound, pySlice, pyStrip, pyWordPattern } from '../../src/core/python/text.js';
import { fixture } from '../support/paths.js';

describe('pyRound', () => {
  it("equals Python 3's round(x, n) on 5,000 fixed vectors (random values, decimal and binary ties)", () => {
    const { cases } = JSON.parse(readFileSync(fixture('python', 'round-vectors.json'), 'utf8')) as {
      cases: [number, number, number][];
    };
    assert.ok(cases.length > 4000);
    const wrong = cases.filter(([x, n, want]) => !Object.is(pyRound(x, n), want));
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it('rounds half to even on the exact binary value', () => {
    assert.equal(pyRound(18.25, 1), 18.2);
    assert.equal(pyRound(18.75, 1), 18.8);
    assert.equal(pyRound(2.675, 2), 2.67); // 2.675 is slightly below the tie in binary
    assert.equal(pyRound(0.5), 0);
    assert.equal(pyRound(1.5), 2);
    assert.equal(pyRound(-2.5), -2);
  });
});

// Expected values computed with python3: bool(re.search(rf'\b{word}\b', text)).
const WORD_CASES: [string, string, boolean][] = [
  ['le', 'ɖle ɖla ɖles ɖde', false],
  ['le', 'le\u0303 chat', true],
  ['le', '\u0303le', true],
  ['le', 'le_chat', false],
  ['le', 'le2', false],
  ['le', '(le)', true],
  ['le', 'ŋle', false],
  ['le', 'leŋ', false],
  ['le', 'é-le-é', true],
  ['le', 'x\u200ble', true],
  ['le', 'le²', false],
  ['le', '۳le', false],
  ['est', 'Le chat est là', true],
  ['C', 'AB C', true],
  ['C', 'Ŋutsu C', true],
  ['C', 'C\u0301', true],
  ['C', 'ⅫC', false],
  ['B', 'B)', true],
  ['voici', 'voici!', true],
];

describe('pyWordPattern', () => {
  for (const [word, text, want] of WORD_CASES) {
    it(`\\b${word}\\b in ${JSON.stringify(text)} → ${want}`, () => {
      assert.equal(new RegExp(pyWordPattern(word), 'u').test(text), want);
    });
  }
});

describe('Python strings', () => {
  it('strip removes what str.strip removes, not U+FEFF', () => {
    assert.equal(pyStrip('\u001c\u0085 ama \n'), 'ama');
    assert.equal(pyStrip('\ufeffama'), '\ufeffama');
  });
  it('len and slicing count code points', () => {
    assert.equal(pyLen('😊😊'), 2);
    assert.equal(pySlice('a😊bc', 2), 'a😊');
  });
});
