// Issue 30, "A printed interval agrees with the test beside it": the change in pass rate with one
// trial a case gets Tango's score interval, made to agree with exact McNemar about 0 (before, a
// bootstrap of the differences printed [+0.0018, +1.0000] beside p = 0.25 for 3 of 200 cases that
// improved, and covered a true zero 88–92% of the time at 12–30 cases). Checked against values
// scipy computed once (test/fixtures/analysis/paired-interval-reference.py), against the test
// itself for every outcome of up to 60 cases, and for coverage by a seeded simulation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { CaseRecord } from '../../src/analysis/cases.js';
import { compareRuns } from '../../src/analysis/compare.js';
import { mcnemarExact, pairedProportionInterval, tangoInterval } from '../../src/analysis/paired.js';
import { seededRandom } from '../../src/core/random.js';
import { fixture } from '../support/paths.js';

interface Reference {
  intervals: {
    regressed: number;
    improved: number;
    n: number;
    level: number;
    midP: boolean;
    p: number;
    tango: [number, number];
    low: number;
    high: number;
    how: string;
  }[];
  coverage: { n: number; regressed: number; improved: number; coverage: number }[];
}
const ref = JSON.parse(
  readFileSync(fixture('analysis', 'paired-interval-reference.json'), 'utf8'),
) as Reference;

function close(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);
}

/** A run of one-trial pass/fail cases, `pass(i)` saying which pass. */
function run(n: number, pass: (i: number) => boolean, cell = 'p'): Map<string, CaseRecord> {
  return new Map(
    Array.from({ length: n }, (_, i) => {
      const ok = pass(i);
      const key = `${cell}-c${i}`;
      return [
        key,
        {
          key,
          caseRef: `c${i}`,
          vars: {},
          promptLabel: cell,
          providerId: 'm',
          trials: 1,
          passed: ok ? 1 : 0,
          failed: ok ? 0 : 1,
          errors: 0,
          skipped: 0,
          meanScore: ok ? 1 : 0,
          output: null,
          reason: '',
        } satisfies CaseRecord,
      ];
    }),
  );
}

/** One draw of n paired cases, each regressing with chance qb and improving with chance qc. */
function draw(random: () => number, n: number, qb: number, qc: number): [number, number] {
  let b = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const u = random();
    if (u < qb) b++;
    else if (u < qb + qc) c++;
  }
  return [b, c];
}

