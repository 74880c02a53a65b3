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

/**
 * ln Γ(x) for x > 0 (Lanczos approximation, g = 7 with nine coefficients: about 15 significant
 * digits), by reflection below ½.
 */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let a = c[0];
  const t = z + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Stirling's series for ln Γ(x) less its leading terms, (x − ½)ln x − x + ½ln 2π; for x ≥ 10. */
function stirlingTail(x: number): number {
  const x2 = x * x;
  return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * x2)) / x2) / x2) / x;
}

/**
 * ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b). With a large argument the two big ln Γ nearly
 * cancel (at df = 10⁶ they are 10⁷ apart in size from their difference), so there their
 * difference is taken from Stirling's series directly.
 */
export function logBeta(a: number, b: number): number {
  const big = Math.max(a, b);
  const small = Math.min(a, b);
  if (big < 10) return logGamma(a) + logGamma(b) - logGamma(a + b);
  // ln Γ(big) − ln Γ(big + small) = −(big − ½)·ln(1 + small/big) − small·ln(big + small) + small
  // + tail(big) − tail(big + small).
  const diff =
    -(big - 0.5) * Math.log1p(small / big) -
    small * Math.log(big + small) +
    small +
    stirlingTail(big) -
    stirlingTail(big + small);
  return logGamma(small) + diff;
}

/**
 * The continued fraction of the incomplete beta function (its even and odd terms, evaluated by the
 * modified Lentz method), which converges fast for x < (a + 1)/(a + b + 2).
 */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    // Even step: m(b − m)x / ((a + 2m − 1)(a + 2m)).
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    // Odd step: −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1)).
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1]. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b));
  // The fraction converges on the side of the mean; the other side by symmetry, I_x(a,b) = 1 − I_{1−x}(b,a).
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for Student's t with `df` > 0 degrees of freedom (fractional df allowed). */
export function tCdf(t: number, df: number): number {
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Number.POSITIVE_INFINITY) return 1;
  if (t === Number.NEGATIVE_INFINITY) return 0;
  // P(|T| > |t|) = I_{df/(df + t²)}(df/2, ½).
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/**
 * The p-quantile of Student's t with `df` > 0 degrees of freedom, fractional df included (a
 * Welch–Satterthwaite df): the t CDF through the regularised incomplete beta function, inverted by
 * safeguarded Newton steps. Agrees with scipy.stats.t.ppf to 1e-9 (test/analysis/breakdowns.test.ts).
 */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1))
    return p === 0 ? Number.NEGATIVE_INFINITY : p === 1 ? Number.POSITIVE_INFINITY : Number.NaN;
  if (df === Number.POSITIVE_INFINITY) return normalQuantile(p);
  if (p === 0.5) return 0;
  // The tail beyond |t| is taken from p as given (p itself below ½: 1 − p would round a tiny p away).
  const sign = p < 0.5 ? -1 : 1;
  const upper = p < 0.5 ? 2 * p : 2 * (1 - p);
  // With x = df/(df + t²): P(|T| > t) = I_x(df/2, ½) and P(|T| ≤ t) = I_{1−x}(½, df/2). Solve
  // whichever is the smaller, so neither x nor 1 − x is lost to rounding, then t from it.
  if (upper <= 0.5) {
    const x = inverseIncompleteBeta(upper, df / 2, 0.5);
    return sign * Math.sqrt((df * (1 - x)) / x);
  }
  const y = inverseIncompleteBeta(p < 0.5 ? 1 - 2 * p : 2 * p - 1, 0.5, df / 2);
  return sign * Math.sqrt((df * y) / (1 - y));
}

/**
 * The x in (0, 1) with I_x(a, b) = target (I rises with x): bisection on ln x brackets it, then
 * Newton steps on I itself (dI/dx = x^(a−1)(1 − x)^(b−1)/B(a, b)) polish it.
 */
function inverseIncompleteBeta(target: number, a: number, b: number): number {
  let lo = -745;
  let hi = 0;
  for (let i = 0; i < 120 && hi - lo > 1e-15; i++) {
    const mid = (lo + hi) / 2;
    if (incompleteBeta(Math.exp(mid), a, b) < target) lo = mid;
    else hi = mid;
  }
  let x = Math.exp((lo + hi) / 2);
  const logB = logBeta(a, b);
  for (let i = 0; i < 5; i++) {
    const f = incompleteBeta(x, a, b) - target;
    const slope = Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) - logB);
    const next = x - f / slope;
    if (!(next > 0 && next < 1) || !Number.isFinite(next)) break;
    const done = Math.abs(next - x) <= 1e-16 * x;
    x = next;
    if (done) break;
  }
  return x;
}

/** Standard normal quantile (Acklam's rational approximation: relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
      (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  return x;
}

/**
 * Student's t 0.975 quantile for `df` degrees of freedom, exact for fractional df (tQuantile).
 * Fewer than 1 (one observation: n − 1 = 0) is taken as 1, never as the normal z, which would make
 * a single score look precise. Infinite df is z.
 */
export function t975(df: number): number {
  if (df === Number.POSITIVE_INFINITY) return Z95;
  if (Number.isNaN(df) || df < 1) return tQuantile(0.975, 1);
  return tQuantile(0.975, df);
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
