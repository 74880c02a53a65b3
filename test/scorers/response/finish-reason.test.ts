import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { normalizeFinishReason } from '../../../src/scorers/response/finish-reason.js';
import { problem, type RunOptions, run } from '../text/helpers.js';

function reason(finishReason: string | undefined, negate = false): RunOptions {
  return { response: { finishReason }, spec: { negate } };
}

describe('finish-reason', () => {
  it('matches case-insensitively', async () => {
    assert.deepEqual(await run('finish-reason', 'stop', 'x', reason('stop')), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.equal((await run('finish-reason', 'STOP', 'x', reason('Stop'))).pass, true);
    assert.deepEqual(await run('finish-reason', 'stop', 'x', reason('length')), {
      pass: false,
      score: 0,
      reason: 'Expected finish reason "stop" but got "length"',
    });
  });

  it('folds provider synonyms (Anthropic end_turn is stop, max_tokens is length)', async () => {
    assert.equal(normalizeFinishReason('End_Turn'), 'stop');
    assert.equal((await run('finish-reason', 'stop', 'x', reason('end_turn'))).pass, true);
    assert.equal((await run('finish-reason', 'length', 'x', reason('max_tokens'))).pass, true);
    assert.equal((await run('finish-reason', 'tool_calls', 'x', reason('tool_use'))).pass, true);
    assert.equal((await run('finish-reason', 'content_filter', 'x', reason('content_filter'))).pass, true);
  });

  it('a list matches any of its reasons', async () => {
    assert.equal((await run('finish-reason', ['length', 'stop'], 'x', reason('stop'))).pass, true);
    const r = await run('finish-reason', ['length', 'content_filter'], 'x', reason('stop'));
    assert.equal(r.reason, 'Expected finish reason "length", "content_filter" but got "stop"');
  });

  it('not-finish-reason (newer promptfoo)', async () => {
    assert.equal((await run('finish-reason', 'stop', 'x', reason('length', true))).pass, true);
    assert.deepEqual(await run('finish-reason', 'stop', 'x', reason('STOP', true)), {
      pass: false,
      score: 0,
      reason: 'Expected finish reason not "stop" but got "STOP"',
    });
  });

  it('a missing finish reason fails, and passes not-finish-reason', async () => {
    assert.deepEqual(await run('finish-reason', 'stop', 'x', reason(undefined)), {
      pass: false,
      score: 0,
      reason: 'Provider did not supply stop/finish reason',
    });
    assert.equal((await run('finish-reason', 'stop', 'x', reason(undefined, true))).pass, true);
    assert.equal((await run('finish-reason', 'stop', 'x', reason(''))).pass, false);
  });

  it('bad values: unusable at score time, reported at load', async () => {
    await assert.rejects(run('finish-reason', 3, 'x', reason('stop')), ScorerInputError);
    await assert.rejects(run('finish-reason', [], 'x', reason('stop')), /empty list/);
    assert.equal(problem('finish-reason', { value: 'stop' }), undefined);
    assert.equal(problem('finish-reason', { value: ['stop', 'length'] }), undefined);
    assert.equal(problem('finish-reason', {}), 'finish-reason needs a value, got no value');
    assert.match(problem('finish-reason', { value: '' }) ?? '', /got an empty string/);
    assert.match(problem('finish-reason', { value: [1] }) ?? '', /got a number/);
  });
});
