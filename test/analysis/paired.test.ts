// The paired statistics of the regression gate, against values scipy computed once
// (test/fixtures/analysis/README.md) and closed forms worked by hand.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { CaseRecord } from '../../src/analysis/cases.js';
import { compareRuns } from '../../src/analysis/compare.js';
import {
  benjaminiHochberg,
  holm,
  mcnemarExact,
  mcnemarMinimumDetectable,
  mcnemarPower,
  minimumDetectableEffect,
  normalQuantile,
  pairedBootstrap,
  passAtK,
  passHatK,
  sampleSd,
  signFlipTest,
  withinCasePermutationTest,
} from '../../src/analysis/paired.js';
import { seededRandom } from '../../src/core/random.js';
import { fixture } from '../support/paths.js';

interface Reference {
  passAtK: { n: number; c: number; k: number; passAtK: number; passHatK: number }[];
  mcnemar: { b: number; c: number; p: number; midP: number }[];
  normalQuantile: { p: number; z: number }[];
  bh: { p: number[]; adjusted: number[] };
  holm: { p: number[]; adjusted: number[] };
  signFlip: { deltas: number[]; p: number };
}
const ref = JSON.parse(readFileSync(fixture('analysis', 'paired-reference.json'), 'utf8')) as Reference;

function close(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);
}

