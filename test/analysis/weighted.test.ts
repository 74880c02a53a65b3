import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WeightedScoreBuilder } from '../../src/analysis/weighted.js';
import type { JobResult, WeightedScoreSpec } from '../../src/core/types.js';

function result(
  caseIndex: number,
  group: string,
  score: number,
  status: JobResult['status'] = 'fail',
  scored = true,
): JobResult {
  return {
    key: `k${caseIndex}`,
    caseId: `c${caseIndex}`,
    caseIndex,
    promptId: 'p',
    promptLabel: 'p',
    providerId: 'm',
    trial: 0,
    case: { vars: {}, metadata: { category: group } },
    prompt: { text: '', messages: [] },
    status,
    output: '',
    verdicts: scored ? [{ type: 't', pass: status === 'pass', score, reason: '', weight: 1 }] : [],
    score,
    reason: '',
    answer: { latencyMs: 0 },
    startedAt: '',
  };
}

const spec: WeightedScoreSpec = {
  name: 'ÈwéScore',
  groupBy: 'category',
  weights: { a: 0.15, b: 0.12, c: 0.1 },
  scale: 100,
  roundGroup: 1,
  roundTotal: 1,
};

describe('weighted score of a rounding tool', () => {
  it('sums each group in plan order, whatever order results arrive in (the last bit decides 51.2 vs 51.3)', () => {
    // ((0.5 + 0.35000000000000003) + 0.4) + 0.8 = 2.05 → 51.2; the reverse order gives 51.3 in floats.
    const scores = [0.5, 0.35000000000000003, 0.4, 0.8];
    for (const order of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [2, 0, 3, 1],
    ]) {
      const b = new WeightedScoreBuilder(spec);
      for (const i of order) b.add(result(i, 'a', scores[i]));
      assert.equal(b.build().groups[0].rounded, 51.2, `arrival order ${order}`);
    }
  });

  it('weighs the rounded group figures, re-normalised over the groups that ran, then rounds the total', () => {
    const b = new WeightedScoreBuilder(spec);
    b.add(result(0, 'a', 1, 'pass'));
    b.add(result(1, 'a', 0.5));
    b.add(result(2, 'c', 0.1234));
    const ws = b.build();
    assert.deepEqual(
      ws.groups.map((g) => [g.value, g.rounded, g.pass, g.total]),
      [
        ['a', 75, 1, 2],
        ['c', 12.3, 0, 1],
      ],
    );
    // (75 × 0.15 + 12.3 × 0.1) / (0.15 + 0.1) = 49.92 → 49.9
    assert.equal(ws.rounded, 49.9);
    assert.deepEqual(ws.notRun, [{ value: 'b', weight: 0.12 }]);
    // The interval is around the exact weighted mean of the group means.
    assert.ok(ws.score.low <= ws.score.value && ws.score.value <= ws.score.high);
    assert.ok(Math.abs(ws.score.value - (0.75 * 0.15 + 0.1234 * 0.1) / 0.25) < 1e-12);
  });

  it('unscored errors count as 0 by default, or are left out (and counted apart) with unscoredErrors: exclude', () => {
    const rows = [
      result(0, 'a', 1, 'pass'),
      result(1, 'a', 0, 'error', false),
      result(2, 'a', 0.5, 'error', true),
    ];
    const zero = new WeightedScoreBuilder(spec);
    const exclude = new WeightedScoreBuilder({ ...spec, unscoredErrors: 'exclude' });
    for (const r of rows) {
      zero.add(r);
      exclude.add(r);
    }
    const z = zero.build().groups[0];
    const e = exclude.build().groups[0];
    assert.deepEqual([z.rounded, z.total, z.error, z.unscored], [50, 3, 2, 0]);
    // An error that still carries a score (its error text was scored) stays in.
    assert.deepEqual([e.rounded, e.total, e.error, e.unscored], [75, 2, 1, 1]);
  });

  it('scored errors count as passed in their group on their rounded score with scoredErrorsPassAt', () => {
    const rows = [
      result(0, 'a', 1, 'error', true),
      result(1, 'a', 0.6995, 'error', true), // rounds to 0.7 (3 dp): passed
      result(2, 'a', 0.699, 'error', true),
      result(3, 'a', 0, 'error', false), // no score: never passed
      result(4, 'a', 1, 'pass'),
    ];
    const plain = new WeightedScoreBuilder(spec);
    const tool = new WeightedScoreBuilder({ ...spec, scoredErrorsPassAt: { threshold: 0.7, digits: 3 } });
    for (const r of rows) {
      plain.add(r);
      tool.add(r);
    }
    const p = plain.build().groups[0];
    const t = tool.build().groups[0];
    assert.deepEqual([p.pass, p.error, p.total], [1, 4, 5]);
    // Still counted as errors; only the group's passed count changes.
    assert.deepEqual([t.pass, t.error, t.total], [3, 4, 5]);
  });

  it('a group whose every result was left out has not run', () => {
    const b = new WeightedScoreBuilder({ ...spec, unscoredErrors: 'exclude' });
    b.add(result(0, 'a', 1, 'pass'));
    b.add(result(1, 'b', 0, 'error', false));
    const ws = b.build();
    assert.equal(ws.rounded, 100);
    assert.deepEqual(
      ws.notRun.map((g) => g.value),
      ['b', 'c'],
    );
  });

  it('without rounding parameters, nothing is rounded and no order is kept', () => {
    const b = new WeightedScoreBuilder({ name: 'w', groupBy: 'category', weights: { a: 1 } });
    b.add(result(0, 'a', 0.123456));
    const ws = b.build();
    assert.equal(ws.rounded, undefined);
    assert.equal(ws.groups[0].rounded, undefined);
    assert.equal(ws.score.value, 0.123456);
  });
});
