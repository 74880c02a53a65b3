import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { computeScorecard } from '../../src/analysis/scorecard.js';
import { meanInterval, t975, tQuantile, weightedMeanInterval } from '../../src/analysis/stats.js';
import type { JobResult, JobStatus } from '../../src/core/types.js';
import { renderSummary } from '../../src/report/console.js';
import type { RunManifest } from '../../src/runlog/types.js';
import { fixture } from '../support/paths.js';

function r(status: JobStatus, score: number, metadata: Record<string, unknown>): JobResult {
  return {
    key: `${Math.random()}`,
    caseId: 'c',
    caseIndex: 0,
    promptId: 'p',
    promptLabel: 'Prompt',
    providerId: 'echo',
    trial: 0,
    case: { vars: {}, metadata },
    prompt: { text: '', messages: [] },
    status,
    output: '',
    verdicts: [],
    score,
    reason: status,
    answer: { latencyMs: 1 },
    startedAt: '',
  };
}

const close = (a: number, b: number, eps = 1e-3): void => assert.ok(Math.abs(a - b) < eps, `${a} ≠ ${b}`);

describe('t975', () => {
  it('gives the Student t table values and tends to z', () => {
    close(t975(1), 12.706);
    // One observation (df = n − 1 = 0) uses df = 1, not the normal z.
    close(t975(0), 12.706);
    close(t975(Number.POSITIVE_INFINITY), 1.96);
    close(t975(10), 2.228);
    close(t975(30), 2.042);
    close(t975(60), 2.0003, 2e-3);
    close(t975(1e9), 1.96);
  });

  it('is exact for fractional degrees of freedom: scipy.stats.t.ppf to 1e-9 over a grid of levels and df', () => {
    // Interpolating the table linearly made t at df 1.5 41% too wide (8.99 against 6.02).
    close(t975(1.5), 6.016663104427929, 1e-9);
    close(t975(2.5), 3.5746548420036817, 1e-9);
    const ref = JSON.parse(readFileSync(fixture('analysis', 't-quantile-reference.json'), 'utf8')) as {
      quantiles: { p: number; df: number; t: number }[];
    };
    assert.ok(ref.quantiles.length > 100);
    for (const { p, df, t } of ref.quantiles) {
      const got = tQuantile(p, df);
      assert.ok(Math.abs(got - t) <= 1e-9 * Math.max(1, Math.abs(t)), `t.ppf(${p}, ${df}): ${got} vs ${t}`);
    }
  });

  it('keeps a tiny lower-tail p as given (review): scipy.stats.t.ppf(1e-12, 3) and a finite t at 1e-300', () => {
    // Before: −t(1 − p) lost p to rounding: −10331.184 (its CDF 9.99978e-13), and −∞ at 1e-300.
    const t = tQuantile(1e-12, 3);
    assert.ok(Math.abs(t + 10331.108244292487) <= 1e-9 * 10331, String(t));
    assert.ok(Number.isFinite(tQuantile(1e-300, 3)) && tQuantile(1e-300, 3) < -1e99);
    assert.equal(tQuantile(0.025, 7), -tQuantile(0.975, 7));
  });
});

describe('meanInterval', () => {
  it('says nothing precise about one score: t with df 1 on the [0, 1] variance bound spans [0, 1]', () => {
    const one = meanInterval({ n: 1, sum: 1, sumSq: 1 });
    assert.deepEqual([one.value, one.low, one.high], [1, 0, 1]);
  });

  it('is mean ± t·s/√n, clamped to [0, 1]', () => {
    // scores 0.2, 0.4, 0.6: mean 0.4, s = 0.2, n = 3 → half = 4.303 × 0.2 / √3
    const m = meanInterval({ n: 3, sum: 1.2, sumSq: 0.04 + 0.16 + 0.36 });
    close(m.value, 0.4);
    close(m.high - m.value, (4.303 * 0.2) / Math.sqrt(3));
    close(m.low, 0);
    assert.equal(meanInterval({ n: 0, sum: 0, sumSq: 0 }).n, 0);
  });
  it('uses the [0, 1] variance bound for a single score instead of a zero-width interval', () => {
    const m = meanInterval({ n: 1, sum: 1, sumSq: 1 });
    assert.equal(m.value, 1);
    assert.ok(m.low < 1);
  });
});

