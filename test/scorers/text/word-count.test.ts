import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { countWords } from '../../../src/scorers/text/word-count.js';
import { not, problem, run } from './helpers.js';

describe('countWords', () => {
  it('counts whitespace-separated runs of the trimmed output', () => {
    assert.equal(countWords(''), 0);
    assert.equal(countWords('   \n\t '), 0);
    assert.equal(countWords('one'), 1);
    assert.equal(countWords('  one two\n\nthree\tfour  '), 4);
    assert.equal(countWords('héllo wörld 😀'), 3);
    assert.equal(countWords('no\u00a0break'), 2);
  });
});

describe('word-count', () => {
  it('exact count, number or numeric string', async () => {
    assert.deepEqual(await run('word-count', 3, 'one two three'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.equal((await run('word-count', '3', 'one two three')).pass, true);
    assert.deepEqual(await run('word-count', 2, 'one two three'), {
      pass: false,
      score: 0,
      reason: 'Word count 3 does not equal expected 2',
    });
    assert.equal((await run('word-count', 0, '')).pass, true);
  });

  it('not- exact count', async () => {
    assert.equal((await run('word-count', 2, 'one two three', not)).pass, true);
    assert.deepEqual(await run('word-count', 3, 'one two three', not), {
      pass: false,
      score: 0,
      reason: 'Expected word count to not equal 3, but got 3',
    });
  });

  it('inclusive range, and its negation', async () => {
    const range = { min: 2, max: 3 };
    assert.equal((await run('word-count', range, 'a b')).pass, true);
    assert.equal((await run('word-count', range, 'a b c')).pass, true);
    assert.deepEqual(await run('word-count', range, 'a b c d'), {
      pass: false,
      score: 0,
      reason: 'Word count 4 is not between 2 and 3',
    });
    assert.equal((await run('word-count', range, 'a', not)).pass, true);
    assert.deepEqual(await run('word-count', range, 'a b', not), {
      pass: false,
      score: 0,
      reason: 'Expected word count to not be between 2 and 3, but got 2',
    });
  });

  it('min only and max only', async () => {
    assert.equal((await run('word-count', { min: 2 }, 'a b c')).pass, true);
    assert.equal((await run('word-count', { min: 2 }, 'a')).reason, 'Word count 1 is less than minimum 2');
    assert.equal(
      (await run('word-count', { min: 2 }, 'a b', not)).reason,
      'Expected word count to be less than 2, but got 2',
    );
    assert.equal((await run('word-count', { max: 2 }, '')).pass, true);
    assert.equal(
      (await run('word-count', { max: 2 }, 'a b c')).reason,
      'Word count 3 is greater than maximum 2',
    );
    assert.equal(
      (await run('word-count', { max: 2 }, 'a', not)).reason,
      'Expected word count to be greater than 2, but got 1',
    );
    assert.equal((await run('word-count', { min: '1', max: '2' }, 'a')).pass, true);
  });

  it('multiline and unicode outputs', async () => {
    assert.equal((await run('word-count', 6, 'Première ligne\nSecond line\n\n— fin')).pass, true);
  });

  it('unusable values throw at score time', async () => {
    await assert.rejects(run('word-count', undefined, 'a'), ScorerInputError);
    await assert.rejects(run('word-count', 'many', 'a'), /must be a number or an object with min\/max/);
    await assert.rejects(
      run('word-count', { min: 5, max: 2 }, 'a'),
      /min \(5\) must be less than or equal to max \(2\)/,
    );
    await assert.rejects(run('word-count', {}, 'a'), /must have "min" and\/or "max"/);
  });

  it('validate: shape and bounds at load', () => {
    assert.equal(problem('word-count', { value: 10 }), undefined);
    assert.equal(problem('word-count', { value: '10' }), undefined);
    assert.equal(problem('word-count', { value: '{{n}}' }), undefined);
    assert.equal(problem('word-count', { value: { min: 1 } }), undefined);
    assert.equal(problem('word-count', {}), 'word-count needs a value, got no value');
    assert.equal(
      problem('word-count', { value: { min: 10, max: 5 } }),
      '"word-count" assertion: min (10) must be less than or equal to max (5)',
    );
    assert.equal(
      problem('word-count', { value: -1 }),
      '"word-count" value must be a whole number ≥ 0, got -1',
    );
    assert.equal(
      problem('word-count', { value: 2.5 }),
      '"word-count" value must be a whole number ≥ 0, got 2.5',
    );
    assert.equal(
      problem('word-count', { value: { min: 'x' } }),
      '"word-count" min must be a number, got a string',
    );
    assert.equal(
      problem('word-count', { value: { minimum: 3 } }),
      '"word-count" object takes only "min" and "max", got "minimum"',
    );
    assert.match(problem('word-count', { value: [1, 2] }) ?? '', /must be a number or an object/);
  });
});
