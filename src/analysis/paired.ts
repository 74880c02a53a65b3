// Statistics for comparing two runs case by case (Miller, "Adding Error Bars to Evals", arXiv
// 2411.00640): the same cases are scored twice, so the differences are paired. Pure functions,
// deterministic under a seed, checked against scipy and closed forms in test/analysis/paired.test.ts.
import { seededRandom } from '../core/random.js';
import { logGamma, normalQuantile } from './stats.js';

export { normalQuantile };

/** Unbiased pass@k (Chen et al. 2021): the chance that at least one of k of n trials passes, c passing. */
export function passAtK(n: number, c: number, k: number): number {
  checkTrials(n, c, k);
  if (n - c < k) return 1;
  // 1 − C(n−c, k)/C(n, k) as a product, never forming the binomials (they overflow past n ≈ 1000).
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** Unbiased pass^k: the chance that all of k of n trials pass, c passing: C(c, k)/C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  checkTrials(n, c, k);
  if (c < k) return 0;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return p;
}

function checkTrials(n: number, c: number, k: number): void {
  if (
    !Number.isInteger(n) ||
    !Number.isInteger(c) ||
    !Number.isInteger(k) ||
    n < 1 ||
    c < 0 ||
    c > n ||
    k < 1 ||
    k > n
  )
    throw new RangeError(`pass@k needs whole numbers with 0 ≤ c ≤ n and 1 ≤ k ≤ n (n=${n}, c=${c}, k=${k})`);
}

/** ln C(n, k), exact enough for binomial tails up to millions of trials. */
function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/** P(X ≤ x) for X ~ Binomial(n, 1/2), summed exactly in log space. */
function binomHalfCdf(x: number, n: number): number {
  if (x < 0) return 0;
  if (x >= n) return 1;
  let total = 0;
  const logHalfN = n * Math.log(0.5);
  for (let i = 0; i <= x; i++) total += Math.exp(logChoose(n, i) + logHalfN);
  return Math.min(1, total);
}

/** P(X = x) for X ~ Binomial(n, 1/2). */
function binomHalfPmf(x: number, n: number): number {
  return Math.exp(logChoose(n, x) + n * Math.log(0.5));
}

/**
 * Exact McNemar test on the discordant pairs: `b` cases passed before and fail now, `c` failed
 * before and pass now. Two-sided p = min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(b + c, ½), as
 * scipy.stats.binomtest gives for a symmetric null; `midP` subtracts half the point mass (less
 * conservative, Fagerland et al. 2013).
 */
export function mcnemarExact(b: number, c: number, opts: { midP?: boolean } = {}): number {
  const n = b + c;
  if (n === 0) return 1;
  const m = Math.min(b, c);
  let p = 2 * binomHalfCdf(m, n);
  if (opts.midP) p -= binomHalfPmf(m, n);
  return Math.min(1, Math.max(0, p));
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length > 0 ? s / xs.length : 0;
}

/** The q-quantile of sorted values, linearly interpolated (numpy's default, "linear"). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * The mean paired difference with a 95% **studentized** (bootstrap-t) interval: cases are
 * resampled, each resample's mean is standardised by its own standard error, and the quantiles of
 * that t are put around the observed mean with the observed standard error. Unlike the percentile
 * interval it corrects for skew: at 12 cases of skewed scores the percentile interval covered 84–87%
 * and this one 94% (test/analysis/paired.test.ts checks coverage by a seeded simulation). A resample
 * with no spread has t = ±∞ (or 0 at the mean), so an interval can reach `bounds`, the range the
 * mean difference can take (default ±∞), where it is clamped.
 */
export function pairedBootstrap(
  deltas: readonly number[],
  opts: { seed: number; resamples?: number; level?: number; bounds?: [number, number] },
): { delta: number; low: number; high: number } {
  const b = studentizedBootstrap(deltas, opts);
  return { delta: b.delta, ...b.at(opts.level ?? 0.95) };
}

/**
 * The studentized bootstrap of `pairedBootstrap`, drawn once: `at(level)` gives its interval at any
 * level from the same resamples (the comparison reads one at 95% and one at the level its
 * correction for several comparisons leaves).
 */
