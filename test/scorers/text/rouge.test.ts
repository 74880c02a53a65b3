import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { rougeN, treebankTokens } from '../../../src/scorers/text/index.js';
import { near, not, problem, run } from './helpers.js';

describe('treebankTokens', () => {
  it('splits punctuation, brackets, quotes and clitics as the Penn Treebank (js-rouge) does', () => {
    assert.deepEqual(treebankTokens('Hello, world!'), ['Hello', ',', 'world', '!']);
    assert.deepEqual(treebankTokens('The end.'), ['The', 'end', '.']);
    assert.deepEqual(treebankTokens("I can't go (now)"), ['I', 'ca', "n't", 'go', '(', 'now', ')']);
    assert.deepEqual(treebankTokens('"Quoted" text'), ['``', 'Quoted', "''", 'text']);
    assert.deepEqual(treebankTokens("I cannot; she'll"), ['I', 'can', 'not', ';', 'she', "'ll"]);
    assert.deepEqual(treebankTokens('wait... what'), ['wait', '...', 'what']);
  });

  it('treats newlines and tabs as spaces, and blank text as no tokens', () => {
    assert.deepEqual(treebankTokens('one\ntwo\tthree'), ['one', 'two', 'three']);
    assert.deepEqual(treebankTokens('   \n '), []);
    assert.deepEqual(treebankTokens('naïve café'), ['naïve', 'café']);
  });
});

describe('rougeN (js-rouge n(), n = 1)', () => {
  it('is distinct shared unigrams over the reference’s unigram count', () => {
    near(rougeN('The cat sat.', 'the cat sat on the mat'), 3 / 6);
    near(rougeN('the quick brown fox', 'the quick brown fox'), 1);
    // js-rouge counts a shared n-gram once, but every reference occurrence in the denominator.
    near(rougeN('the cat sat on the mat', 'the cat sat on the mat'), 5 / 6);
    near(rougeN('Hello, world!', 'hello world'), 1);
    near(rougeN("I can't go", 'I cannot go'), 2 / 4);
  });

  it('ignores case and line breaks', () => {
    near(rougeN('THE CAT\nSAT', 'the cat sat'), 1);
  });

  it('scores an empty candidate 0 and refuses an empty reference', () => {
    assert.equal(rougeN('', 'the cat'), 0);
    assert.equal(rougeN('  \n', 'the cat'), 0);
    assert.throws(() => rougeN('the cat', ' '), ScorerInputError);
  });
});

describe('rouge-n', () => {
  it('passes at or above the default threshold 0.75, with the score as score', async () => {
    assert.deepEqual(await run('rouge-n', 'the quick brown fox', 'The quick brown fox jumps'), {
      pass: true,
      score: 1,
      reason: 'ROUGE-N score 1.00 is greater than or equal to threshold 0.75',
    });
    const half = await run('rouge-n', 'the cat sat on the mat', 'The cat sat.');
    assert.equal(half.pass, false);
    near(half.score, 0.5);
    assert.equal(half.reason, 'ROUGE-N score 0.50 is less than threshold 0.75');
  });

  it('uses an explicit threshold', async () => {
    const r = await run('rouge-n', 'the cat sat on the mat', 'The cat sat.', { spec: { threshold: 0.5 } });
    assert.equal(r.pass, true);
    assert.equal(r.reason, 'ROUGE-N score 0.50 is greater than or equal to threshold 0.5');
    assert.equal((await run('rouge-n', 'a b', 'x', { spec: { threshold: 0 } })).pass, true);
  });

  it('not-rouge-n inverts pass and score', async () => {
    const r = await run('rouge-n', 'the cat sat on the mat', 'The cat sat.', not);
    assert.equal(r.pass, true);
    near(r.score, 0.5);
    const exact = await run('rouge-n', 'same words here', 'same words here', not);
    assert.deepEqual(exact, {
      pass: false,
      score: 0,
      reason: 'ROUGE-N score 1.00 is greater than or equal to threshold 0.75',
    });
  });

  it('an empty output fails (score 0) rather than erroring; negated it passes', async () => {
    assert.deepEqual(await run('rouge-n', 'the cat', ''), {
      pass: false,
      score: 0,
      reason: 'ROUGE-N score 0.00 is less than threshold 0.75',
    });
    assert.deepEqual(await run('rouge-n', 'the cat', '', not), {
      pass: true,
      score: 1,
      reason: 'ROUGE-N score 0.00 is less than threshold 0.75',
    });
  });

  it('unicode words match as words', async () => {
    const r = await run('rouge-n', 'Ünïcödé wörds ok', 'ünïcödé WÖRDS ok');
    near(r.score, 1);
  });

  it('validate: a non-empty string value', async () => {
    assert.equal(problem('rouge-n', { value: 'ref' }), undefined);
    assert.equal(problem('rouge-n', { value: '{{ref}}' }), undefined);
    assert.equal(problem('rouge-n', { value: ' ' }), 'rouge-n needs a non-empty reference text');
    assert.equal(problem('rouge-n', { negate: true }), 'not-rouge-n needs a string value, got no value');
    assert.equal(problem('rouge-n', { value: ['a'] }), '"rouge-n" needs a string value, got an array');
    await assert.rejects(run('rouge-n', { a: 1 }, 'x'), ScorerInputError);
  });
});
