// How verdicts combine into one judgement: a case's assertions into the case, and a group's
// assertions into the group (promptfoo's rules, spec §6.1–6.2 and §5.6). Pure; no I/O.
import { pyRound } from './python/text.js';
import type { Verdict } from './types.js';

/** The combined judgement of several verdicts. */
export interface Combined {
  pass: boolean;
  score: number;
  reason: string;
  /** Every verdict was skipped: nothing was judged. */
  skip: boolean;
  /** Weighted means of the metrics the verdicts carry. */
  namedScores?: Record<string, number>;
  /** The total weight behind each named score (a parent weighs a group's metrics by it). */
  namedScoreWeights?: Record<string, number>;
}

/**
 * Combines verdicts: score is the weighted mean (0 when the weights sum to 0); without a threshold
 * they pass iff none failed (weight-0 verdicts never fail); with one, iff score (rounded Python-style to
 * `thresholdDigits` when given) ≥ threshold.
 * Skipped verdicts are left out. Named metrics are weighted means over the verdicts carrying them;
 * a weight-0 verdict still reports its raw score with weight 1 (promptfoo's metric-only recipes),
 * and a verdict's own metrics are weighed by its weight times their own weights.
 */
export function combineVerdicts(
  all: Verdict[],
  threshold: number | undefined,
  thresholdDigits?: number,
): Combined {
  const verdicts = all.filter((v) => !v.skipped);
  if (verdicts.length === 0 && all.length > 0)
    return { pass: true, score: 0, reason: all[0].reason, skip: true };
  let weighted = 0;
  let totalWeight = 0;
  let failReason: string | undefined;
  const sums = new Map<string, { sum: number; weight: number }>();
  const add = (name: string, value: number, weight: number): void => {
    const m = sums.get(name) ?? { sum: 0, weight: 0 };
    m.sum += value * weight;
    m.weight += weight;
    sums.set(name, m);
  };
  for (const v of verdicts) {
    weighted += v.score * v.weight;
    totalWeight += v.weight;
    if (!v.pass) failReason = v.reason;
    const w = v.weight === 0 ? 1 : v.weight;
    if (v.metric !== undefined) add(v.metric, v.score, w);
    if (v.namedScores) {
      for (const [name, value] of Object.entries(v.namedScores)) {
        // The verdict's own score already stands for its metric.
        if (name === v.metric) continue;
        add(name, value, w * (v.namedScoreWeights?.[name] ?? 1));
      }
    }
  }
  const score = totalWeight > 0 ? weighted / totalWeight : 0;
  let pass = failReason === undefined;
  let reason = failReason ?? 'All assertions passed';
  if (typeof threshold === 'number' && !Number.isNaN(threshold)) {
    // A format may compare its rounded score, as its own tool does (ÈwéBench rounds to 3 digits first).
    const compared = thresholdDigits === undefined ? score : pyRound(score, thresholdDigits);
    pass = compared >= threshold;
    const shown = thresholdDigits === undefined ? score.toFixed(2) : String(compared);
    reason = `Aggregate score ${shown} ${pass ? '≥' : '<'} ${threshold} threshold`;
  }
  const combined: Combined = { pass, score, reason, skip: false };
  if (sums.size > 0) {
    combined.namedScores = {};
    combined.namedScoreWeights = {};
    for (const [name, m] of sums) {
      combined.namedScores[name] = m.weight > 0 ? m.sum / m.weight : 0;
      combined.namedScoreWeights[name] = m.weight;
    }
  }
  return combined;
}