export function studentizedBootstrap(
  deltas: readonly number[],
  opts: { seed: number; resamples?: number; bounds?: [number, number] },
): { delta: number; at(level: number): { low: number; high: number } } {
  const n = deltas.length;
  const delta = mean(deltas);
  const point = { delta, at: () => ({ low: delta, high: delta }) };
  if (n === 0) return { delta: 0, at: () => ({ low: 0, high: 0 }) };
  const [lowest, highest] = opts.bounds ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  // One case that moved says nothing of how much cases vary: the interval is all the mean could be.
  if (n === 1 && delta !== 0)
    return { delta, at: () => ({ low: Math.min(lowest, delta), high: Math.max(highest, delta) }) };
  const se = sampleSd(deltas) / Math.sqrt(n);
  if (se === 0) return point;
  const resamples = opts.resamples ?? 10_000;
  const random = seededRandom(opts.seed);
  const ts = new Float64Array(resamples);
  const tolerance = 1e-12 * Math.max(1, Math.abs(delta));
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const x = deltas[Math.floor(random() * n)];
      s += x;
      ss += x * x;
    }
    const m = s / n;
    const variance = n > 1 ? Math.max(0, (ss - n * m * m) / (n - 1)) : 0;
    const seStar = Math.sqrt(variance / n);
    const diff = m - delta;
    ts[r] =
      seStar > tolerance
        ? diff / seStar
        : Math.abs(diff) <= tolerance
          ? 0
          : diff > 0
            ? Number.POSITIVE_INFINITY
            : Number.NEGATIVE_INFINITY;
  }
  ts.sort();
  // The order statistics at ⌊(B + 1)α/2⌋ and ⌈(B + 1)(1 − α/2)⌉ (1-based), so ±∞ stay ±∞.
  const order = (q: number, round: (x: number) => number): number =>
    ts[Math.min(resamples - 1, Math.max(0, round((resamples + 1) * q) - 1))];
  return {
    delta,
    at(level: number) {
      const alpha = 1 - level;
      const tLow = order(alpha / 2, Math.floor);
      const tHigh = order(1 - alpha / 2, Math.ceil);
      const low = tHigh === Number.POSITIVE_INFINITY ? lowest : Math.max(lowest, delta - tHigh * se);
      const high = tLow === Number.NEGATIVE_INFINITY ? highest : Math.min(highest, delta - tLow * se);
      return { low: Math.min(low, delta), high: Math.max(high, delta) };
    },
  };
}

/**
 * Tango's score statistic (Tango 1998) for H0: Δ = d, where Δ is the change in pass rate over `n`
 * paired cases of which `regressed` passed before and fail now and `improved` the reverse:
 * (improved − regressed − n·d) / √(n·(2q̃ + d(1 − d))), q̃ the share of regressing cases most
 * likely under H0 (the larger root of 2n·q² − (m + d(improved − regressed − 2n))·q − regressed·d(1 − d),
 * m = regressed + improved; 0 when that root is below 0). At d = 0 it is McNemar's score statistic.
 */
export function tangoScore(regressed: number, improved: number, n: number, d: number): number {
  const b = regressed;
  const c = improved;
  const B = b + c + d * (c - b - 2 * n);
  const q = Math.max(0, (B + Math.sqrt(Math.max(0, B * B + 8 * n * b * d * (1 - d)))) / (4 * n));
  const variance = n * (2 * q + d * (1 - d));
  const distance = c - b - n * d;
  if (!(variance > 0))
    return distance === 0 ? 0 : distance > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return distance / Math.sqrt(variance);
}

/**
 * Where a decreasing function crosses `target` on [lo, hi] (it is above at lo, at or below at hi),
 * by bisection to the last bit.
 */
function crossing(f: (x: number) => number, target: number, lo: number, hi: number): number {
  for (let i = 0; i < 200 && hi - lo > 1e-15; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Tango's score interval for the change in pass rate of `n` paired cases, `regressed` of them
 * from pass to fail and `improved` the reverse: every d whose score statistic lies within
 * ±z₁₋α/₂. Valid with few cases that moved, where a bootstrap of the differences is not
 * (Fagerland, Lydersen & Laake 2014 recommend it for paired proportions).
 */
export function tangoInterval(
  regressed: number,
  improved: number,
  n: number,
  level = 0.95,
): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 0 };
  const z = normalQuantile(1 - (1 - level) / 2);
  const estimate = (improved - regressed) / n;
  const score = (d: number): number => tangoScore(regressed, improved, n, d);
  const low = estimate <= -1 ? -1 : crossing(score, z, -1, estimate);
  const high = estimate >= 1 ? 1 : crossing(score, -z, estimate, 1);
  return { low: Math.max(-1, Math.min(low, estimate)), high: Math.min(1, Math.max(high, estimate)) };
}

