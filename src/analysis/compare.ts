// `assay compare`: two runs paired case by case, each prompt × provider cell and metric judged
// regressed / improved / inconclusive / unchanged with statistics that respect the pairing
// (exact McNemar on discordant cases, a seeded sign-flip test and paired bootstrap on per-case
// differences), corrected for the number of comparisons, with the smallest change the suite could
// have detected. Works from run logs only, whatever format the runs came from.
import type { Scorecard, WeightedGroup } from '../core/scorecard.js';
import { type CaseRecord, caseAtK, isFlaky, passFraction } from './cases.js';
import {
  benjaminiHochberg,
  holm,
  mcnemarExact,
  minimumDetectableEffect,
  pairedBootstrap,
  sampleSd,
  signFlipTest,
} from './paired.js';

export type Verdict = 'regressed' | 'improved' | 'inconclusive' | 'unchanged';

export interface CompareOptions {
  /** Seed of the bootstrap and permutation draws (printed, so a CI job gets the same answer twice). */
  seed: number;
  /** A practical threshold: a change smaller than this (in the metric's units) is never a verdict. */
  minEffect: number;
  /** Family-wise (Holm, default) or false-discovery-rate (Benjamini–Hochberg) correction. */
  correction: 'holm' | 'bh';
  /** Two-sided level (default 0.05). */
  alpha: number;
  /** Mid-p McNemar (less conservative). */
  midP: boolean;
  resamples: number;
}

export const DEFAULT_COMPARE_OPTIONS: CompareOptions = {
  seed: 1,
  minEffect: 0,
  correction: 'holm',
  alpha: 0.05,
  midP: false,
  resamples: 10_000,
};

/** One metric of one prompt × provider cell, compared. */
export interface MetricComparison {
  cell: { promptLabel: string; providerId: string };
  /** `pass rate` (share of a case's trials that passed) or `score` (mean score). */
  metric: 'pass rate' | 'score';
  pairs: number;
  baseline: number;
  candidate: number;
  /** candidate − baseline, mean over pairs. */
  delta: number;
  low: number;
  high: number;
  /** The test used: `McNemar exact` (one trial a case, pass/fail) or `sign-flip permutation`. */
  test: string;
  p: number;
  /** p after the correction for the number of comparisons. */
  pAdjusted: number;
  /** Discordant pairs (pass rate with one trial a case): passed before and not now, and the reverse. */
  discordant?: { regressed: number; improved: number };
  /** The smallest change this many pairs could detect at 80% power and this level. */
  minimumDetectable: number;
  /** Error trials among the paired cases (they count as not passing; never dropped). */
  errors: { baseline: number; candidate: number };
  verdict: Verdict;
}

/** A case whose outcome changed, with both outputs. */
export interface FlippedCase {
  caseRef: string;
  description?: string;
  vars: Record<string, unknown>;
  promptLabel: string;
  providerId: string;
  baseline: { passRate: number; output: string | null; reason: string };
  candidate: { passRate: number; output: string | null; reason: string };
}

export interface Comparison {
  options: CompareOptions;
  pairs: number;
  /** Cases (× prompt × provider) only one side has. */
  onlyBaseline: { caseRef: string; description?: string; promptLabel: string; providerId: string }[];
  onlyCandidate: { caseRef: string; description?: string; promptLabel: string; providerId: string }[];
  metrics: MetricComparison[];
  /** Passing before, not now (pass rate fell); and the reverse. */
  regressions: FlippedCase[];
  fixes: FlippedCase[];
  /** Trials per case on each side (1 when not repeated). */
  trials: { baseline: number; candidate: number };
  /** Share of cases whose trials disagree, on each side (repeated runs only). */
  flaky?: { baseline: number; candidate: number };
  /** pass@k and pass^k over the paired cases, on each side (repeated runs only). */
  atK?: {
    k: number;
    baseline: { passAtK: number; passHatK: number };
    candidate: { passAtK: number; passHatK: number };
  }[];
  verdict: Verdict;
  /** Set when cases paired across a single differing provider or prompt on each side: what became what. */
  across?: { provider?: [string, string]; prompt?: [string, string] };
  /** Each side's own summaries, side by side, where both runs have them (from their logs). */
  views?: ComparisonViews;
  /**
   * Set when a side is not a whole run (interrupted, aborted, a shard) and the comparison was
   * asked for anyway (`--allow-partial`): how whole each side is. Such a comparison is never
   * unchanged or improved (see markIncomplete).
   */
  incomplete?: string[];
}

