// Statistics for comparing two runs case by case (Miller, "Adding Error Bars to Evals", arXiv
// 2411.00640): the same cases are scored twice, so the differences are paired. Pure functions,
// deterministic under a seed, checked against scipy and closed forms in test/analysis/paired.test.ts.
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

/** A small, fast, seedable generator (mulberry32): the same seed gives the same draws everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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

/** The mean paired difference with a 95% percentile bootstrap interval (resampling cases). */
export function pairedBootstrap(
  deltas: readonly number[],
  opts: { seed: number; resamples?: number; level?: number },
): { delta: number; low: number; high: number } {
  const n = deltas.length;
  const delta = mean(deltas);
  if (n === 0) return { delta: 0, low: 0, high: 0 };
  const resamples = opts.resamples ?? 10_000;
  const alpha = 1 - (opts.level ?? 0.95);
  const random = seededRandom(opts.seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += deltas[Math.floor(random() * n)];
    means[r] = s / n;
  }
  means.sort();
  const sorted = Array.from(means);
  return { delta, low: quantileSorted(sorted, alpha / 2), high: quantileSorted(sorted, 1 - alpha / 2) };
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
