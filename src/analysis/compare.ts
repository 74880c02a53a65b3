// `assay compare`: two runs paired case by case, each prompt × provider cell and metric judged
// regressed / improved / inconclusive / unchanged with statistics that respect the pairing
// (exact McNemar on discordant cases with Tango's score interval made to agree with it, a seeded
// sign-flip or within-case permutation test and a studentized paired bootstrap on per-case
// differences), corrected for the number of comparisons,
// with the smallest change the test used could have detected. A case judged on one side only, a
// prompt or provider that fell out and errors that could decide the verdict are said, never
// judged as the model's doing. Works from run logs only, whatever format the runs came from.
import type { Scorecard, WeightedGroup } from '../core/scorecard.js';
import { type CaseRecord, caseAtK, isFlaky, judgedTrials, outcomesOf, passFraction } from './cases.js';
import {
  benjaminiHochberg,
  holm,
  mcnemarExact,
  mcnemarMinimumDetectable,
  minimumDetectableEffect,
  pairedProportionInterval,
  sampleSd,
  signFlipTest,
  studentizedBootstrap,
  withinCasePermutationTest,
} from './paired.js';

/**
 * `cannot-judge`: errors (trials with no verdict) are enough that the verdict would differ had
 * they passed or had they failed, so the gate cannot say the model changed.
 */
export type Verdict = 'regressed' | 'improved' | 'inconclusive' | 'unchanged' | 'cannot-judge';

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
  /**
   * The 95% interval of `delta`: for the pass rate with one trial a case, Tango's score interval made
   * to agree with exact McNemar about 0 (it contains 0 exactly when p ≥ α); otherwise the
   * studentized paired bootstrap.
   */
  low: number;
  high: number;
  /**
   * The interval at the level the correction for several comparisons leaves this one,
   * 1 − α·p/pAdjusted (the 95% one when there is one comparison): for the pass rate it contains 0
   * exactly when the corrected p is at least α. The verdict and `--min-effect` read it.
   */
  corrected: { level: number; low: number; high: number };
  /** Paired cases whose value of the metric went down, and up (none either way: unchanged). */
  moved: { down: number; up: number };
  /**
   * The test used: `McNemar exact` (one trial a case, pass/fail), `sign-flip permutation` (the
   * same number of trials on both sides) or `within-case permutation` (different numbers).
   */
  test: string;
  p: number;
  /** p after the correction for the number of comparisons. */
  pAdjusted: number;
  /** Discordant pairs (pass rate with one trial a case): passed before and not now, and the reverse. */
  discordant?: { regressed: number; improved: number };
  /**
   * The smallest change the test used could detect with 80% power at level α/m (m comparisons:
   * the strictest step of the correction): exact McNemar power for a pass/fail metric, and for
   * graded differences the normal approximation from their spread (when nothing moved, the
   * McNemar bound: cases each moving a whole unit, the same way).
   */
  minimumDetectable: number;
  /** Error trials among the paired cases (they count as not passing; never dropped). */
  errors: { baseline: number; candidate: number };
  /**
   * With errors: the same comparison had every error trial of the candidate passed and every one
   * of the baseline failed (`best`, for the candidate), and the reverse (`worst`). Errors both
   * sides of a case had (the same share of its trials on each side) stay as recorded: only unmatched ones vary.
   */
  errorBounds?: { best: ErrorBound; worst: ErrorBound };
  /** Set when every paired trial of both sides was an error: nothing was judged (never unchanged). */
  nothingJudged?: true;
  verdict: Verdict;
}

/** A comparison redone with the error trials given one outcome (see MetricComparison.errorBounds). */
export interface ErrorBound {
  delta: number;
  low: number;
  high: number;
  corrected: { level: number; low: number; high: number };
  moved: { down: number; up: number };
  p: number;
  pAdjusted: number;
  verdict: Verdict;
}

