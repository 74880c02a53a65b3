import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { bleuScore, gleuScore } from '../../../src/scorers/text/index.js';
import { near, not, problem, run } from './helpers.js';

describe('bleuScore (BLEU-4, hand-computed values)', () => {
  it('is 1 for an identical text, whatever the case', () => {
    near(bleuScore('the quick brown fox jumps', ['the quick brown fox jumps']), 1);
    near(bleuScore('The Quick Brown Fox', ['the quick brown fox']), 1);
  });

  it('geometric mean of clipped precisions, a zero precision smoothed to 1e-7', () => {
    // p1 = 5/6 (the×2, cat, on, mat), p2 = 3/5, p3 = 1/4, p4 = 0 → 1e-7; c = r = 6 → BP = 1.
    near(
      bleuScore('the cat sat on the mat', ['the cat is on the mat']),
      ((5 / 6) * (3 / 5) * (1 / 4) * 1e-7) ** 0.25,
    );
    // Nothing shared: every order smoothed.
    near(bleuScore('w x y z', ['a b c d']), 1e-7);
  });

  it('clips repeated words to their reference count', () => {
    // p1 = 2/4 ("the" counted at most twice), p2..p4 = 0 for a 4-word candidate of one word.
    near(bleuScore('the the the the', ['the cat the mat']), (0.5 * 1e-7 * 1e-7 * 1e-7) ** 0.25);
  });

  it('brevity penalty exp(1 − r/c); orders longer than the candidate are left out', () => {
    // c = 2, r = 6: p1 = p2 = 1, orders 3 and 4 have no candidate n-grams.
    near(bleuScore('the cat', ['the cat sat on the mat']), Math.exp(1 - 6 / 2));
    near(bleuScore('hello', ['hello']), 1);
  });

  it('takes the best reference per order and the closest reference length (shorter on a tie)', () => {
    // |c| = 4; references of length 6 and 2 are equally close: the shorter (2) gives BP = 1.
    near(bleuScore('a b c d', ['a b c d e f', 'a b']), 1);
    near(bleuScore('a b c d', ['a b', 'a b c d e f']), 1);
    // Only the 6-word reference: BP = exp(1 − 6/4).
    near(bleuScore('a b c d', ['a b c d e f']), Math.exp(1 - 6 / 4));
  });

  it('a blank candidate scores 0', () => {
    assert.equal(bleuScore('', ['a b']), 0);
    assert.equal(bleuScore(' \n ', ['a b']), 0);
  });
});

describe('gleuScore (hand-computed values)', () => {
  it('min(precision, recall) over all 1–4-grams', () => {
    // matches 5+3+1+0 = 9; candidate and reference n-grams 6+5+4+3 = 18 each.
    near(gleuScore('the cat sat on the mat', ['the cat is on the mat']), 9 / 18);
    // matches 2+1 = 3; candidate n-grams 2+1 = 3; reference n-grams 4+3+2+1 = 10.
    near(gleuScore('a b', ['a b c d']), 3 / 10);
  });

  it('identical texts (ignoring case and trailing periods) score 1', () => {
    near(gleuScore('The cat.', ['the cat']), 1);
    near(gleuScore('one', ['ONE...']), 1);
  });

  it('the best of several references; blank candidate 0', () => {
    near(gleuScore('a b', ['x y', 'a b c d']), 0.3);
    assert.equal(gleuScore('', ['a b']), 0);
    assert.equal(gleuScore('zzz', ['a b']), 0);
  });
});

describe('bleu / gleu assertions', () => {
  it('bleu passes at or above the default threshold 0.5', async () => {
    assert.deepEqual(await run('bleu', 'the quick brown fox', 'The quick brown fox'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    const r = await run('bleu', 'the cat is on the mat', 'the cat sat on the mat');
    assert.equal(r.pass, false);
    assert.equal(r.reason, `BLEU score ${r.score.toFixed(4)} is less than threshold 0.5`);
  });

  it('bleu takes a list of references and an explicit threshold', async () => {
    const r = await run('bleu', ['something else entirely', 'the cat'], 'the cat', {
      spec: { threshold: 0.9 },
    });
    assert.equal(r.pass, true);
    near(r.score, 1);
    const low = await run('bleu', 'the cat sat on the mat', 'the cat', { spec: { threshold: 0.2 } });
    near(low.score, Math.exp(-2));
    assert.equal(low.pass, false);
  });

  it('not-bleu inverts pass and score', async () => {
    const r = await run('bleu', 'the cat sat on the mat', 'the cat', not);
    assert.equal(r.pass, true);
    near(r.score, 1 - Math.exp(-2));
    assert.deepEqual(await run('bleu', 'same text here', 'same text here', not), {
      pass: false,
      score: 0,
      reason: 'BLEU score 1.0000 is greater than threshold 0.5',
    });
  });

  it('gleu: default threshold 0.5, negation and lists', async () => {
    const half = await run('gleu', 'the cat is on the mat', 'the cat sat on the mat');
    assert.equal(half.pass, true);
    near(half.score, 0.5);
    const low = await run('gleu', ['x y', 'a b c d'], 'a b');
    assert.deepEqual(low, {
      pass: false,
      score: 0.3,
      reason: 'GLEU score 0.3000 is less than threshold 0.5',
    });
    const negated = await run('gleu', 'a b c d', 'a b', not);
    assert.equal(negated.pass, true);
    near(negated.score, 0.7);
  });

  it('an empty output fails instead of erroring', async () => {
    assert.deepEqual(await run('bleu', 'the cat', ''), {
      pass: false,
      score: 0,
      reason: 'BLEU score 0.0000 is less than threshold 0.5',
    });
    assert.equal((await run('gleu', 'the cat', '')).pass, false);
  });

  it('bad references are unusable assertions, reported at load when literal', async () => {
    await assert.rejects(run('bleu', 7, 'x'), ScorerInputError);
    await assert.rejects(run('bleu', [], 'x'), /empty list of references/);
    await assert.rejects(run('gleu', ['ok', ''], 'x'), /reference 2 is empty/);
    assert.equal(problem('bleu', { value: 'a' }), undefined);
    assert.equal(problem('bleu', { value: ['a', 'b'] }), undefined);
    assert.equal(problem('bleu', { value: '{{ref}}' }), undefined);
    assert.equal(problem('bleu', {}), 'bleu needs a reference string or a list of them, got no value');
    assert.match(problem('gleu', { value: ['a', 3] }) ?? '', /item 2 is a number/);
    assert.match(problem('bleu', { value: '' }) ?? '', /reference 1 is empty/);
  });
});
