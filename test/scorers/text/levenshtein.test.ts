import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { levenshteinDistance } from '../../../src/scorers/text/index.js';
import { not, problem, run } from './helpers.js';

describe('levenshteinDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    assert.equal(levenshteinDistance('kitten', 'sitting'), 3);
    assert.equal(levenshteinDistance('flaw', 'lawn'), 2);
    assert.equal(levenshteinDistance('', 'abc'), 3);
    assert.equal(levenshteinDistance('abc', ''), 3);
    assert.equal(levenshteinDistance('same', 'same'), 0);
    assert.equal(levenshteinDistance('prefix-middle-suffix', 'prefix-centre-suffix'), 5);
  });

  it('counts UTF-16 code units, as promptfoo’s fastest-levenshtein does', () => {
    // 😀 and 😃 share their high surrogate: one unit differs.
    assert.equal(levenshteinDistance('😀', '😃'), 1);
    assert.equal(levenshteinDistance('a😀', 'a'), 2);
    // Precomposed é vs e + combining acute: one substitution and one insertion.
    assert.equal(levenshteinDistance('caf\u00e9', 'cafe\u0301'), 2);
  });

  it('is symmetric across multiline text', () => {
    const a = 'line one\nline two\n';
    const b = 'line one\nline 2\n';
    assert.equal(levenshteinDistance(a, b), levenshteinDistance(b, a));
    assert.equal(levenshteinDistance(a, b), 3);
  });
});

describe('levenshtein', () => {
  it('passes within the default threshold of 5', async () => {
    assert.deepEqual(await run('levenshtein', 'hello world', 'hello wrld'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.equal((await run('levenshtein', 'abcdefgh', 'abc')).pass, true); // distance 5
    assert.deepEqual(await run('levenshtein', 'abcdefghi', 'abc'), {
      pass: false,
      score: 0,
      reason: 'Levenshtein distance 6 is greater than threshold 5',
    });
  });

  it('uses an explicit threshold, 0 meaning an exact match (newer promptfoo: ??, not ||)', async () => {
    assert.equal((await run('levenshtein', 'hello', 'helo', { spec: { threshold: 1 } })).pass, true);
    assert.equal((await run('levenshtein', 'hello', 'hxlo', { spec: { threshold: 1 } })).pass, false);
    assert.equal((await run('levenshtein', 'hello', 'hello', { spec: { threshold: 0 } })).pass, true);
    assert.deepEqual(await run('levenshtein', 'hello', 'hellO', { spec: { threshold: 0 } }), {
      pass: false,
      score: 0,
      reason: 'Levenshtein distance 1 is greater than threshold 0',
    });
  });

  it('§11 #3: the CSV threshold 0.75 passes only an exact match', async () => {
    const csv = { spec: { threshold: 0.75 } };
    assert.equal((await run('levenshtein', 'hello', 'hello', csv)).pass, true);
    assert.equal((await run('levenshtein', 'hello', 'hell', csv)).pass, false);
  });

  // promptfoo 0.123.1 honours `not-` (recorded: not-levenshtein kitten/sitting, threshold 5, fails).
  it('not-levenshtein passes when the distance is beyond the threshold', async () => {
    const spec = { negate: true, threshold: 2 };
    assert.deepEqual(await run('levenshtein', 'hello', 'helo', { spec }), {
      pass: false,
      score: 0,
      reason: 'Levenshtein distance 1 is less than or equal to threshold 2',
    });
    assert.equal((await run('levenshtein', 'hello', 'goodbye', { spec })).pass, true);
    assert.equal((await run('levenshtein', 'abc', 'abc', not)).pass, false);
  });

  it('handles an empty output and an empty expected value', async () => {
    assert.equal((await run('levenshtein', 'abc', '')).pass, true);
    assert.equal((await run('levenshtein', '', 'abcdef')).pass, false);
  });

  it('a value that is not a string is an unusable assertion', async () => {
    await assert.rejects(run('levenshtein', 42, 'x'), ScorerInputError);
    await assert.rejects(run('levenshtein', ['a'], 'x'), /must have a string value, got an array/);
  });

  it('validate: needs a string value', () => {
    assert.equal(problem('levenshtein', { value: 'x' }), undefined);
    assert.equal(problem('levenshtein', { value: '' }), undefined);
    assert.equal(problem('levenshtein', {}), 'levenshtein needs a string value, got no value');
    assert.equal(problem('levenshtein', { value: 5 }), '"levenshtein" needs a string value, got a number');
    assert.equal(
      problem('levenshtein', { value: 5, negate: true }),
      '"levenshtein" needs a string value, got a number',
    );
  });
});