/** A case of one side, briefly. */
export interface CaseBrief {
  caseRef: string;
  description?: string;
  promptLabel: string;
  providerId: string;
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
  onlyBaseline: CaseBrief[];
  onlyCandidate: CaseBrief[];
  /**
   * Cases both runs have but only one judged (every trial of the other side skipped, e.g. scored
   * with embeddings on one side and without on the other), or neither: unpaired, never a failure.
   */
  unjudged: (CaseBrief & { judgedIn: 'baseline' | 'candidate' | 'neither' })[];
  /** Prompt × provider columns of a run that no paired case compares: the verdict cannot be `unchanged` or `improved`. */
  fellOut: { promptLabel: string; providerId: string; side: 'baseline' | 'candidate' }[];
  /** How prompts paired beyond their labels: by position (unlabeled, text changed) and shared labels told apart. */
  prompts?: {
    byPosition?: { position: number; baseline: string; candidate: string }[];
    sharedLabels?: { side: 'baseline' | 'candidate'; label: string; prompts: number }[];
  };
  /** Why the verdict is what it is, when it is not the metrics' own (errors, columns that fell out, no judged pair). */
  why?: string;
  metrics: MetricComparison[];
  /** Passing before, not now (pass rate fell); and the reverse. */
  regressions: FlippedCase[];
  fixes: FlippedCase[];
  /** Trials per case on each side (1 when not repeated). */
  trials: { baseline: number; candidate: number };
  /** Share of cases whose trials disagree, on each side (repeated runs only). */
  flaky?: { baseline: number; candidate: number };
  /**
   * pass@k and pass^k on each side (repeated runs only), averaged over the paired cases with at
   * least k judged trials on both sides (`cases`); `leftOut` counts the paired cases with fewer.
   */
  atK?: {
    k: number;
    cases: number;
    leftOut: number;
    baseline: { passAtK: number; passHatK: number };
    candidate: { passAtK: number; passHatK: number };
  }[];
  /** k asked for (`--pass-at`) that no paired case has enough judged trials for on both sides. */
  atKDropped?: number[];
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
 * so no verdict in it is unchanged or improved — the run's, each metric's, and each error bound's
 * (a regression among the cases run stays a regression, and errors that decide the verdict stay
 * "cannot judge"); the reasons are kept.
 */
export function markIncomplete(c: Comparison, reasons: string[]): void {
  c.incomplete = reasons;
  const partial = (v: Verdict): Verdict => (v === 'unchanged' || v === 'improved' ? 'inconclusive' : v);
  c.verdict = partial(c.verdict);
  for (const m of c.metrics) {
    m.verdict = partial(m.verdict);
    if (m.errorBounds) {
      m.errorBounds.best.verdict = partial(m.errorBounds.best.verdict);
      m.errorBounds.worst.verdict = partial(m.errorBounds.worst.verdict);
    }
  }
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

type Side = 'baseline' | 'candidate';

/** A run's prompts, told apart by id: label, position in the run and whether it is unlabeled. */
interface PromptInfo {
  id: string;
  label: string;
  position: number;
  unlabeled: boolean;
}

function promptsOfRun(records: Map<string, CaseRecord>): PromptInfo[] {
  const byId = new Map<string, PromptInfo>();
  for (const r of records.values()) {
    const id = r.promptId ?? r.promptLabel;
    if (!byId.has(id))
      byId.set(id, {
        id,
        label: r.promptLabel,
        position: r.promptPosition ?? byId.size,
        unlabeled: r.promptUnlabeled ?? false,
      });
  }
  return [...byId.values()].sort((a, b) => a.position - b.position);
}

/**
 * Which prompt of each run pairs with which: the name each prompt pairs under (its "slot"). Prompts
 * pair by label; a label two prompts of one run share is told apart by its order among them
 * (`label #2`), and said. Prompts left over on each side pair across when each run has a single
 * prompt (model-to-prompt comparisons), or by position when every one left is unlabeled (its label
 * is its text, so editing the text changed it), both runs have as many prompts, and the leftovers
 * stand at the same positions; that is said too.
 */
function pairPrompts(
  baseline: Map<string, CaseRecord>,
  candidate: Map<string, CaseRecord>,
): {
  slot: Record<Side, Map<string, string>>;
  across?: [string, string];
  byPosition: { position: number; baseline: string; candidate: string }[];
  sharedLabels: { side: Side; label: string; prompts: number }[];
} {
  const sides: Record<Side, PromptInfo[]> = {
    baseline: promptsOfRun(baseline),
    candidate: promptsOfRun(candidate),
  };
  const slot: Record<Side, Map<string, string>> = { baseline: new Map(), candidate: new Map() };
  const sharedLabels: { side: Side; label: string; prompts: number }[] = [];
  for (const side of ['baseline', 'candidate'] as const) {
    const count = new Map<string, number>();
    for (const p of sides[side]) count.set(p.label, (count.get(p.label) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const p of sides[side]) {
      const n = count.get(p.label) ?? 1;
      const ordinal = (seen.get(p.label) ?? 0) + 1;
      seen.set(p.label, ordinal);
      slot[side].set(p.id, n > 1 ? `${p.label} #${ordinal}` : p.label);
      if (n > 1 && ordinal === 1) sharedLabels.push({ side, label: p.label, prompts: n });
    }
  }
  const slots = (side: Side) => new Set(slot[side].values());
  const left = (side: Side, other: Side) =>
    sides[side].filter((p) => !slots(other).has(slot[side].get(p.id) as string));
  const leftBaseline = left('baseline', 'candidate');
  const leftCandidate = left('candidate', 'baseline');
  const byPosition: { position: number; baseline: string; candidate: string }[] = [];
  let across: [string, string] | undefined;
  if (leftBaseline.length > 0 && leftBaseline.length === leftCandidate.length) {
    if (sides.baseline.length === 1 && sides.candidate.length === 1) {
      across = [leftBaseline[0].label, leftCandidate[0].label];
      slot.candidate.set(leftCandidate[0].id, slot.baseline.get(leftBaseline[0].id) as string);
    } else if (
      sides.baseline.length === sides.candidate.length &&
      [...leftBaseline, ...leftCandidate].every((p) => p.unlabeled) &&
      leftBaseline.every((b, i) => b.position === leftCandidate[i].position)
    ) {
      for (const [i, b] of leftBaseline.entries()) {
        const c = leftCandidate[i];
        slot.candidate.set(c.id, slot.baseline.get(b.id) as string);
        byPosition.push({ position: b.position + 1, baseline: b.label, candidate: c.label });
      }
    }
  }
  return { slot, ...(across ? { across } : {}), byPosition, sharedLabels };
}

/** When each run has a single provider and they differ, the two providers (cases pair across them). */
function providersAcross(
  baseline: Map<string, CaseRecord>,
  candidate: Map<string, CaseRecord>,
): [string, string] | undefined {
  const a = new Set([...baseline.values()].map((r) => r.providerId));
  const b = new Set([...candidate.values()].map((r) => r.providerId));
  return a.size === 1 && b.size === 1 && [...a][0] !== [...b][0] ? [[...a][0], [...b][0]] : undefined;
}

function brief(c: CaseRecord, promptLabel = c.promptLabel): CaseBrief {
  return {
    caseRef: c.caseRef,
    ...(c.description !== undefined ? { description: c.description } : {}),
    promptLabel,
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
  // single prompt) and they differ, cases pair across them.
  const prompts = pairPrompts(baseline, candidate);
  const providers = providersAcross(baseline, candidate);
  const slotOf = (side: Side, r: CaseRecord): string =>
    prompts.slot[side].get(r.promptId ?? r.promptLabel) ?? r.promptLabel;
  const cellOf = (side: Side, r: CaseRecord): string =>
    `${slotOf(side, r)}\u0000${providers ? '' : r.providerId}`;
  const keyOf = (side: Side, r: CaseRecord): string => `${r.caseRef}\u0000${cellOf(side, r)}`;
  const candidates = new Map([...candidate.values()].map((c) => [keyOf('candidate', c), c]));
  const baselineKeys = new Set<string>();
  const pairs: [CaseRecord, CaseRecord][] = [];
  const onlyBaseline: CaseBrief[] = [];
  const unjudged: Comparison['unjudged'] = [];
  const pairedCells = new Set<string>();
  for (const b of baseline.values()) {
    const key = keyOf('baseline', b);
    baselineKeys.add(key);
    const c = candidates.get(key);
    if (!c) {
      onlyBaseline.push(brief(b, slotOf('baseline', b)));
      continue;
    }
    // A case with no judged trial on a side (all skipped) was not judged there: unpaired, not a failure.
    const jb = judgedTrials(b) > 0;
    const jc = judgedTrials(c) > 0;
    if (jb && jc) {
      pairs.push([b, c]);
      pairedCells.add(cellOf('baseline', b));
    } else
      unjudged.push({
        ...brief(b, slotOf('baseline', b)),
        judgedIn: jb ? 'baseline' : jc ? 'candidate' : 'neither',
      });
  }
  const onlyCandidate = [...candidate.values()]
    .filter((c) => !baselineKeys.has(keyOf('candidate', c)))
    .map((c) => brief(c, slotOf('candidate', c)));
  // A prompt × provider column of either run that no pair compares fell out of the comparison.
  const fellOut: Comparison['fellOut'] = [];
  for (const [side, records] of [
    ['baseline', baseline],
    ['candidate', candidate],
  ] as const) {
    const seen = new Set<string>();
    for (const r of records.values()) {
      const cell = cellOf(side, r);
      if (pairedCells.has(cell) || seen.has(cell)) continue;
      seen.add(cell);
      fellOut.push({ promptLabel: slotOf(side, r), providerId: r.providerId, side });
    }
  }

  const cells = new Map<string, [CaseRecord, CaseRecord][]>();
  for (const pair of pairs) {
    const key = cellOf('baseline', pair[0]);
    const list = cells.get(key) ?? [];
    list.push(pair);
    cells.set(key, list);
  }
  const compared: Compared[] = [];
  for (const list of cells.values()) {
    const label = slotOf('baseline', list[0][0]);
    compared.push(compareMetric(list, 'pass rate', label, opts));
    // Where every score is its case's pass rate (pass/fail checks score 1 or 0), the score says
    // nothing more: comparing it too would only double the correction.
    const graded = list.some(([b, c]) => b.meanScore !== passFraction(b) || c.meanScore !== passFraction(c));
    if (graded) compared.push(compareMetric(list, 'score', label, opts));
  }
  const metrics = compared.map((x) => x.m);
  const correct = opts.correction === 'bh' ? benjaminiHochberg : holm;
  const adjusted = correct(metrics.map((m) => m.p));
  for (const [i, m] of metrics.entries()) m.pAdjusted = adjusted[i];
  // The error bounds are each a whole scenario (every error of every column a pass, or a fail), corrected as a family.
  for (const bound of ['best', 'worst'] as const) {
    const p = correct(metrics.map((m) => m.errorBounds?.[bound].p ?? m.p));
    for (const [i, m] of metrics.entries()) if (m.errorBounds) m.errorBounds[bound].pAdjusted = p[i];
  }
  // The minimum detectable change at the strictest level the correction may ask: α/m.
  const alphaEach = opts.alpha / Math.max(1, metrics.length);
  for (const { m, deltas, intervals } of compared) {
    m.corrected = correctedInterval(intervals.recorded, m, opts);
    if (m.errorBounds && intervals.best && intervals.worst) {
      m.errorBounds.best.corrected = correctedInterval(intervals.best, m.errorBounds.best, opts);
      m.errorBounds.worst.corrected = correctedInterval(intervals.worst, m.errorBounds.worst, opts);
    }
    m.minimumDetectable = minimumDetectableFromDeltas(deltas, m.discordant !== undefined, alphaEach, opts);
    m.verdict = judgeWithErrors(m, opts);
  }

  const regressions: FlippedCase[] = [];
  const fixes: FlippedCase[] = [];
  for (const [b, c] of pairs) {
    const before = passFraction(b);
    const after = passFraction(c);
    if (after < before) regressions.push(flipped(b, c, slotOf('baseline', b)));
    else if (after > before) fixes.push(flipped(b, c, slotOf('baseline', b)));
  }
  const trials = { baseline: maxTrials(baseline), candidate: maxTrials(candidate) };
  const { verdict, why } = overall(metrics, fellOut, unjudged);
  const comparison: Comparison = {
    options: opts,
    pairs: pairs.length,
    onlyBaseline,
    onlyCandidate,
    unjudged,
    fellOut,
    metrics,
    regressions,
    fixes,
    trials,
    verdict,
    ...(why ? { why } : {}),
  };
  if (prompts.byPosition.length > 0 || prompts.sharedLabels.length > 0)
    comparison.prompts = {
      ...(prompts.byPosition.length > 0 ? { byPosition: prompts.byPosition } : {}),
      ...(prompts.sharedLabels.length > 0 ? { sharedLabels: prompts.sharedLabels } : {}),
    };
  if (prompts.across || providers)
    comparison.across = {
      ...(providers ? { provider: providers } : {}),
      ...(prompts.across ? { prompt: prompts.across } : {}),
    };
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
    comparison.atK = [];
    const dropped: number[] = [];
    for (const k of wanted) {
      // As the scorecard: the mean over the cases with at least k judged trials (here on both sides).
      const eligible = pairs.filter(([b, c]) => caseAtK(b, k) && caseAtK(c, k));
      if (eligible.length === 0) {
        dropped.push(k);
        continue;
      }
      comparison.atK.push({
        k,
        cases: eligible.length,
        leftOut: pairs.length - eligible.length,
        baseline: meanAtK(
          eligible.map(([b]) => b),
          k,
        ),
        candidate: meanAtK(
          eligible.map(([, c]) => c),
          k,
        ),
      });
    }
    if (dropped.length > 0) comparison.atKDropped = dropped;
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

/** Mean pass@k and pass^k over cases that each have at least k judged trials. */
function meanAtK(records: CaseRecord[], k: number): { passAtK: number; passHatK: number } {
  let a = 0;
  let h = 0;
  for (const r of records) {
    const at = caseAtK(r, k);
    if (!at) throw new Error(`pass@${k} of a case with fewer judged trials`);
    a += at.passAtK;
    h += at.passHatK;
  }
  return { passAtK: a / records.length, passHatK: h / records.length };
}

function flipped(b: CaseRecord, c: CaseRecord, promptLabel: string): FlippedCase {
  return {
    caseRef: b.caseRef,
    ...(b.description !== undefined ? { description: b.description } : {}),
    vars: b.vars,
    promptLabel,
    providerId: b.providerId,
    baseline: { passRate: passFraction(b), output: b.output, reason: b.reason },
    candidate: { passRate: passFraction(c), output: c.output, reason: c.reason },
  };
}

/** How error trials are valued: as recorded (errors do not pass; they score what they scored), all passing, or all failing. */
type ErrorsAs = 'recorded' | 'pass' | 'fail';

/** A case's judged trials as values of a metric (1/0 for the pass rate, the score for the score). */
function trialValues(
  c: CaseRecord,
  metric: MetricComparison['metric'],
  errorsAs: ErrorsAs,
  kept: number,
): number[] {
  let seen = 0;
  return outcomesOf(c).map((o) => {
    // The first `kept` errors stay as recorded: the ones the other side's case matches.
    if (o.error && errorsAs !== 'recorded' && seen++ >= kept) return errorsAs === 'pass' ? 1 : 0;
    return metric === 'pass rate' ? (o.pass ? 1 : 0) : o.score;
  });
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length > 0 ? s / xs.length : 0;
}

/** An interval of a metric's change at a level; `rejectsZero`: the test's own verdict about 0 at that level. */
type IntervalAt = (level: number, rejectsZero: boolean) => { low: number; high: number };

/** One metric compared, with what the correction needs afterwards (not part of the comparison's JSON). */
interface Compared {
  m: MetricComparison;
  deltas: number[];
  intervals: { recorded: IntervalAt; best?: IntervalAt; worst?: IntervalAt };
}

/**
 * The interval at the level the correction leaves a comparison, 1 − α·p/pAdjusted: p is below
 * α·p/pAdjusted exactly when pAdjusted is below α, so this interval and the corrected p agree
 * about 0 as the 95% interval and p do.
 */
function correctedInterval(
  at: IntervalAt,
  t: { p: number; pAdjusted: number },
  opts: CompareOptions,
): { level: number; low: number; high: number } {
  const level = t.pAdjusted > 0 ? 1 - (opts.alpha * t.p) / t.pAdjusted : 1 - opts.alpha;
  return { level, ...at(level, t.pAdjusted < opts.alpha) };
}

/** The test of one metric over the pairs, with its errors valued one way per side. */
function testMetric(
  list: [CaseRecord, CaseRecord][],
  metric: MetricComparison['metric'],
  errorsAs: { baseline: ErrorsAs; candidate: ErrorsAs },
  opts: CompareOptions,
): {
  baseline: number;
  candidate: number;
  delta: number;
  low: number;
  high: number;
  p: number;
  test: string;
  deltas: number[];
  moved: { down: number; up: number };
  at: IntervalAt;
  discordant?: { regressed: number; improved: number };
} {
  const trials = list.map(([b, c]) => {
    // Errors both sides of a case had are the same unknown on both: only the ones beyond what the
    // other side matched can pass for a change of the model, and only those are varied. They are
    // matched by share of the case's judged trials (1 error of 1 trial matches 10 of 10), so with
    // unequal trial counts a case that errors in every trial on both sides still moves nothing.
    // Whole trials only, rounded down and to one share on both sides (never more matched than is).
    const nb = judgedTrials(b);
    const nc = judgedTrials(c);
    const whole = (x: number): number => Math.floor(x + 1e-9);
    const first = Math.min(b.errors / nb, c.errors / nc);
    const share = Math.min(whole(first * nb) / nb, whole(first * nc) / nc);
    return {
      baseline: trialValues(b, metric, errorsAs.baseline, whole(share * nb)),
      candidate: trialValues(c, metric, errorsAs.candidate, whole(share * nc)),
    };
  });
  const before = trials.map((t) => mean(t.baseline));
  const after = trials.map((t) => mean(t.candidate));
  const deltas = after.map((a, i) => a - before[i]);
  const moved = {
    down: deltas.filter((d) => d < 0).length,
    up: deltas.filter((d) => d > 0).length,
  };
  // One judged trial a case and a pass/fail metric: the outcome is binary, and McNemar's exact test
  // on the discordant cases is the test, with Tango's score interval made to agree with it (a
  // bootstrap of few moved cases excluded 0 beside p = 0.25). Otherwise the differences are
  // graded: a sign-flip test when both sides ran as many trials of each case, else a permutation
  // of the trials within each case (a sign flip assumes the two means of a case are alike in
  // spread; 1 trial against 10 is not), with the studentized bootstrap interval.
  const binary =
    metric === 'pass rate' && trials.every((t) => t.baseline.length === 1 && t.candidate.length === 1);
  if (binary) {
    const { down: regressed, up: improved } = moved;
    const n = deltas.length;
    const at: IntervalAt = (level, rejectsZero) =>
      pairedProportionInterval(regressed, improved, n, { level, midP: opts.midP, rejectsZero });
    const p = mcnemarExact(regressed, improved, { midP: opts.midP });
    return {
      baseline: mean(before),
      candidate: mean(after),
      delta: mean(deltas),
      ...at(1 - opts.alpha, p < opts.alpha),
      p,
      test: opts.midP ? 'McNemar exact (mid-p)' : 'McNemar exact',
      deltas,
      moved,
      at,
      discordant: { regressed, improved },
    };
  }
  // The interval is clamped to what a mean difference can be: ±1 for a pass rate, the observed
  // range of the case values for a score.
  let lowest = Number.POSITIVE_INFINITY;
  let highest = Number.NEGATIVE_INFINITY;
  for (const x of [...before, ...after]) {
    lowest = Math.min(lowest, x);
    highest = Math.max(highest, x);
  }
  const spread = metric === 'pass rate' ? 1 : highest - lowest;
  const bootstrap = studentizedBootstrap(deltas, {
    seed: opts.seed,
    resamples: opts.resamples,
    bounds: [-spread, spread],
  });
  const at: IntervalAt = (level) => bootstrap.at(level);
  const balanced = trials.every((t) => t.baseline.length === t.candidate.length);
  return {
    baseline: mean(before),
    candidate: mean(after),
    delta: bootstrap.delta,
    ...bootstrap.at(1 - opts.alpha),
    p: balanced
      ? signFlipTest(deltas, { seed: opts.seed, resamples: opts.resamples })
      : withinCasePermutationTest(trials, { seed: opts.seed, resamples: opts.resamples }),
    test: balanced ? 'sign-flip permutation' : 'within-case permutation',
    deltas,
    moved,
    at,
  };
}

function compareMetric(
  list: [CaseRecord, CaseRecord][],
  metric: MetricComparison['metric'],
  promptLabel: string,
  opts: CompareOptions,
): Compared {
  const main = testMetric(list, metric, { baseline: 'recorded', candidate: 'recorded' }, opts);
  const errors = {
    baseline: list.reduce((n, [b]) => n + b.errors, 0),
    candidate: list.reduce((n, [, c]) => n + c.errors, 0),
  };
  const intervals: Compared['intervals'] = { recorded: main.at };
  const bound = (
    errorsAs: { baseline: ErrorsAs; candidate: ErrorsAs },
    side: 'best' | 'worst',
  ): ErrorBound => {
    const t = testMetric(list, metric, errorsAs, opts);
    intervals[side] = t.at;
    return {
      delta: t.delta,
      low: t.low,
      high: t.high,
      corrected: { level: 1 - opts.alpha, low: t.low, high: t.high },
      moved: t.moved,
      p: t.p,
      pAdjusted: t.p,
      verdict: 'inconclusive',
    };
  };
  const m: MetricComparison = {
    cell: { promptLabel, providerId: list[0][0].providerId },
    metric,
    pairs: list.length,
    baseline: main.baseline,
    candidate: main.candidate,
    delta: main.delta,
    low: main.low,
    high: main.high,
    corrected: { level: 1 - opts.alpha, low: main.low, high: main.high },
    moved: main.moved,
    test: main.test,
    p: main.p,
    pAdjusted: main.p,
    ...(main.discordant ? { discordant: main.discordant } : {}),
    minimumDetectable: Number.POSITIVE_INFINITY,
    errors,
    ...(errors.baseline + errors.candidate > 0
      ? {
          errorBounds: {
            best: bound({ baseline: 'fail', candidate: 'pass' }, 'best'),
            worst: bound({ baseline: 'pass', candidate: 'fail' }, 'worst'),
          },
        }
      : {}),
    ...(list.every(([b, c]) => b.errors === judgedTrials(b) && c.errors === judgedTrials(c))
      ? { nothingJudged: true as const }
      : {}),
    verdict: 'inconclusive',
  };
  return { m, deltas: main.deltas, intervals };
}

/**
 * The smallest change the test detects with 80% power at level `alpha`: for McNemar (and for
 * graded differences where nothing moved) the exact McNemar power with the discordant share seen;
 * for graded differences that vary, (z₁₋α/₂ + z₀.₈)·sd/√n.
 */
function minimumDetectableFromDeltas(
  deltas: readonly number[],
  binary: boolean,
  alpha: number,
  opts: CompareOptions,
): number {
  const n = deltas.length;
  const sd = sampleSd(deltas);
  if (binary || sd === 0) {
    const discordant = deltas.filter((d) => d !== 0).length / Math.max(1, n);
    return mcnemarMinimumDetectable(n, discordant, { alpha, midP: opts.midP });
  }
  return minimumDetectableEffect(sd, n, { alpha });
}

/**
 * The verdict of one comparison: unchanged when no case moved; regressed (improved) when the
 * corrected p is below α and the whole interval at the corrected level lies below −minEffect
 * (above +minEffect); inconclusive otherwise.
 */
function judge(
  m: { moved: { down: number; up: number }; corrected: { low: number; high: number }; pAdjusted: number },
  opts: CompareOptions,
): Verdict {
  if (m.moved.down === 0 && m.moved.up === 0) return 'unchanged';
  if (m.pAdjusted < opts.alpha && m.corrected.high < -opts.minEffect) return 'regressed';
  if (m.pAdjusted < opts.alpha && m.corrected.low > opts.minEffect) return 'improved';
  return 'inconclusive';
}

/**
 * The verdict with errors weighed: a change is the model's only if it holds whatever the error
 * trials would have been. Judged three ways (errors as recorded, all the candidate's passing and
 * the baseline's failing, and the reverse; an error matched by one on the other side of its case
 * stays as recorded): `regressed` (`improved`) needs both extremes to say so;
 * when either extreme says regressed or improved and the other does not, the errors decide the
 * verdict and it is `cannot-judge`; otherwise the verdict as recorded.
 */
function judgeWithErrors(m: MetricComparison, opts: CompareOptions): Verdict {
  // Every trial of both sides an error: nothing was judged, so nothing can be said unchanged.
  if (m.nothingJudged) return 'inconclusive';
  const recorded = judge(m, opts);
  if (!m.errorBounds) return recorded;
  const best = judge(m.errorBounds.best, opts);
  const worst = judge(m.errorBounds.worst, opts);
  m.errorBounds.best.verdict = best;
  m.errorBounds.worst.verdict = worst;
  if (best === 'regressed' && worst === 'regressed') return 'regressed';
  if (best === 'improved' && worst === 'improved') return 'improved';
  const decisive = (v: Verdict) => v === 'regressed' || v === 'improved';
  if (decisive(best) || decisive(worst) || decisive(recorded)) return 'cannot-judge';
  return recorded;
}

/**
 * The run's verdict: any regression is a regression; then errors that decide a verdict (cannot
 * judge); then any improvement; all unchanged is unchanged; else inconclusive. A column that fell
 * out of the comparison, a case judged on one side only (or no pair at all) leaves what was not
 * compared unknown: nothing to call unchanged or improved.
 */
function overall(
  metrics: MetricComparison[],
  fellOut: Comparison['fellOut'],
  unjudged: Comparison['unjudged'],
): { verdict: Verdict; why?: string } {
  const oneSided = unjudged.filter((u) => u.judgedIn !== 'neither').length;
  if (metrics.length === 0) {
    const neither = unjudged.length - oneSided;
    const parts = [
      oneSided > 0 ? `${oneSided} judged on one side only, every trial skipped on the other` : '',
      neither > 0 ? `${neither} judged on neither side, every trial skipped on both` : '',
    ].filter(Boolean);
    return { verdict: 'inconclusive', why: `no case was judged on both sides (${parts.join('; ')})` };
  }
  if (metrics.some((m) => m.verdict === 'regressed')) return { verdict: 'regressed' };
  const undecided = metrics.filter((m) => m.verdict === 'cannot-judge');
  if (undecided.length > 0) {
    const errors = new Set<string>();
    let n = 0;
    for (const m of undecided) {
      const key = `${m.cell.promptLabel}\u0000${m.cell.providerId}`;
      if (errors.has(key)) continue;
      errors.add(key);
      n += m.errors.baseline + m.errors.candidate;
    }
    return {
      verdict: 'cannot-judge',
      why: `cannot judge: ${n} errors (the verdict would differ had the errored trials passed or failed)`,
    };
  }
  let verdict: Verdict = metrics.some((m) => m.verdict === 'improved')
    ? 'improved'
    : metrics.every((m) => m.verdict === 'unchanged')
      ? 'unchanged'
      : 'inconclusive';
  if ((verdict === 'unchanged' || verdict === 'improved') && fellOut.length > 0) {
    verdict = 'inconclusive';
    const f = fellOut[0];
    return {
      verdict,
      why: `${fellOut.length} prompt × provider column${fellOut.length === 1 ? '' : 's'} had no paired case (first: ${f.promptLabel} · ${f.providerId}, ${f.side})`,
    };
  }
  const blind = metrics.find((m) => m.nothingJudged);
  if (blind)
    return {
      verdict: verdict === 'unchanged' || verdict === 'improved' ? 'inconclusive' : verdict,
      why: `every trial of ${blind.cell.promptLabel} · ${blind.cell.providerId} was an error on both sides: nothing was judged`,
    };
  if ((verdict === 'unchanged' || verdict === 'improved') && oneSided > 0)
    return {
      verdict: 'inconclusive',
      why: `${oneSided} case${oneSided === 1 ? ' was' : 's were'} judged on one side only (every trial skipped on the other): ${verdict} on the cases judged on both sides, unknown on those`,
    };
  return { verdict };
}