/**
 * A Clopper–Pearson bound for a binomial share, `x` of `m` (or its mid-p form): the share at which
 * the chance of `x` or more (`lower`) or of `x` or fewer is α/2, half the chance of exactly `x`
 * left out for mid-p.
 */
function clopperPearson(x: number, m: number, alpha: number, lower: boolean, midP: boolean): number {
  const tail = (p: number): number => binomTail(x, m, p, !lower) - (midP ? binomPmf(x, m, p) / 2 : 0);
  // The tail grows with p for a lower bound (falls for an upper one); where it never reaches α/2 the
  // bound is the end of the range.
  if (lower) {
    if (tail(0) >= alpha / 2) return 0;
    return crossing((p) => -tail(p), -alpha / 2, 0, 1);
  }
  if (tail(1) >= alpha / 2) return 1;
  return crossing(tail, alpha / 2, 0, 1);
}

/**
 * The interval of the change in pass rate that the comparison prints beside exact McNemar (or its
 * mid-p): Tango's score interval (`tangoInterval`), made to agree with the test about 0. Where the
 * test does not reject (p ≥ α, or `rejectsZero` false: the test's verdict after a correction), the
 * interval reaches 0; where it rejects and Tango's reaches 0 (a handful of discordant cases at a
 * small α), the bound nearest 0 is the one inverted from the exact test: the Clopper–Pearson
 * interval of the share of moved cases that moved up (the exact McNemar test's own), times the
 * Clopper–Pearson bound of the share of cases that moved. So the interval contains 0 exactly when
 * the test does not reject.
 */
export function pairedProportionInterval(
  regressed: number,
  improved: number,
  n: number,
  opts: { level?: number; midP?: boolean; rejectsZero?: boolean } = {},
): { low: number; high: number } {
  const level = opts.level ?? 0.95;
  const alpha = 1 - level;
  const midP = opts.midP ?? false;
  const rejects = opts.rejectsZero ?? mcnemarExact(regressed, improved, { midP }) < alpha;
  const { low, high } = tangoInterval(regressed, improved, n, level);
  if (!rejects) return { low: Math.min(low, 0), high: Math.max(high, 0) };
  if (low > 0 || high < 0) return { low, high };
  // The test rejects but Tango's interval reaches 0: the bound nearest 0 from the exact test.
  const m = regressed + improved;
  const moved = clopperPearson(m, n, alpha, true, false);
  if (improved > regressed) {
    const up = clopperPearson(improved, m, alpha, true, midP);
    return { low: Math.min((2 * up - 1) * moved, (improved - regressed) / n), high };
  }
  const down = clopperPearson(regressed, m, alpha, true, midP);
  return { low, high: Math.max(-(2 * down - 1) * moved, (improved - regressed) / n) };
}

/**
 * Two-sided permutation test of "the candidate's trials of a case are exchangeable with the
 * baseline's", valid when the two sides ran different numbers of trials (1 against 10, where a
 * sign flip of the per-case difference is not: the two means then have different spreads). The
 * statistic is the mean over cases of (candidate's mean − baseline's mean); each draw shuffles
 * every case's pooled trials and deals them back in the same numbers. `resamples` seeded draws,
 * the observed one counted (p is never 0).
 */
