// Means over repeated trials, with intervals clustered on the case: the trials of one case are not
// independent, so treating N trials as N cases would make every interval too narrow (Miller,
// "Adding Error Bars to Evals", arXiv 2411.00640, Appendix A).
import type { Rate } from '../core/scorecard.js';
import { t975 } from './stats.js';

/** One case's judged trials: how many, how many passed, and the sum of their scores. */
export interface Cluster {
  n: number;
  pass: number;
  score: number;
}

/**
 * The mean of a per-trial quantity (`pass`: 1 for a passing trial, else 0; `score`) over every
 * judged trial, with a 95% interval from the cluster-robust standard error (CR1: the C/(C−1)
 * small-sample factor, and Student's t with C − 1 degrees of freedom for C cases). `n` on the
 * result counts cases, not trials, and `clustered` is set. With one trial per case this is the
 * ordinary standard error of a mean.
 */
export function clusteredMean(clusters: readonly Cluster[], of: 'pass' | 'score'): Rate {
  const C = clusters.length;
  let N = 0;
  let S = 0;
  for (const c of clusters) {
    N += c.n;
    S += c[of];
  }
  if (C === 0 || N === 0) return { value: 0, low: 0, high: 0, n: 0, clustered: true };
  const mean = S / N;
  let sum = 0;
  for (const c of clusters) {
    const resid = c[of] - c.n * mean;
    sum += resid * resid;
  }
  const variance = C > 1 ? ((C / (C - 1)) * sum) / (N * N) : 0.25 / N;
  const half = t975(C - 1) * Math.sqrt(variance);
  return {
    value: mean,
    low: Math.max(0, mean - half),
    high: Math.min(1, mean + half),
    n: C,
    clustered: true,
  };
}