describe('weightedMeanInterval', () => {
  it('re-normalises weights over groups with results and widens with fewer observations', () => {
    const a = { n: 4, sum: 2, sumSq: 1.5 };
    const b = { n: 4, sum: 4, sumSq: 4 };
    const w = weightedMeanInterval([
      { weight: 0.3, acc: a },
      { weight: 0.1, acc: b },
      { weight: 0.6, acc: { n: 0, sum: 0, sumSq: 0 } },
    ]);
    close(w.value, 0.75 * 0.5 + 0.25 * 1);
    assert.equal(w.n, 8);
    assert.ok(w.low < w.value && w.high > w.value);
    const wide = weightedMeanInterval([{ weight: 1, acc: { n: 2, sum: 1, sumSq: 1 } }]);
    const narrow = weightedMeanInterval([{ weight: 1, acc: { n: 200, sum: 100, sumSq: 100 } }]);
    assert.ok(wide.high - wide.low > narrow.high - narrow.low);
  });
});

describe('named scores summed per breakdown group', () => {
  it('adds each named score over the group, absent where no result has one, and shows it as a column', async () => {
    const named = (status: JobStatus, group: string, disagree?: number): JobResult => ({
      ...r(status, status === 'pass' ? 1 : 0, { lve: group }),
      ...(disagree !== undefined ? { namedScores: { disagree } } : {}),
    });
    const card = await computeScorecard(
      [
        named('pass', 'a', 1),
        named('fail', 'a', 1),
        named('pass', 'a', 0),
        named('pass', 'b'),
        named('error', 'c', 0),
      ],
      { breakdowns: ['lve'] },
    );
    assert.deepEqual(
      card.breakdowns?.[0].groups.map((g) => [g.value, g.namedTotals]),
      [
        ['a', { disagree: 2 }],
        ['b', undefined],
        ['c', { disagree: 0 }],
      ],
    );
  });
});

describe('scorecard breakdowns and weighted score', () => {
  const results = [
    r('pass', 1, { category: 'math', difficulty: 'easy' }),
    r('fail', 0, { category: 'math', difficulty: 'hard' }),
    r('pass', 0.8, { category: 'poetry', difficulty: 'easy' }),
    r('skip', 0, { category: 'poetry', difficulty: 'easy' }),
    r('error', 0, { category: 'poetry' }),
  ];

  it('counts each group, leaves skips out of rates and means, and lists missing keys as (none)', async () => {
    const card = await computeScorecard(results, { breakdowns: ['category', 'difficulty'] });
    const [byCategory, byDifficulty] = card.breakdowns ?? [];
    assert.equal(byCategory.by, 'category');
    assert.deepEqual(
      byCategory.groups.map((g) => [g.value, g.total, g.pass, g.fail, g.error, g.skip]),
      [
        ['math', 2, 1, 1, 0, 0],
        ['poetry', 3, 1, 0, 1, 1],
      ],
    );
    const poetry = byCategory.groups[1];
    close(poetry.passRate.value, 0.5);
    close(poetry.meanScore.value, 0.4);
    assert.deepEqual(
      byDifficulty.groups.map((g) => g.value),
      ['(none)', 'easy', 'hard'],
    );
    assert.equal(card.weightedScore, undefined);
  });

  it('computes the weighted score over groups in the suite order, ignoring unweighted groups', async () => {
    const card = await computeScorecard(results, {
      weightedScore: {
        name: 'Index',
        groupBy: 'category',
        weights: { poetry: 3, math: 1, absent: 5 },
        scale: 100,
      },
    });
    const ws = card.weightedScore;
    assert.ok(ws);
    assert.deepEqual(
      ws.groups.map((g) => [g.value, g.weight, g.pass, g.total]),
      [
        ['poetry', 3, 1, 2],
        ['math', 1, 1, 2],
      ],
    );
    close(ws.score.value, (3 * 0.4 + 1 * 0.5) / 4);
    assert.equal(ws.scale, 100);
  });

  it('appears in the console summary', async () => {
    const card = await computeScorecard(results, {
      breakdowns: ['category'],
      weightedScore: { name: 'Index', groupBy: 'category', weights: { math: 1, poetry: 1 }, scale: 100 },
    });
    const manifest = {
      runId: 'r',
      suite: { name: 's', format: 'x' },
      options: { repeat: 1 },
      status: 'complete',
      plannedJobs: 5,
    } as unknown as RunManifest;
    const text = renderSummary(manifest, card, '/tmp/run', { color: false });
    assert.match(text, /By category/);
    assert.match(text, /poetry\s+1\s+0\s+1\s+1\s+50\.0% \(/);
    assert.match(text, /Index by category/);
    assert.match(text, /Index: 45\.0 \(/);
  });
});