/**
 * A comparison of runs that are not both whole: the cases never run may be the ones that moved,
 * so it is inconclusive (a regression among the cases run stays a regression), with the reasons.
 */
export function markIncomplete(c: Comparison, reasons: string[]): void {
  c.incomplete = reasons;
  if (c.verdict !== 'regressed') c.verdict = 'inconclusive';
}

/** The suite's own summaries of both runs, side by side: breakdowns by metadata, a weighted score. */
export interface ComparisonViews {
  breakdowns: {
    by: string;
    groups: { value: string; baseline?: number; candidate?: number }[];
  }[];
  weighted?: {
    name: string;
    groupBy: string;
    scale: number;
    groups: { value: string; baseline?: number; candidate?: number }[];
    baseline: number;
    candidate: number;
  };
}

/**
 * Both runs' breakdowns (pass rate per metadata value) and weighted score (per group and total, as
 * the suite rounds it: ÈwéBench's per-category table and ÈwéScore), where both scorecards have them.
 */
export function compareViews(baseline: Scorecard, candidate: Scorecard): ComparisonViews | undefined {
  const breakdowns: ComparisonViews['breakdowns'] = [];
  for (const b of baseline.breakdowns ?? []) {
    const c = candidate.breakdowns?.find((x) => x.by === b.by);
    if (!c) continue;
    const values = [...new Set([...b.groups.map((g) => g.value), ...c.groups.map((g) => g.value)])].sort();
    breakdowns.push({
      by: b.by,
      groups: values.map((value) => ({
        value,
        baseline: b.groups.find((g) => g.value === value)?.passRate.value,
        candidate: c.groups.find((g) => g.value === value)?.passRate.value,
      })),
    });
  }
  const wb = baseline.weightedScore;
  const wc = candidate.weightedScore;
  let weighted: ComparisonViews['weighted'];
  if (wb && wc && wb.name === wc.name && wb.groupBy === wc.groupBy) {
    const figure = (g: WeightedGroup | undefined, scale: number): number | undefined =>
      g === undefined || g.total === 0 ? undefined : (g.rounded ?? g.meanScore.value * scale);
    const values = [...new Set([...wb.groups.map((g) => g.value), ...wc.groups.map((g) => g.value)])];
    weighted = {
      name: wb.name,
      groupBy: wb.groupBy,
      scale: wb.scale,
      groups: values.map((value) => ({
        value,
        baseline: figure(
          wb.groups.find((g) => g.value === value),
          wb.scale,
        ),
        candidate: figure(
          wc.groups.find((g) => g.value === value),
          wc.scale,
        ),
      })),
      baseline: wb.rounded ?? wb.score.value * wb.scale,
      candidate: wc.rounded ?? wc.score.value * wc.scale,
    };
  }
  if (breakdowns.length === 0 && !weighted) return undefined;
  return { breakdowns, ...(weighted ? { weighted } : {}) };
}

/** Which dimensions pair across a change: each side has one value of it, and they differ. */
function acrossOf(
  baseline: Map<string, CaseRecord>,
  candidate: Map<string, CaseRecord>,
): { prompt: boolean; provider: boolean; shown: NonNullable<Comparison['across']> } {
  const values = (m: Map<string, CaseRecord>, f: (r: CaseRecord) => string) =>
    new Set([...m.values()].map(f));
  const shown: NonNullable<Comparison['across']> = {};
  const one = (f: (r: CaseRecord) => string): [string, string] | undefined => {
    const a = values(baseline, f);
    const b = values(candidate, f);
    return a.size === 1 && b.size === 1 && [...a][0] !== [...b][0] ? [[...a][0], [...b][0]] : undefined;
  };
  const provider = one((r) => r.providerId);
  const prompt = one((r) => r.promptLabel);
  if (provider) shown.provider = provider;
  if (prompt) shown.prompt = prompt;
  return { prompt: prompt !== undefined, provider: provider !== undefined, shown };
}

function cellKey(c: CaseRecord): string {
  return `${c.promptLabel}\u0000${c.providerId}`;
}

