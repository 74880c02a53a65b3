import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeScorecard } from '../../src/analysis/scorecard.js';
import { wilson } from '../../src/analysis/stats.js';
import type { JobResult, JobStatus } from '../../src/core/types.js';

function r(status: JobStatus, providerId: string, extra: Partial<JobResult> = {}): JobResult {
  return {
    key: Math.random().toString(36),
    caseId: 'c',
    caseIndex: 0,
    promptId: 'p',
    promptLabel: 'Prompt',
    providerId,
    trial: 0,
    case: { vars: {} },
    prompt: { text: '', messages: [] },
    status,
    output: '',
    verdicts:
      status === 'fail' ? [{ type: 'contains', pass: false, score: 0, reason: 'missing x', weight: 1 }] : [],
    score: status === 'pass' ? 1 : 0,
    reason: status,
    answer: { latencyMs: 10 },
    startedAt: '',
    ...extra,
  };
}

describe('wilson', () => {
  it('matches known values', () => {
    const w = wilson(8, 10);
    assert.equal(w.value, 0.8);
    assert.ok(Math.abs(w.low - 0.4902) < 1e-3, String(w.low));
    assert.ok(Math.abs(w.high - 0.9433) < 1e-3, String(w.high));
  });
  it('stays inside [0, 1] at the extremes and is empty for n = 0', () => {
    assert.equal(wilson(0, 5).low, 0);
    assert.ok(wilson(0, 5).high > 0);
    assert.equal(wilson(5, 5).high, 1);
    assert.ok(wilson(5, 5).low < 1);
    assert.deepEqual(wilson(0, 0), { value: 0, low: 0, high: 0, n: 0 });
  });
});

describe('computeScorecard', () => {
  it('counts by status and by prompt × provider; errors count against the pass rate', async () => {
    const card = await computeScorecard([
      r('pass', 'a', { answer: { latencyMs: 10, usage: { total: 5 }, cost: 0.01 }, namedScores: { acc: 1 } }),
      r('pass', 'a', { namedScores: { acc: 0 } }),
      r('fail', 'a', { case: { vars: {}, description: 'needs x' } }),
      r('error', 'b', { error: 'HTTP 500' }),
    ]);
    assert.deepEqual(card.counts, { total: 4, pass: 2, fail: 1, error: 1, skip: 0 });
    assert.equal(card.passRate.value, 0.5);
    assert.equal(card.cells.length, 2);
    const a = card.cells.find((c) => c.providerId === 'a')!;
    assert.equal(a.passRate.value, 2 / 3);
    assert.equal(card.tokens, 5);
    assert.equal(card.cost, 0.01);
    assert.deepEqual(card.metrics, [{ name: 'acc', mean: 0.5, count: 2 }]);
    assert.equal(card.failures.length, 2);
    assert.deepEqual(
      card.failures.map((f) => [f.status, f.assertion, f.reason]),
      [
        ['fail', 'contains', 'missing x'],
        ['error', 'error', 'HTTP 500'],
      ],
    );
  });

  it('lists at most 50 failures and counts the rest', async () => {
    const card = await computeScorecard(Array.from({ length: 70 }, () => r('fail', 'a')));
    assert.equal(card.failures.length, 50);
    assert.equal(card.failuresOmitted, 20);
  });
});