export function withinCasePermutationTest(
  cases: readonly { baseline: readonly number[]; candidate: readonly number[] }[],
  opts: { seed: number; resamples?: number },
): number {
  const used = cases.filter((c) => c.baseline.length > 0 && c.candidate.length > 0);
  if (used.length === 0) return 1;
  // A case's term, (candidate's mean − baseline's mean), is linear in the sum D of the trials dealt
  // to its smaller side: with S the pooled sum, it is S/n_c − D·(1/n_b + 1/n_c) when the baseline
  // is the smaller side, and D·(1/n_b + 1/n_c) − S/n_b when the candidate is. So a draw deals only
  // the smaller side's trials (a partial Fisher–Yates) and sums them: min(n_b, n_c) steps a case.
  const pooled = used.map((c) => Float64Array.from([...c.baseline, ...c.candidate]));
  const k = used.map((c) => Math.min(c.baseline.length, c.candidate.length));
  const slope = used.map((c) => {
    const w = 1 / c.baseline.length + 1 / c.candidate.length;
    return c.baseline.length <= c.candidate.length ? -w : w;
  });
  let offset = 0;
  for (const [j, c] of used.entries()) {
    let total = 0;
    for (const x of pooled[j]) total += x;
    offset +=
      c.baseline.length <= c.candidate.length ? total / c.candidate.length : -total / c.baseline.length;
  }
  // The observed deal: the smaller side's trials are the baseline's first n_b, or the candidate's last n_c.
  let observedSum = offset;
  for (const [j, c] of used.entries()) {
    let d = 0;
    if (c.baseline.length <= c.candidate.length) for (const x of c.baseline) d += x;
    else for (const x of c.candidate) d += x;
    observedSum += slope[j] * d;
  }
  const observed = Math.abs(observedSum / used.length);
  if (observed === 0 && pooled.every((p) => p.every((x) => x === p[0]))) return 1;
  const tolerance = 1e-12 * Math.max(1, observed);
  const resamples = opts.resamples ?? 10_000;
  const random = seededRandom(opts.seed);
  let extreme = 1;
  for (let r = 0; r < resamples; r++) {
    let s = offset;
    for (let j = 0; j < pooled.length; j++) {
      // Fisher–Yates on the case's pooled trials, only as far as the smaller side's count.
      const p = pooled[j];
      let d = 0;
      for (let i = 0; i < k[j]; i++) {
        const m = i + Math.floor(random() * (p.length - i));
        const t = p[i];
        p[i] = p[m];
        p[m] = t;
        d += p[i];
      }
      s += slope[j] * d;
    }
    if (Math.abs(s / pooled.length) >= observed - tolerance) extreme++;
  }
  return extreme / (resamples + 1);
}

/**
 * Two-sided sign-flip permutation test of a zero mean paired difference: each case's difference
 * keeps its size and has its sign flipped at random. Exact (all 2ⁿ flips) for n ≤ 16, else
 * `resamples` random flips with the observed one counted (p is never 0).
 */
export function signFlipTest(deltas: readonly number[], opts: { seed: number; resamples?: number }): number {
  const n = deltas.length;
  const observed = Math.abs(mean(deltas));
  if (n === 0 || deltas.every((d) => d === 0)) return 1;
  const tolerance = 1e-12 * Math.max(1, observed);
  if (n <= 16) {
    let extreme = 0;
    const total = 2 ** n;
    for (let mask = 0; mask < total; mask++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += mask & (1 << i) ? -deltas[i] : deltas[i];
      if (Math.abs(s / n) >= observed - tolerance) extreme++;
    }
    return extreme / total;
  }
  const resamples = opts.resamples ?? 10_000;
  const random = seededRandom(opts.seed);
  let extreme = 1;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += random() < 0.5 ? -deltas[i] : deltas[i];
    if (Math.abs(s / n) >= observed - tolerance) extreme++;
  }
  return extreme / (resamples + 1);
}

/** Holm's step-down adjusted p-values (family-wise error), in the input order. */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** Benjamini–Hochberg adjusted p-values (false discovery rate), in the input order. */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const [p, i] = order[rank];
    running = Math.min(running, (m * p) / (rank + 1));
    adjusted[i] = Math.min(1, running);
  }
  return adjusted;
}

/**
 * P(X ≤ k) (`lower`) or P(X ≥ k) for X ~ Binomial(n, p): from the pmf at k (in log space), summed
 * away from the centre by the pmf's ratio until the terms no longer count (a few standard
 * deviations: fast at any n).
 */
function binomTail(k: number, n: number, p: number, lower: boolean): number {
  if (lower ? k >= n : k <= 0) return 1;
  if (lower ? k < 0 : k > n) return 0;
  if (p <= 0) return lower ? 1 : 0;
  if (p >= 1) return lower ? 0 : 1;
  // A tail holding the centre is one minus the other tail (whose terms fall from k outward).
  if (lower ? k >= n * p : k <= n * p) return Math.max(0, 1 - binomTail(lower ? k + 1 : k - 1, n, p, !lower));
  const ratio = p / (1 - p);
  let term = Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
  let total = 0;
  for (let i = k; lower ? i >= 0 : i <= n; i += lower ? -1 : 1) {
    total += term;
    if (term <= total * 1e-17) break;
    // pmf(i − 1) = pmf(i)·i/((n − i + 1)·ratio); pmf(i + 1) = pmf(i)·(n − i)·ratio/(i + 1).
    term = lower ? (term * i) / ((n - i + 1) * ratio) : (term * (n - i) * ratio) / (i + 1);
  }
  return Math.min(1, total);
}