function brief(c: CaseRecord): {
  caseRef: string;
  description?: string;
  promptLabel: string;
  providerId: string;
} {
  return {
    caseRef: c.caseRef,
    ...(c.description !== undefined ? { description: c.description } : {}),
    promptLabel: c.promptLabel,
    providerId: c.providerId,
  };
}

/** Compares a candidate run with a baseline run, both reduced per case (see readCaseRecords). */
export function compareRuns(
  baseline: Map<string, CaseRecord>,
  candidate: Map<string, CaseRecord>,
  options: Partial<CompareOptions> = {},
  ks: number[] = [],
): Comparison {
  const opts: CompareOptions = { ...DEFAULT_COMPARE_OPTIONS, ...options };
  // Comparing one model (or one prompt) with another: when each side has a single provider (or a
  // single prompt label) and they differ, cases pair across them.
  const across = acrossOf(baseline, candidate);
  const keyOf = (r: CaseRecord): string =>
    `${r.caseRef}\u0000${across.prompt ? '' : r.promptLabel}\u0000${across.provider ? '' : r.providerId}`;
  const candidates = new Map([...candidate.values()].map((c) => [keyOf(c), c]));
  const baselineKeys = new Set<string>();
  const pairs: [CaseRecord, CaseRecord][] = [];
  const onlyBaseline: Comparison['onlyBaseline'] = [];
  for (const b of baseline.values()) {
    const key = keyOf(b);
    baselineKeys.add(key);
    const c = candidates.get(key);
    if (c) pairs.push([b, c]);
    else onlyBaseline.push(brief(b));
  }
  const onlyCandidate = [...candidate.values()].filter((c) => !baselineKeys.has(keyOf(c))).map(brief);

  const cells = new Map<string, [CaseRecord, CaseRecord][]>();
  for (const pair of pairs) {
    const key = cellKey(pair[0]);
    const list = cells.get(key) ?? [];
    list.push(pair);
    cells.set(key, list);
  }
  const metrics: MetricComparison[] = [];
  for (const list of cells.values()) {
    metrics.push(compareMetric(list, 'pass rate', passFraction, opts));
    // Where every score is its case's pass rate (pass/fail checks score 1 or 0), the score says
    // nothing more: comparing it too would only double the correction.
    const graded = list.some(([b, c]) => b.meanScore !== passFraction(b) || c.meanScore !== passFraction(c));
    if (graded) metrics.push(compareMetric(list, 'score', (c) => c.meanScore, opts));
  }
  const adjusted = (opts.correction === 'bh' ? benjaminiHochberg : holm)(metrics.map((m) => m.p));
  for (const [i, m] of metrics.entries()) {
    m.pAdjusted = adjusted[i];
    m.verdict = judge(m, opts);
  }

  const regressions: FlippedCase[] = [];
  const fixes: FlippedCase[] = [];
  for (const [b, c] of pairs) {
    const before = passFraction(b);
    const after = passFraction(c);
    if (after < before) regressions.push(flipped(b, c));
    else if (after > before) fixes.push(flipped(b, c));
  }
  const trials = { baseline: maxTrials(baseline), candidate: maxTrials(candidate) };
  const comparison: Comparison = {
    options: opts,
    pairs: pairs.length,
    onlyBaseline,
    onlyCandidate,
    metrics,
    regressions,
    fixes,
    trials,
    verdict: overall(metrics),
  };
  if (across.prompt || across.provider) comparison.across = across.shown;
  if (trials.baseline > 1 || trials.candidate > 1) {
    comparison.flaky = {
      baseline: share(
        pairs.map(([b]) => b),
        isFlaky,
      ),
      candidate: share(
        pairs.map(([, c]) => c),
        isFlaky,
      ),
    };
    const wanted = ks.length > 0 ? ks : [Math.min(trials.baseline, trials.candidate)];
    comparison.atK = wanted
      .map((k) => ({
        k,
        baseline: meanAtK(
          pairs.map(([b]) => b),
          k,
        ),
        candidate: meanAtK(
          pairs.map(([, c]) => c),
          k,
        ),
      }))
      .filter(
        (a): a is NonNullable<Comparison['atK']>[number] =>
          a.baseline !== undefined && a.candidate !== undefined,
      );
  }
  return comparison;
}

function maxTrials(records: Map<string, CaseRecord>): number {
  let n = 0;
  for (const r of records.values()) n = Math.max(n, r.trials);
  return n;
}

