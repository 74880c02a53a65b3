import type { Rate } from '../core/scorecard.js';

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * A proportion with its 95% Wilson score interval: well-behaved at 0%, 100% and small n, unlike
 * the normal approximation.
 */
export function wilson(successes: number, n: number, z = Z95): Rate {
  if (n === 0) return { value: 0, low: 0, high: 0, n: 0 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At the edges the bound is exactly 0 or 1; computed, it is off by float noise (5e-17), which
  // percent() would then show as 0.1% or 99.9%: an interval that leaves out its own estimate.
  const low = successes === 0 ? 0 : Math.max(0, centre - half);
  const high = successes === n ? 1 : Math.min(1, centre + half);
  return { value: p, low, high, n };
}

/** Two-sided 97.5% quantiles of Student's t for 1–30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/**
 * Student's t 0.975 quantile for `df` degrees of freedom (table to 30, then a Cornish–Fisher
 * expansion). Fewer than 1 (one observation: n − 1 = 0) is taken as 1, the widest the table gives,
 * never as the normal z, which would make a single score look precise. Infinite df is z.
 */
export function t975(df: number): number {
  if (df === Number.POSITIVE_INFINITY) return Z95;
  if (Number.isNaN(df) || df < 1) return T975[0];
  if (df <= 30) {
    // Interpolate for fractional (Welch–Satterthwaite) degrees of freedom.
    const lo = Math.max(1, Math.floor(df));
    const hi = Math.min(30, Math.ceil(df));
    const a = T975[lo - 1];
    const b = T975[hi - 1];
    return lo === hi ? a : a + (b - a) * (df - lo);
  }
  const z = Z95;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  return z + g1 / df + g2 / (df * df);
}

/** Scores are in [0, 1], so no variance exceeds 1/4: the bound used where one observation gives no estimate. */
const MAX_UNIT_VARIANCE = 0.25;

/** A mean of [0, 1] scores with a 95% t interval, from running sums. */
export interface MeanAccumulator {
  n: number;
  sum: number;
  sumSq: number;
}

/** The sample variance of an accumulator; the [0, 1] bound when n < 2 (one score says nothing of spread). */
export function sampleVariance(acc: MeanAccumulator): number {
  if (acc.n < 2) return MAX_UNIT_VARIANCE;
  const mean = acc.sum / acc.n;
  return Math.max(0, (acc.sumSq - acc.n * mean * mean) / (acc.n - 1));
}

/** The mean with its 95% Student-t interval, clamped to [0, 1]. */
export function meanInterval(acc: MeanAccumulator): Rate {
  if (acc.n === 0) return { value: 0, low: 0, high: 0, n: 0 };
  const mean = acc.sum / acc.n;
  const half = t975(acc.n - 1) * Math.sqrt(sampleVariance(acc) / acc.n);
  return { value: mean, low: Math.max(0, mean - half), high: Math.min(1, mean + half), n: acc.n };
}

/**
 * A weighted mean of group means (Σ wᵢ·meanᵢ / Σ wᵢ) with a 95% interval: the groups are independent
 * samples, so the variance is Σ (wᵢ/Σw)²·sᵢ²/nᵢ, with Welch–Satterthwaite degrees of freedom.
 */
export function weightedMeanInterval(groups: { weight: number; acc: MeanAccumulator }[]): Rate {
  const used = groups.filter((g) => g.weight > 0 && g.acc.n > 0);
  const total = used.reduce((s, g) => s + g.weight, 0);
  const n = used.reduce((s, g) => s + g.acc.n, 0);
  if (used.length === 0 || total === 0) return { value: 0, low: 0, high: 0, n: 0 };
  let value = 0;
  let variance = 0;
  let dfDenominator = 0;
  for (const g of used) {
    const w = g.weight / total;
    value += w * (g.acc.sum / g.acc.n);
    const term = (w * w * sampleVariance(g.acc)) / g.acc.n;
    variance += term;
    dfDenominator += g.acc.n > 1 ? (term * term) / (g.acc.n - 1) : term * term;
  }
  const df = dfDenominator > 0 ? (variance * variance) / dfDenominator : Number.POSITIVE_INFINITY;
  const half = t975(df) * Math.sqrt(variance);
  return { value, low: Math.max(0, value - half), high: Math.min(1, value + half), n };
}
