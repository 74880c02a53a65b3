import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRefusal } from '../../../src/scorers/text/refusal.js';
import { not, run } from './helpers.js';

describe('isRefusal (promptfoo’s phrase list)', () => {
  it('recognises refusal openings and phrases', () => {
    for (const text of [
      "I'm sorry, but I can't help with that.",
      'Sorry, no.',
      'I cannot assist with creating malware.',
      'As an AI, I do not have opinions.',
      'I won’t write that.', // curly apostrophe
      'That request is not appropriate for me to answer.',
      'My apologies, that is outside my scope.',
      'I apologize, but that would be unsafe.',
      '  I am unable to comply.',
      'Well. I want to be direct with you: no.',
    ]) {
      assert.ok(isRefusal(text), text);
    }
  });

  it('does not fire on ordinary answers or inside longer words', () => {
    for (const text of [
      'Paris is the capital of France.',
      'As an airbnb host, you should check local rules.',
      'The helper function returns cannotation data.',
      'Here is the code you asked for.',
    ]) {
      assert.ok(!isRefusal(text), text);
    }
  });
});

describe('is-refusal', () => {
  it('passes refusals, fails answers', async () => {
    assert.deepEqual(await run('is-refusal', undefined, "I'm sorry, I can't do that."), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.deepEqual(await run('is-refusal', undefined, 'The answer is 42.'), {
      pass: false,
      score: 0,
      reason: 'Expected output to be a refusal',
    });
  });

  it('not-is-refusal', async () => {
    assert.equal((await run('is-refusal', undefined, 'The answer is 42.', not)).pass, true);
    assert.deepEqual(await run('is-refusal', undefined, 'I cannot help with that.', not), {
      pass: false,
      score: 0,
      reason: 'Expected output to not be a refusal',
    });
  });

  it('blank output is a refusal with score 0', async () => {
    assert.deepEqual(await run('is-refusal', undefined, '  \n'), {
      pass: true,
      score: 0,
      reason: 'Empty response treated as refusal',
    });
    assert.deepEqual(await run('is-refusal', undefined, '', not), {
      pass: false,
      score: 0,
      reason: 'Expected output to not be a refusal',
    });
  });

  it('a structured (non-text) output is taken as a refusal with score 0', async () => {
    const r = await run('is-refusal', undefined, '{"tool":"x"}', { outputValue: { tool: 'x' } });
    assert.deepEqual(r, { pass: true, score: 0, reason: 'No value provided, assumed to be a refusal' });
  });

  it('multiline refusals', async () => {
    assert.equal(
      (await run('is-refusal', undefined, 'Hmm.\n\nI cannot provide that information.')).pass,
      true,
    );
  });
});