describe('the interval of a change in pass rate (one trial a case)', () => {
  it('matches an independent scipy computation: Tango by numerical likelihood, the bounds by brentq', () => {
    const hows = new Set<string>();
    for (const r of ref.intervals) {
      const what = `b=${r.regressed} c=${r.improved} n=${r.n} level=${r.level}${r.midP ? ' mid-p' : ''}`;
      close(mcnemarExact(r.regressed, r.improved, { midP: r.midP }), r.p, 1e-12, `${what} p`);
      const t = tangoInterval(r.regressed, r.improved, r.n, r.level);
      close(t.low, r.tango[0], 1e-7, `${what} Tango low`);
      close(t.high, r.tango[1], 1e-7, `${what} Tango high`);
      const i = pairedProportionInterval(r.regressed, r.improved, r.n, { level: r.level, midP: r.midP });
      close(i.low, r.low, 1e-7, `${what} low`);
      close(i.high, r.high, 1e-7, `${what} high`);
      hows.add(r.how);
    }
    // Each of the three ways the interval is made is in the reference.
    assert.deepEqual([...hows].sort(), ['bound from the exact test', 'tango', 'tango, widened to 0']);
  });

  it('the issue’s cases: 3 and 4 of 200 improved, p = 0.25 and 0.125, now reach 0', () => {
    // Before: [+0.0018, +1.0000] beside p = 0.25, and [+0.0057, +0.0498] beside p = 0.125.
    for (const moved of [3, 4]) {
      const c = compareRuns(
        run(200, () => false),
        run(200, (i) => i < moved),
      );
      const m = c.metrics[0];
      close(m.p, moved === 3 ? 0.25 : 0.125, 1e-12, 'McNemar p');
      assert.ok(m.low <= 0 && m.high > 0, `${moved} of 200: [${m.low}, ${m.high}]`);
      assert.ok(m.high < 0.06, `the upper bound is about what 200 cases allow, not +1: ${m.high}`);
      assert.equal(m.verdict, 'inconclusive');
      assert.deepEqual(m.moved, { down: 0, up: moved });
    }
  });

  it('contains 0 exactly when the test does not reject, for every outcome of 1–60 cases, exact and mid-p', () => {
    let checked = 0;
    for (const level of [0.9, 0.95, 1 - 0.05 / 3, 0.99, 0.999, 0.9999, 0.99999]) {
      for (const midP of [false, true]) {
        for (let n = 1; n <= 60; n++) {
          for (let b = 0; b <= n; b++) {
            for (let c = 0; b + c <= n; c++) {
              const rejects = mcnemarExact(b, c, { midP }) < 1 - level;
              const i = pairedProportionInterval(b, c, n, { level, midP });
              const zero = i.low <= 0 && 0 <= i.high;
              assert.equal(
                zero,
                !rejects,
                `b=${b} c=${c} n=${n} level=${level} midP=${midP}: [${i.low}, ${i.high}]`,
              );
              assert.ok(i.low <= (c - b) / n && (c - b) / n <= i.high, 'the estimate is inside');
              assert.ok(i.low >= -1 && i.high <= 1);
              checked++;
            }
          }
        }
      }
    }
    assert.ok(checked > 500_000, `${checked}`);
  });

  it('covers the true change about 95% of the time at 12–200 cases, zero or not (seeded simulation)', () => {
    const random = seededRandom(30);
    const draws = 2000;
    const rows: string[] = [];
    let lowest = 1;
    // The true changes: zero with few or many cases moving, and changes of 5 to 25 points.
    const truths = [
      [0.02, 0.02],
      [0.1, 0.1],
      [0.25, 0.25],
      [0, 0.05],
      [0, 0.2],
      [0.05, 0.1],
      [0.05, 0.15],
      [0.02, 0.12],
      [0.1, 0.35],
    ];
    for (const n of [12, 20, 30, 50, 100, 200]) {
      for (const [qb, qc] of truths) {
        let covered = 0;
        for (let s = 0; s < draws; s++) {
          const [b, c] = draw(random, n, qb, qc);
          const i = pairedProportionInterval(b, c, n);
          if (i.low <= qc - qb + 1e-12 && qc - qb - 1e-12 <= i.high) covered++;
        }
        const coverage = covered / draws;
        lowest = Math.min(lowest, coverage);
        rows.push(
          `n=${n} ${((qc - qb) * 100).toFixed(0)} pts (${qb}/${qc}): ${(coverage * 100).toFixed(1)}%`,
        );
        // Near nominal: never far below 95% (2,000 draws: a standard error of about 0.5 points).
        assert.ok(coverage >= 0.925, `n=${n} qb=${qb} qc=${qc}: coverage ${coverage}`);
        // A true zero is covered whenever exact McNemar does not reject: at least 95%, less the noise.
        if (qb === qc) assert.ok(coverage >= 0.94, `true zero, n=${n} q=${qb}: ${coverage}`);
      }
    }
    process.stdout.write(
      `# coverage of the pass-rate interval (2,000 draws each; lowest ${(lowest * 100).toFixed(1)}%):\n#   ${rows.join('\n#   ')}\n`,
    );
  });

  it('the simulation agrees with the exact coverage scipy enumerated', () => {
    const random = seededRandom(31);
    const draws = 4000;
    for (const r of ref.coverage) {
      let covered = 0;
      for (let s = 0; s < draws; s++) {
        const [b, c] = draw(random, r.n, r.regressed, r.improved);
        const i = pairedProportionInterval(b, c, r.n);
        const d = r.improved - r.regressed;
        if (i.low <= d + 1e-12 && d - 1e-12 <= i.high) covered++;
      }
      // Four standard errors of a share of 4,000 draws.
      const se = Math.sqrt((r.coverage * (1 - r.coverage)) / draws);
      close(covered / draws, r.coverage, Math.max(4 * se, 0.004), `n=${r.n} ${r.regressed}/${r.improved}`);
      assert.ok(r.coverage >= 0.94, `exact coverage n=${r.n}: ${r.coverage}`);
    }
  });

  it('after a correction, the interval at the corrected level contains 0 exactly when the corrected p is at least α', () => {
    // Four prompt × provider columns of 40 cases, one of them with 7 cases improving: p < 0.05, but
    // Holm's corrected p is not; the 95% interval excludes 0 and the corrected one does not.
    const cells = ['a', 'b', 'c', 'd'];
    const before = new Map<string, CaseRecord>();
    const after = new Map<string, CaseRecord>();
    for (const cell of cells) {
      for (const [k, v] of run(40, () => false, cell)) before.set(k, v);
      for (const [k, v] of run(40, (i) => (cell === 'a' ? i < 7 : i === 0), cell)) after.set(k, v);
    }
    const c = compareRuns(before, after);
    assert.equal(c.metrics.length, 4);
    const a = c.metrics.find((m) => m.cell.promptLabel === 'a')!;
    assert.ok(a.p < 0.05 && a.pAdjusted >= 0.05, `${a.p} ${a.pAdjusted}`);
    assert.ok(a.low > 0, 'the 95% interval agrees with p');
    assert.ok(a.corrected.low <= 0 && a.corrected.high > 0, JSON.stringify(a.corrected));
    assert.ok(a.corrected.level > 0.95, `${a.corrected.level}`);
    close(a.corrected.level, 1 - (0.05 * a.p) / a.pAdjusted, 1e-15, 'level');
    assert.equal(a.verdict, 'inconclusive');
    for (const m of c.metrics) {
      assert.equal(m.low <= 0 && 0 <= m.high, m.p >= 0.05, `${m.cell.promptLabel}: 95% interval and p`);
      assert.equal(
        m.corrected.low <= 0 && 0 <= m.corrected.high,
        m.pAdjusted >= 0.05,
        `${m.cell.promptLabel}: corrected interval and corrected p`,
      );
    }
    // With 14 improving, the corrected p is below α too: improved, and the corrected interval says so.
    for (const [k, v] of run(40, (i) => i < 14, 'a')) after.set(k, v);
    const d = compareRuns(before, after).metrics.find((m) => m.cell.promptLabel === 'a')!;
    assert.ok(d.pAdjusted < 0.05 && d.corrected.low > 0, JSON.stringify(d));
    assert.equal(d.verdict, 'improved');
  });

  it('--min-effect reads the interval: a significant change whose interval reaches inside ±D is inconclusive', () => {
    // 30 of 200 cases improve, none regress: p is tiny, the interval about +10 to +21 points.
    const c = compareRuns(
      run(200, () => false),
      run(200, (i) => i < 30),
    );
    const m = c.metrics[0];
    assert.equal(m.verdict, 'improved');
    const atLow = compareRuns(
      run(200, () => false),
      run(200, (i) => i < 30),
      { minEffect: m.corrected.low - 0.001 },
    );
    assert.equal(atLow.metrics[0].verdict, 'improved', 'D just inside the interval');
    const beyond = compareRuns(
      run(200, () => false),
      run(200, (i) => i < 30),
      { minEffect: m.corrected.low + 0.001 },
    );
    assert.equal(beyond.metrics[0].verdict, 'inconclusive', 'D reaches into the interval');
  });

  it('no case moved: unchanged, with an interval of what the suite could have missed (not the point 0)', () => {
    const c = compareRuns(
      run(30, (i) => i % 2 === 0),
      run(30, (i) => i % 2 === 0),
    );
    const m = c.metrics[0];
    assert.equal(m.verdict, 'unchanged');
    assert.deepEqual(m.moved, { down: 0, up: 0 });
    assert.ok(m.low < 0 && m.high > 0 && Math.abs(m.low + m.high) < 1e-12, `[${m.low}, ${m.high}]`);
  });
});