function share(records: CaseRecord[], test: (c: CaseRecord) => boolean): number {
  return records.length > 0 ? records.filter(test).length / records.length : 0;
}

function meanAtK(records: CaseRecord[], k: number): { passAtK: number; passHatK: number } | undefined {
  let a = 0;
  let h = 0;
  for (const r of records) {
    const at = caseAtK(r, k);
    if (!at) return undefined;
    a += at.passAtK;
    h += at.passHatK;
  }
  return records.length > 0 ? { passAtK: a / records.length, passHatK: h / records.length } : undefined;
}

function flipped(b: CaseRecord, c: CaseRecord): FlippedCase {
  return {
    caseRef: b.caseRef,
    ...(b.description !== undefined ? { description: b.description } : {}),
    vars: b.vars,
    promptLabel: b.promptLabel,
    providerId: b.providerId,
    baseline: { passRate: passFraction(b), output: b.output, reason: b.reason },
    candidate: { passRate: passFraction(c), output: c.output, reason: c.reason },
  };
}

function compareMetric(
  list: [CaseRecord, CaseRecord][],
  metric: MetricComparison['metric'],
  value: (c: CaseRecord) => number,
  opts: CompareOptions,
): MetricComparison {
  const deltas = list.map(([b, c]) => value(c) - value(b));
  const n = list.length;
  const baseline = list.reduce((s, [b]) => s + value(b), 0) / n;
  const candidate = list.reduce((s, [, c]) => s + value(c), 0) / n;
  const interval = pairedBootstrap(deltas, { seed: opts.seed, resamples: opts.resamples });
  // One trial a case and a pass/fail metric: the outcome is binary, and McNemar's exact test on the
  // discordant cases is the test. Otherwise the differences are graded: a sign-flip permutation test.
  const binary =
    metric === 'pass rate' && list.every(([b, c]) => b.trials - b.skipped <= 1 && c.trials - c.skipped <= 1);
  let p: number;
  let test: string;
  let discordant: MetricComparison['discordant'];
  if (binary) {
    const regressed = deltas.filter((d) => d < 0).length;
    const improved = deltas.filter((d) => d > 0).length;
    discordant = { regressed, improved };
    p = mcnemarExact(regressed, improved, { midP: opts.midP });
    test = opts.midP ? 'McNemar exact (mid-p)' : 'McNemar exact';
  } else {
    p = signFlipTest(deltas, { seed: opts.seed, resamples: opts.resamples });
    test = 'sign-flip permutation';
  }
  // With no variation observed, the suite could still not see a change smaller than one case in n.
  const sd = sampleSd(deltas);
  const minimumDetectable = minimumDetectableEffect(sd > 0 ? sd : 1 / Math.sqrt(n), n, { alpha: opts.alpha });
  return {
    cell: { promptLabel: list[0][0].promptLabel, providerId: list[0][0].providerId },
    metric,
    pairs: n,
    baseline,
    candidate,
    delta: interval.delta,
    low: interval.low,
    high: interval.high,
    test,
    p,
    pAdjusted: p,
    ...(discordant ? { discordant } : {}),
    minimumDetectable,
    errors: {
      baseline: list.reduce((n, [b]) => n + b.errors, 0),
      candidate: list.reduce((n, [, c]) => n + c.errors, 0),
    },
    verdict: 'inconclusive',
  };
}

/**
 * The verdict of one comparison: unchanged when no case moved; regressed (improved) when the
 * corrected p is below α and the whole interval lies below −minEffect (above +minEffect);
 * inconclusive otherwise.
 */
function judge(m: MetricComparison, opts: CompareOptions): Verdict {
  if (m.delta === 0 && m.low === 0 && m.high === 0) return 'unchanged';
  if (m.pAdjusted < opts.alpha && m.high < -opts.minEffect) return 'regressed';
  if (m.pAdjusted < opts.alpha && m.low > opts.minEffect) return 'improved';
  return 'inconclusive';
}

/** Any regression is a regression; then any improvement; all unchanged is unchanged; else inconclusive. */
function overall(metrics: MetricComparison[]): Verdict {
  if (metrics.some((m) => m.verdict === 'regressed')) return 'regressed';
  if (metrics.some((m) => m.verdict === 'improved')) return 'improved';
  if (metrics.every((m) => m.verdict === 'unchanged')) return 'unchanged';
  return 'inconclusive';
}