describe('paired statistics', () => {
  it('pass@k and pass^k are the unbiased estimators, stable at large n', () => {
    for (const r of ref.passAtK) {
      close(passAtK(r.n, r.c, r.k), r.passAtK, 1e-12, `pass@${r.k} n=${r.n} c=${r.c}`);
      close(passHatK(r.n, r.c, r.k), r.passHatK, 1e-12, `pass^${r.k} n=${r.n} c=${r.c}`);
    }
    // By hand: n = 5, c = 2, k = 1 is c/n for both.
    close(passAtK(5, 2, 1), 0.4, 1e-15, 'pass@1');
    close(passHatK(5, 2, 1), 0.4, 1e-15, 'pass^1');
    // k = n: pass@n is "any passed", pass^n is "all passed".
    assert.equal(passAtK(5, 1, 5), 1);
    assert.equal(passHatK(5, 4, 5), 0);
    assert.equal(passHatK(5, 5, 5), 1);
    assert.throws(() => passAtK(5, 6, 1), RangeError);
    assert.throws(() => passAtK(5, 2, 6), RangeError);
  });

  it('exact McNemar matches scipy.stats.binomtest on the discordant pairs, and its mid-p', () => {
    for (const r of ref.mcnemar) {
      close(mcnemarExact(r.b, r.c), r.p, 1e-12, `McNemar b=${r.b} c=${r.c}`);
      close(mcnemarExact(r.b, r.c, { midP: true }), r.midP, 1e-12, `mid-p b=${r.b} c=${r.c}`);
    }
    // By hand: 12 vs 3 discordant: 2·P(X ≤ 3), X ~ Bin(15, ½) = 2·(1+15+105+455)/32768 = 0.03515625.
    close(mcnemarExact(12, 3), 0.03515625, 1e-14, 'McNemar by hand');
  });

  it('normal quantiles, Holm and Benjamini–Hochberg match scipy', () => {
    for (const r of ref.normalQuantile) close(normalQuantile(r.p), r.z, 1e-8, `z(${r.p})`);
    for (const [i, p] of holm(ref.holm.p).entries()) close(p, ref.holm.adjusted[i], 1e-15, `holm[${i}]`);
    for (const [i, p] of benjaminiHochberg(ref.bh.p).entries())
      close(p, ref.bh.adjusted[i], 1e-15, `bh[${i}]`);
  });

  it('the exact sign-flip test matches scipy.stats.permutation_test; a seeded one is repeatable', () => {
    close(signFlipTest(ref.signFlip.deltas, { seed: 1 }), ref.signFlip.p, 1e-15, 'sign flip');
    assert.equal(signFlipTest([0, 0, 0], { seed: 1 }), 1);
    const many = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? -0.5 : 0.25));
    const a = signFlipTest(many, { seed: 7 });
    assert.equal(signFlipTest(many, { seed: 7 }), a, 'same seed, same p');
    assert.ok(a > 0 && a <= 1);
  });

  it('the paired bootstrap is seed-stable, brackets the mean, and has about its nominal coverage', () => {
    const deltas = [0.5, -0.25, 1, 0.75, 0, 0.25, -0.5, 1, 0.5, 0.25];
    const one = pairedBootstrap(deltas, { seed: 42, resamples: 2000 });
    assert.deepEqual(pairedBootstrap(deltas, { seed: 42, resamples: 2000 }), one);
    assert.ok(one.low < one.delta && one.delta < one.high);
    close(one.delta, 0.35, 1e-15, 'mean delta');
    // 1,000 simulated suites of 30 cases whose true mean difference is 0: "regressed" (the whole
    // interval below 0) should come out about 2.5% of the time, one-sided at α = 0.05.
    const random = seededRandom(2024);
    let regressed = 0;
    const runs = 1000;
    for (let s = 0; s < runs; s++) {
      const sample = Array.from({ length: 30 }, () => Math.round((random() - 0.5) * 4) / 2);
      if (pairedBootstrap(sample, { seed: s, resamples: 1000 }).high < 0) regressed++;
    }
    const rate = regressed / runs;
    process.stdout.write(
      `# bootstrap false "regressed" rate under no change: ${(rate * 100).toFixed(1)}% (nominal 2.5%)\n`,
    );
    assert.ok(rate > 0.01 && rate < 0.05, `false regression rate ${rate}`);
  });

  it('the studentized bootstrap interval covers about 95% at 12 skewed scores (the percentile one covered 84%)', () => {
    // 1,000 seeded samples of 12 scores U⁶ (mean 1/7, most near 0, a few high: a skewed score).
    const random = seededRandom(12);
    let covered = 0;
    const runs = 1000;
    for (let s = 0; s < runs; s++) {
      const x = Array.from({ length: 12 }, () => random() ** 6);
      const i = pairedBootstrap(x, { seed: s, resamples: 1000 });
      if (i.low <= 1 / 7 && 1 / 7 <= i.high) covered++;
    }
    process.stdout.write(
      `# bootstrap coverage at n = 12, skewed scores: ${((covered / runs) * 100).toFixed(1)}% (nominal 95%)\n`,
    );
    assert.ok(covered / runs >= 0.93 && covered / runs <= 0.98, `coverage ${covered / runs}`);
    // No spread: the interval is the point; a bound clamps a side a resample cannot reach.
    assert.deepEqual(pairedBootstrap([0.5, 0.5], { seed: 1 }), { delta: 0.5, low: 0.5, high: 0.5 });
    const sparse = pairedBootstrap([-1, 0, 0, 0, 0, 0], { seed: 1, bounds: [-1, 1] });
    assert.ok(sparse.low >= -1 && sparse.high <= 1 && sparse.low < sparse.delta, JSON.stringify(sparse));
  });

  it('the within-case permutation p matches full enumeration, whichever side ran more trials (review)', () => {
    const cases = [
      { baseline: [1, 0.2, 0.9], candidate: [0] },
      { baseline: [0.4], candidate: [0.1, 0.7] },
      { baseline: [1, 1], candidate: [0, 0.3, 0.5] },
    ];
    // Every way to deal each case's pooled trials back in the same numbers, equally likely.
    const subsets = (n: number, k: number): number[][] =>
      k === 0
        ? [[]]
        : n < k
          ? []
          : [...subsets(n - 1, k - 1).map((s) => [...s, n - 1]), ...subsets(n - 1, k)];
    const deals = cases.map((c) => {
      const pooled = [...c.baseline, ...c.candidate];
      return subsets(pooled.length, c.baseline.length).map((chosen) => {
        const b = chosen.map((i) => pooled[i]);
        const rest = pooled.filter((_, i) => !chosen.includes(i));
        return rest.reduce((x, y) => x + y, 0) / rest.length - b.reduce((x, y) => x + y, 0) / b.length;
      });
    });
    const observed = Math.abs(
      cases.reduce(
        (s, c) =>
          s +
          c.candidate.reduce((x, y) => x + y, 0) / c.candidate.length -
          c.baseline.reduce((x, y) => x + y, 0) / c.baseline.length,
        0,
      ) / cases.length,
    );
    let extreme = 0;
    let total = 0;
    for (const a of deals[0])
      for (const b of deals[1])
        for (const c of deals[2]) {
          total++;
          if (Math.abs((a + b + c) / 3) >= observed - 1e-12) extreme++;
        }
    const p = withinCasePermutationTest(cases, { seed: 3, resamples: 40_000 });
    close(p, extreme / total, 0.01, 'within-case permutation p');
  });

  it('errors are matched by whole trials at one share on both sides, never more (review)', () => {
    const record = (key: string, trials: number, errors: number): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials,
      passed: trials - errors,
      failed: 0,
      errors,
      skipped: 0,
      meanScore: (trials - errors) / trials,
      output: null,
      reason: '',
      outcomes: Array.from({ length: trials }, (_, i) => ({
        pass: i >= errors,
        score: i >= errors ? 1 : 0,
        error: i < errors,
      })),
    });
    const run = (trials: number, errors: number) =>
      new Map(Array.from({ length: 20 }, (_, i) => [`c${i}`, record(`c${i}`, trials, errors)]));
    // 1 of 1 trial errored against 3 of 10: no whole share of the one trial matches 3 of 10, so every
    // error varies (had they passed: 0 → 10 of 10, +1; a match by rounding left the 3 fixed: +0.7).
    const c = compareRuns(run(1, 1), run(10, 3));
    assert.equal(c.metrics[0].errorBounds?.best.delta, 1);
    // Half of 2 against half of 10: all matched, nothing varies.
    const half = compareRuns(run(2, 1), run(10, 5));
    assert.equal(half.metrics[0].errorBounds?.best.delta, 0);
    assert.equal(half.metrics[0].errorBounds?.worst.delta, 0);
  });

  it('cases skipped on both sides are said to be judged on neither side (review)', () => {
    const skipped = (key: string): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials: 1,
      passed: 0,
      failed: 0,
      errors: 0,
      skipped: 1,
      meanScore: 0,
      output: null,
      reason: '',
      outcomes: [],
    });
    const run = new Map(['a', 'b', 'c'].map((k) => [k, skipped(k)]));
    const c = compareRuns(run, run);
    assert.equal(c.verdict, 'inconclusive');
    // Before: "(0 judged on one side only, every trial skipped on the other)".
    assert.equal(
      c.why,
      'no case was judged on both sides (3 judged on neither side, every trial skipped on both)',
    );
  });

  it('one moved case says nothing of spread: its interval is the whole range, never the point (review)', () => {
    // Before: a single case from pass to fail printed "95% CI -100.0 pts to -100.0 pts".
    assert.deepEqual(pairedBootstrap([-1], { seed: 1, bounds: [-1, 1] }), { delta: -1, low: -1, high: 1 });
    assert.deepEqual(pairedBootstrap([0.3], { seed: 1 }), {
      delta: 0.3,
      low: Number.NEGATIVE_INFINITY,
      high: Number.POSITIVE_INFINITY,
    });
    // One case that did not move is still "no case moved".
    assert.deepEqual(pairedBootstrap([0], { seed: 1, bounds: [-1, 1] }), { delta: 0, low: 0, high: 0 });
  });

  it('exact McNemar power and the smallest detectable change match a scipy summation', () => {
    const power = JSON.parse(readFileSync(fixture('analysis', 'mcnemar-power-reference.json'), 'utf8')) as {
      power: { n: number; d: number; psi: number; alpha: number; power: number }[];
      mde: { n: number; psi: number; alpha: number; mde: number }[];
    };
    for (const r of power.power)
      close(
        mcnemarPower(r.n, r.d, r.psi, { alpha: r.alpha }),
        r.power,
        1e-9,
        `power n=${r.n} d=${r.d} ψ=${r.psi}`,
      );
    for (const r of power.mde)
      close(mcnemarMinimumDetectable(r.n, r.psi, { alpha: r.alpha }), r.mde, 2e-6, `MDE n=${r.n} ψ=${r.psi}`);
    // Nothing moved in 200 cases: 3.9 points (not 2.8/n = 1.4 points, a change detected 6% of the time).
    close(mcnemarMinimumDetectable(200, 0), 0.0392, 1e-3, 'MDE n=200');
    close(mcnemarPower(200, 0.014, 0), 0.064, 1e-3, 'power of 1.4 points');
    close(mcnemarMinimumDetectable(30, 0), 0.2507, 1e-3, 'MDE n=30');
    assert.equal(
      mcnemarMinimumDetectable(4, 0),
      Number.POSITIVE_INFINITY,
      'no split of 4 pairs is significant',
    );
  });

  it('with 1 trial on one side and 10 on the other, false verdicts stay at their level (within-case permutation)', () => {
    // Baseline 1 trial, candidate 10, every case the same pass chance on both sides (0.8): the
    // sign-flip test called 4.6–7% of these "regressed" at a nominal 2.5%.
    const random = seededRandom(7);
    const record = (key: string, passes: boolean[]): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials: passes.length,
      passed: passes.filter(Boolean).length,
      failed: passes.filter((x) => !x).length,
      errors: 0,
      skipped: 0,
      meanScore: passes.filter(Boolean).length / passes.length,
      output: null,
      reason: '',
      outcomes: passes.map((pass) => ({ pass, score: pass ? 1 : 0, error: false })),
    });
    let regressed = 0;
    let improved = 0;
    let runs = 0;
    let test = '';
    for (const cases of [12, 20, 30]) {
      for (let s = 0; s < 500; s++, runs++) {
        const a = new Map<string, CaseRecord>();
        const b = new Map<string, CaseRecord>();
        for (let i = 0; i < cases; i++) {
          a.set(`c${i}`, record(`c${i}`, [random() < 0.8]));
          b.set(
            `c${i}`,
            record(
              `c${i}`,
              Array.from({ length: 10 }, () => random() < 0.8),
            ),
          );
        }
        const m = compareRuns(a, b, { seed: s, resamples: 500 }).metrics[0];
        test = m.test;
        if (m.verdict === 'regressed') regressed++;
        if (m.verdict === 'improved') improved++;
      }
    }
    process.stdout.write(
      `# 1 trial against 10, no change: "regressed" ${((regressed / runs) * 100).toFixed(1)}%, "improved" ${((improved / runs) * 100).toFixed(1)}% (nominal 2.5% each)\n`,
    );
    assert.equal(test, 'within-case permutation');
    assert.ok(
      regressed / runs <= 0.025 && improved / runs <= 0.025,
      `${regressed} regressed, ${improved} improved of ${runs}`,
    );
  });

  it('with 1 trial against 10 and cases that vary (each its own pass chance), false verdicts stay at their level too (issue 30)', () => {
    // The figure above is for identical cases (every case 0.8 on both sides). Here each case draws
    // its own pass chance, uniformly, the same on both sides; docs/compare.md gives the 10,000-pair
    // figures (about 1.5% a side at 30 cases).
    const random = seededRandom(30);
    const record = (key: string, passes: boolean[]): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials: passes.length,
      passed: passes.filter(Boolean).length,
      failed: passes.filter((x) => !x).length,
      errors: 0,
      skipped: 0,
      meanScore: passes.filter(Boolean).length / passes.length,
      output: null,
      reason: '',
      outcomes: passes.map((pass) => ({ pass, score: pass ? 1 : 0, error: false })),
    });
    let regressed = 0;
    let improved = 0;
    const runs = 2000;
    for (let s = 0; s < runs; s++) {
      const a = new Map<string, CaseRecord>();
      const b = new Map<string, CaseRecord>();
      for (let i = 0; i < 30; i++) {
        const chance = random();
        a.set(`c${i}`, record(`c${i}`, [random() < chance]));
        b.set(
          `c${i}`,
          record(
            `c${i}`,
            Array.from({ length: 10 }, () => random() < chance),
          ),
        );
      }
      const v = compareRuns(a, b, { seed: s, resamples: 1000 }).metrics[0].verdict;
      if (v === 'regressed') regressed++;
      if (v === 'improved') improved++;
    }
    process.stdout.write(
      `# 1 trial against 10, 30 varied cases, no change: "regressed" ${((regressed / runs) * 100).toFixed(1)}%, "improved" ${((improved / runs) * 100).toFixed(1)}% (nominal 2.5% each)\n`,
    );
    // At most the nominal 2.5% a side, give or take the noise of 2,000 pairs (a standard error of 0.35 points).
    assert.ok(
      regressed / runs <= 0.03 && improved / runs <= 0.03,
      `${regressed} regressed, ${improved} improved`,
    );
    assert.ok(regressed + improved > 0, 'the test is not vacuous');
  });

  it('errors that could decide the verdict are "cannot judge"; errors both sides share are not', () => {
    const record = (key: string, status: 'pass' | 'fail' | 'error'): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials: 1,
      passed: status === 'pass' ? 1 : 0,
      failed: status === 'fail' ? 1 : 0,
      errors: status === 'error' ? 1 : 0,
      skipped: 0,
      meanScore: status === 'pass' ? 1 : 0,
      output: null,
      reason: '',
    });
    const run = (status: (i: number) => 'pass' | 'fail' | 'error') =>
      new Map(Array.from({ length: 100 }, (_, i) => [`c${i}`, record(`c${i}`, status(i))]));
    const base = run((i) => (i < 30 ? 'error' : 'pass'));
    // The same 30 cases error on both sides (an unusable assertion): unchanged, not cannot-judge.
    const same = compareRuns(
      base,
      run((i) => (i < 30 ? 'error' : 'pass')),
    );
    assert.equal(same.verdict, 'unchanged');
    // 30 new errors on the candidate alone: had they passed, nothing moved; failed, a regression.
    const outage = compareRuns(
      run(() => 'pass'),
      run((i) => (i < 30 ? 'error' : 'pass')),
    );
    assert.equal(outage.metrics[0].errorBounds?.worst.verdict, 'regressed');
    assert.equal(outage.metrics[0].errorBounds?.best.verdict, 'unchanged');
    assert.equal(outage.verdict, 'cannot-judge');
    assert.match(outage.why ?? '', /^cannot judge: 30 errors/);
    // 30 failures and 2 errors: a regression whatever the two were.
    const broken = compareRuns(
      run(() => 'pass'),
      run((i) => (i < 30 ? 'fail' : i < 32 ? 'error' : 'pass')),
    );
    assert.equal(broken.verdict, 'regressed');
  });

  it('pass@k in compare averages the cases with k judged trials and counts the rest, as the scorecard does', () => {
    const record = (key: string, trials: number, passed: number): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials,
      passed,
      failed: trials - passed,
      errors: 0,
      skipped: 0,
      meanScore: passed / trials,
      output: null,
      reason: '',
    });
    // Ten cases of 3 trials, one of them with 2 judged: before, that one case removed the pass@3 row.
    const a = new Map(Array.from({ length: 10 }, (_, i) => [`c${i}`, record(`c${i}`, i === 0 ? 2 : 3, 1)]));
    const b = new Map(Array.from({ length: 10 }, (_, i) => [`c${i}`, record(`c${i}`, 3, 2)]));
    const c = compareRuns(a, b, {}, [1, 3, 4]);
    assert.deepEqual(
      c.atK?.map((x) => [x.k, x.cases, x.leftOut]),
      [
        [1, 10, 0],
        [3, 9, 1],
      ],
    );
    close(c.atK![1].baseline.passAtK, 1, 1e-15, 'pass@3 of 1 in 3');
    close(c.atK![1].candidate.passHatK, 0, 1e-15, 'pass^3 of 2 in 3');
    assert.deepEqual(c.atKDropped, [4]);
  });

  it('the minimum detectable effect is (z₀.₉₇₅ + z₀.₈)·sd/√n', () => {
    close(
      minimumDetectableEffect(0.5, 100),
      ((1.959963984540054 + 0.8416212335729143) * 0.5) / 10,
      1e-8,
      'MDE',
    );
    // Twenty cases with a spread of 0.4 can only see a change of about a quarter.
    close(minimumDetectableEffect(0.4, 20), 0.2506, 1e-3, 'MDE n=20');
    assert.equal(sampleSd([1]), 0);
    close(sampleSd([0, 1]), Math.SQRT1_2, 1e-15, 'sd');
  });

  it('the compare verdict says "regressed" about 2.5% of the time when nothing changed (α = 0.05, one side)', () => {
    // 1,000 simulated pairs of runs of 30 graded cases, candidate and baseline scores drawn from the
    // same distribution: the verdict (corrected test p < 0.05 and the whole interval below 0) is a
    // false regression. Printed, and checked loosely: it is a seeded simulation, not a timing.
    const random = seededRandom(7);
    const record = (key: string, score: number): CaseRecord => ({
      key,
      caseRef: key,
      vars: {},
      promptLabel: 'p',
      providerId: 'm',
      trials: 1,
      passed: score >= 0.5 ? 1 : 0,
      failed: score >= 0.5 ? 0 : 1,
      errors: 0,
      skipped: 0,
      meanScore: score,
      output: null,
      reason: '',
    });
    let regressed = 0;
    let improved = 0;
    const runs = 1000;
    for (let s = 0; s < runs; s++) {
      const a = new Map<string, CaseRecord>();
      const b = new Map<string, CaseRecord>();
      for (let i = 0; i < 30; i++) {
        const base = random();
        a.set(`c${i}`, record(`c${i}`, Math.min(1, Math.max(0, base + (random() - 0.5) * 0.4))));
        b.set(`c${i}`, record(`c${i}`, Math.min(1, Math.max(0, base + (random() - 0.5) * 0.4))));
      }
      const verdict = compareRuns(a, b, { seed: s, resamples: 1000 }).metrics.find(
        (m) => m.metric === 'score',
      )?.verdict;
      if (verdict === 'regressed') regressed++;
      if (verdict === 'improved') improved++;
    }
    process.stdout.write(
      `# compare under no change: "regressed" ${((regressed / runs) * 100).toFixed(1)}%, "improved" ${((improved / runs) * 100).toFixed(1)}% (nominal 2.5% each)\n`,
    );
    assert.ok(
      regressed / runs < 0.05 && improved / runs < 0.05,
      `${regressed} regressed, ${improved} improved`,
    );
    assert.ok(regressed + improved > 0, 'the test is not vacuous: some false verdicts happen');
  });
});
