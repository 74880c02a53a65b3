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

// Expected values computed by promptfoo 0.123.1's rougeNScore (js-rouge 3.2.3) on the same texts.
describe('rougeN (promptfoo 0.123.1: clipped unigram F-score over js-rouge tokens)', () => {
  it('is the F-score of clipped shared unigrams', () => {
    near(rougeN('The cat sat.', 'the cat sat on the mat'), 0.6000000000000001);
    near(rougeN('the quick brown fox', 'the quick brown fox'), 1);
    // Clipped counts: identical text with a repeated word scores 1 (js-rouge's own n() gave 5/6).
    near(rougeN('the cat sat on the mat', 'the cat sat on the mat'), 1);
    near(rougeN('Hello, world!', 'hello world'), 0.6666666666666666);
    near(rougeN("I can't go", 'I cannot go'), 0.5);
    near(rougeN('The quick brown fox jumps', 'the quick brown fox'), 0.888888888888889);
  });

  it('ignores case and line breaks', () => {
    near(rougeN('THE CAT\nSAT', 'the cat sat'), 1);
  });

  it('scores an empty candidate or reference 0', () => {
    assert.equal(rougeN('', 'the cat'), 0);
    assert.equal(rougeN('  \n', 'the cat'), 0);
    assert.equal(rougeN('the cat', ' '), 0);
  });
});

describe('rouge-n', () => {
  it('passes at or above the default threshold 0.75, with the score as score', async () => {
    const r = await run('rouge-n', 'the quick brown fox', 'The quick brown fox jumps');
    assert.equal(r.pass, true);
    near(r.score, 0.888888888888889);
    assert.equal(r.reason, 'ROUGE-N score 0.89 is greater than or equal to threshold 0.75');
    const low = await run('rouge-n', 'the cat sat on the mat', 'The cat sat.');
    assert.equal(low.pass, false);
    near(low.score, 0.6);
    assert.equal(low.reason, 'ROUGE-N score 0.60 is less than threshold 0.75');
  });

  it('uses an explicit threshold', async () => {
    const r = await run('rouge-n', 'the cat sat on the mat', 'The cat sat.', { spec: { threshold: 0.5 } });
    assert.equal(r.pass, true);
    assert.equal(r.reason, 'ROUGE-N score 0.60 is greater than or equal to threshold 0.5');
    assert.equal((await run('rouge-n', 'a b', 'x', { spec: { threshold: 0 } })).pass, true);
  });

  it('not-rouge-n inverts pass and score', async () => {
    const r = await run('rouge-n', 'the cat sat on the mat', 'The cat sat.', not);
    assert.equal(r.pass, true);
    near(r.score, 0.4);
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
