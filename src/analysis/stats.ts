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
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), n };
}