/** P(X = x) for X ~ Binomial(n, p). */
function binomPmf(x: number, n: number, p: number): number {
  if (p <= 0) return x === 0 ? 1 : 0;
  if (p >= 1) return x === n ? 1 : 0;
  return Math.exp(logChoose(n, x) + x * Math.log(p) + (n - x) * Math.log1p(-p));
}

/**
 * For each number m ≤ n of discordant pairs, the largest c with McNemar p(c, m − c) ≤ α (−1: no
 * split of m pairs is significant): the test rejects when the smaller count is at most c.
 */
function mcnemarCritical(n: number, alpha: number, midP: boolean): Int32Array {
  const critical = new Int32Array(n + 1).fill(-1);
  // c never falls as m grows, so it is carried from one m to the next.
  let c = -1;
  for (let m = 1; m <= n; m++) {
    const p = (x: number): number =>
      Math.min(1, 2 * binomTail(x, m, 0.5, true) - (midP ? binomPmf(x, m, 0.5) : 0));
    while (c + 1 <= m / 2 && p(c + 1) <= alpha) c++;
    critical[m] = c;
  }
  return critical;
}

/**
 * The power of the two-sided exact McNemar test at level α for `n` pairs when a share `discordant`
 * of them is discordant and the rest agree, the mean change being `effect` (so a share
 * (discordant + effect)/2 moves one way and (discordant − effect)/2 the other; the discordant
 * share is at least |effect|): the chance, summed exactly over the number of discordant pairs,
 * that the test rejects.
 */
export function mcnemarPower(
  n: number,
  effect: number,
  discordant: number,
  opts: { alpha?: number; midP?: boolean; critical?: Int32Array } = {},
): number {
  const alpha = opts.alpha ?? 0.05;
  const psi = Math.min(1, Math.max(discordant, Math.abs(effect)));
  if (n < 1 || psi === 0) return 0;
  const critical = opts.critical ?? mcnemarCritical(n, alpha, opts.midP ?? false);
  const share = (psi + Math.abs(effect)) / (2 * psi);
  // Discordant counts far in the tails of Binomial(n, ψ) add nothing: sum ±12 sd around the mean.
  const centre = n * psi;
  const spread = 12 * Math.sqrt(n * psi * (1 - psi)) + 12;
  const from = Math.max(1, Math.floor(centre - spread));
  const to = Math.min(n, Math.ceil(centre + spread));
  let power = 0;
  for (let m = from; m <= to; m++) {
    const c = critical[m];
    if (c < 0) continue;
    const weight = binomPmf(m, n, psi);
    if (weight < 1e-300) continue;
    // Reject when the count moving the effect's way is ≥ m − c, or (the other way) ≤ c.
    power += weight * (binomTail(m - c, m, share, false) + binomTail(c, m, share, true));
  }
  return Math.min(1, power);
}

/**
 * The smallest mean change (a share of the n cases) the exact McNemar test detects with `power`
 * at level α, given the share of discordant pairs seen (when nothing moved, 0: then every moved
 * case moves the same way, the most detectable change there is), found by bisection to 1e-6.
 */
export function mcnemarMinimumDetectable(
  n: number,
  discordant: number,
  opts: { alpha?: number; power?: number; midP?: boolean } = {},
): number {
  const power = opts.power ?? 0.8;
  if (n < 1) return Number.POSITIVE_INFINITY;
  const critical = mcnemarCritical(n, opts.alpha ?? 0.05, opts.midP ?? false);
  const enough = (d: number): boolean => mcnemarPower(n, d, discordant, { ...opts, critical }) >= power;
  if (!enough(1)) return Number.POSITIVE_INFINITY;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 40 && hi - lo > 1e-6; i++) {
    const mid = (lo + hi) / 2;
    if (enough(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The smallest mean paired difference a suite could detect with this power at two-sided level α,
 * given the standard deviation of its per-case differences: (z₁₋α/₂ + z_power)·sd/√n.
 */
export function minimumDetectableEffect(
  sdOfDeltas: number,
  n: number,
  opts: { alpha?: number; power?: number } = {},
): number {
  if (n < 1) return Number.POSITIVE_INFINITY;
  const alpha = opts.alpha ?? 0.05;
  const power = opts.power ?? 0.8;
  return ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sdOfDeltas) / Math.sqrt(n);
}

/** The sample standard deviation (n − 1); 0 for fewer than two values. */
export function sampleSd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) * (x - m);
  return Math.sqrt(s / (xs.length - 1));
}
