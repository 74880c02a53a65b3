import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  Breakdown,
  Counts,
  FailureNote,
  RepeatSummary,
  Scorecard,
  ScorecardCell,
  StreamSummary,
} from '../core/scorecard.js';
import type { JobResult, SuiteScoring } from '../core/types.js';
import { readManifest, readResults } from '../runlog/reader.js';
import type { RunManifest } from '../runlog/types.js';
import { type Cluster, clusteredMean } from './clustered.js';
import { ColumnNamedScores } from './derived.js';
import { passAtK, passHatK } from './paired.js';
import { type MeanAccumulator, meanInterval, wilson } from './stats.js';
import { WeightedScoreBuilder } from './weighted.js';

interface GroupAcc extends Counts {
  scores: MeanAccumulator;
  /** Each named score's sum over the group (e.g. LVE's disagreements with the recorded verdicts). */
  named?: Map<string, number>;
}

/** The group a result falls in for a metadata key (`(none)` when the case has no such key). */
export function groupValue(r: JobResult, key: string): string {
  const v = r.case.metadata?.[key];
  if (v === undefined || v === null || v === '') return '(none)';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const MAX_FAILURES_LISTED = 50;
/** A var value kept in a failure note longer than this is cut: the note names the case, it does not hold it. */
const NOTE_VAR_CHARS = 200;

/** A case's vars as a scorecard note keeps them: enough to name the case, long texts cut. */
function namingVars(vars: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars ?? {})) {
    const text = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : v;
    out[k] =
      typeof text === 'string' && text.length > NOTE_VAR_CHARS ? `${text.slice(0, NOTE_VAR_CHARS)}…` : text;
  }
  return out;
}
const MAX_FLAKY_LISTED = 10;
/** The start of a failing job's output kept in its note, for the console's one-line excerpt. */
const NOTE_OUTPUT_CHARS = 200;

/** Who a case is, for the flaky list. */
type CaseWho = RepeatSummary['flakiest'][number] extends infer T ? Omit<T, 'passed' | 'trials'> : never;

interface CellAcc extends Counts {
  promptId: string;
  promptLabel: string;
  providerId: string;
  scoreSum: number;
  latencySum: number;
  stream: StreamAcc;
  tokens: number;
  cost: number;
  /** Set when the suite derives metrics per column. */
  named?: ColumnNamedScores;
}

/** Sums over streamed answers (JobResult.stream). */
interface StreamAcc {
  n: number;
  firstTokenSum: number;
  tpsN: number;
  tpsSum: number;
}

function emptyStream(): StreamAcc {
  return { n: 0, firstTokenSum: 0, tpsN: 0, tpsSum: 0 };
}

function addStream(acc: StreamAcc, r: JobResult): void {
  if (!r.answer.stream) return;
  acc.n++;
  acc.firstTokenSum += r.answer.stream.firstTokenMs;
  if (r.answer.stream.tokensPerSecond !== undefined) {
    acc.tpsN++;
    acc.tpsSum += r.answer.stream.tokensPerSecond;
  }
}

function streamSummary(acc: StreamAcc): { stream?: StreamSummary } {
  if (acc.n === 0) return {};
  const summary: StreamSummary = { answers: acc.n, firstTokenMsMean: acc.firstTokenSum / acc.n };
  if (acc.tpsN > 0) summary.tokensPerSecondMean = acc.tpsSum / acc.tpsN;
  return { stream: summary };
}

function emptyCounts(): Counts {
  return { total: 0, pass: 0, fail: 0, error: 0, skip: 0 };
}

/**
 * Builds a scorecard one result at a time, in memory proportional to the number of
 * prompt × provider cells and metrics, not to the number of jobs.
 */
export class ScorecardBuilder {
  private counts = emptyCounts();
  private cells = new Map<string, CellAcc>();
  private metrics = new Map<string, { sum: number; count: number }>();
  private failures: FailureNote[] = [];
  private failuresOmitted = 0;
  private scoreSum = 0;
  private latencySum = 0;
  private stream = emptyStream();
  private tokens = 0;
  private cost = 0;
  private gradingTokens = 0;
  private gradingCost = 0;
  private cached = 0;
  /** Per breakdown key, per group value: counts and score sums. */
  private groups = new Map<string, Map<string, GroupAcc>>();
  private weighted?: WeightedScoreBuilder;
  /**
   * Per case × prompt × provider: its judged trials, passes and score sum. Trials of one case are
   * not independent, so with repeats every interval is computed over these, not over jobs.
   */
  private clusters = new Map<string, Cluster & { cell: string; groups: string[]; who: CaseWho }>();
  private repeated = false;

  constructor(
    private readonly scoring: SuiteScoring = {},
    /** The k of pass@k and pass^k for repeated runs (`--pass-at`); 1 and the trials are always given. */
    private readonly passAt: number[] = [],
    /**
     * Whether cases may have several trials. False (a run without --repeat) skips the per-case
     * bookkeeping that clustered intervals need, which at 100k cases is real memory.
     */
    private readonly trackCases = true,
  ) {
    for (const k of new Set(scoring.breakdowns ?? [])) this.groups.set(k, new Map());
    if (scoring.weightedScore) this.weighted = new WeightedScoreBuilder(scoring.weightedScore);
  }

  /** Adds one job result. */
  add(r: JobResult): void {
    count(this.counts, r.status);
    this.addToCluster(r);
    this.weighted?.add(r);
    for (const [key, groups] of this.groups) {
      const value = groupValue(r, key);
      let g = groups.get(value);
      if (!g) {
        g = { ...emptyCounts(), scores: { n: 0, sum: 0, sumSq: 0 } };
        groups.set(value, g);
      }
      count(g, r.status);
      for (const [name, v] of Object.entries(r.namedScores ?? {})) {
        g.named ??= new Map();
        g.named.set(name, (g.named.get(name) ?? 0) + v);
      }
      if (r.status !== 'skip') {
        g.scores.n++;
        g.scores.sum += r.score;
        g.scores.sumSq += r.score * r.score;
      }
    }
    const cellKey = `${r.promptId}\u0000${r.providerId}`;
    let cell = this.cells.get(cellKey);
    if (!cell) {
      cell = {
        ...emptyCounts(),
        promptId: r.promptId,
        promptLabel: r.promptLabel,
        providerId: r.providerId,
        scoreSum: 0,
        latencySum: 0,
        stream: emptyStream(),
        tokens: 0,
        cost: 0,
      };
      if (this.scoring.derivedMetrics?.length)
        cell.named = new ColumnNamedScores(this.scoring.derivedMetrics);
      this.cells.set(cellKey, cell);
    }
    cell.named?.add(r);
    count(cell, r.status);
    const tokens = r.answer.usage?.total ?? (r.answer.usage?.prompt ?? 0) + (r.answer.usage?.completion ?? 0);
    cell.scoreSum += r.score;
    cell.latencySum += r.answer.latencyMs;
    addStream(cell.stream, r);
    addStream(this.stream, r);
    cell.tokens += tokens;
    cell.cost += r.answer.cost ?? 0;
    this.scoreSum += r.score;
    this.latencySum += r.answer.latencyMs;
    this.tokens += tokens;
    this.cost += r.answer.cost ?? 0;
    this.gradingTokens += r.grading?.total ?? 0;
    this.gradingCost += r.grading?.cost ?? 0;
    if (r.answer.cached) this.cached++;
    if (r.namedScores) {
      for (const [name, value] of Object.entries(r.namedScores)) {
        const m = this.metrics.get(name) ?? { sum: 0, count: 0 };
        m.sum += value;
        m.count++;
        this.metrics.set(name, m);
      }
    }
    if (r.status === 'fail' || r.status === 'error') this.noteFailure(r);
  }

  private addToCluster(r: JobResult): void {
    if (!this.trackCases) return;
    if (r.trial > 0) this.repeated = true;
    const key = `${r.caseId}\u0000${r.promptId}\u0000${r.providerId}`;
    let c = this.clusters.get(key);
    if (!c) {
      c = {
        who: {
          caseId: r.caseId,
          ...(r.case.ref !== undefined ? { caseRef: r.case.ref } : {}),
          ...(r.case.description !== undefined ? { description: r.case.description } : {}),
          vars: namingVars(r.case.vars),
          promptLabel: r.promptLabel,
          providerId: r.providerId,
        },
        cell: `${r.promptId}\u0000${r.providerId}`,
        groups: [...this.groups.keys()].map((k) => `${k}\u0000${groupValue(r, k)}`),
        n: 0,
        pass: 0,
        score: 0,
      };
      this.clusters.set(key, c);
    }
    if (r.status === 'skip') return;
    c.n++;
    if (r.status === 'pass') c.pass++;
    c.score += r.score;
  }

  /** The clusters (cases) of a scope, when the run repeated cases; undefined otherwise. */
  private clustersOf(test: (c: { cell: string; groups: string[] }) => boolean): Cluster[] | undefined {
    if (!this.repeated) return undefined;
    const out: Cluster[] = [];
    for (const c of this.clusters.values()) if (c.n > 0 && test(c)) out.push(c);
    return out;
  }

  private noteFailure(r: JobResult): void {
    if (this.failures.length >= MAX_FAILURES_LISTED) {
      this.failuresOmitted++;
      return;
    }
    this.failures.push(failureNoteOf(r));
  }

  /** The scorecard of everything added so far. */
  build(): Scorecard {
    const n = this.counts.total - this.counts.skip;
    const cells: ScorecardCell[] = [...this.cells.entries()].map(([key, c]) => {
      const cn = c.total - c.skip;
      const clusters = this.clustersOf((k) => k.cell === key);
      return {
        promptId: c.promptId,
        promptLabel: c.promptLabel,
        providerId: c.providerId,
        total: c.total,
        pass: c.pass,
        fail: c.fail,
        error: c.error,
        skip: c.skip,
        passRate: clusters ? clusteredMean(clusters, 'pass') : wilson(c.pass, cn),
        meanScore: cn > 0 ? c.scoreSum / cn : 0,
        latencyMsMean: c.total > 0 ? c.latencySum / c.total : 0,
        ...streamSummary(c.stream),
        tokens: c.tokens,
        cost: c.cost,
        ...(c.named ? { derivedMetrics: c.named.derivedValues() } : {}),
      };
    });
    const all = this.clustersOf(() => true);
    return {
      counts: { ...this.counts },
      passRate: all ? clusteredMean(all, 'pass') : wilson(this.counts.pass, n),
      meanScore: n > 0 ? this.scoreSum / n : 0,
      cells,
      metrics: [...this.metrics.entries()]
        .map(([name, m]) => ({ name, mean: m.count > 0 ? m.sum / m.count : 0, count: m.count }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      failures: this.failures,
      failuresOmitted: this.failuresOmitted,
      tokens: this.tokens,
      cost: this.cost,
      gradingTokens: this.gradingTokens,
      gradingCost: this.gradingCost,
      latencyMsMean: this.counts.total > 0 ? this.latencySum / this.counts.total : 0,
      ...streamSummary(this.stream),
      cached: this.cached,
      ...this.buildGroups(),
      ...(this.repeated ? { repeats: this.buildRepeats() } : {}),
    };
  }

  /** pass@k, pass^k and flakiness over the cases (k = 1 and k = the most trials a case had). */
  private buildRepeats(): RepeatSummary {
    const cases = [...this.clusters.values()].filter((c) => c.n > 0);
    const trials = cases.reduce((m, c) => Math.max(m, c.n), 0);
    const atK: RepeatSummary['atK'] = [];
    const ks = [...new Set([1, ...this.passAt, trials])].filter((k) => k >= 1).sort((a, b) => a - b);
    const dropped: number[] = [];
    for (const k of ks) {
      // The mean over the cases with at least k judged trials (the others are counted, not hidden).
      const eligible = cases.filter((c) => c.n >= k);
      if (eligible.length === 0) {
        dropped.push(k);
        continue;
      }
      let a = 0;
      let h = 0;
      for (const c of eligible) {
        a += passAtK(c.n, c.pass, k);
        h += passHatK(c.n, c.pass, k);
      }
      atK.push({ k, passAtK: a / eligible.length, passHatK: h / eligible.length, cases: eligible.length });
    }
    const flaky = cases.filter((c) => c.pass > 0 && c.pass < c.n);
    const flakiest = flaky
      .sort((x, y) => Math.abs(x.pass / x.n - 0.5) - Math.abs(y.pass / y.n - 0.5))
      .slice(0, MAX_FLAKY_LISTED)
      .map((c) => ({ ...c.who, passed: c.pass, trials: c.n }));
    return {
      trials,
      cases: cases.length,
      flaky: flaky.length,
      atK,
      ...(dropped.length > 0 ? { atKDropped: dropped } : {}),
      flakiest,
    };
  }

  private buildGroups(): Pick<Scorecard, 'breakdowns' | 'weightedScore'> {
    const out: Pick<Scorecard, 'breakdowns' | 'weightedScore'> = {};
    const breakdowns: Breakdown[] = (this.scoring.breakdowns ?? []).map((by) => ({
      by,
      groups: [...(this.groups.get(by) ?? new Map<string, GroupAcc>()).entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([value, g]) => {
          const clusters = this.clustersOf((k) => k.groups.includes(`${by}\u0000${value}`));
          return {
            value,
            total: g.total,
            pass: g.pass,
            fail: g.fail,
            error: g.error,
            skip: g.skip,
            passRate: clusters ? clusteredMean(clusters, 'pass') : wilson(g.pass, g.total - g.skip),
            meanScore: clusters ? clusteredMean(clusters, 'score') : meanInterval(g.scores),
            ...(g.named ? { namedTotals: Object.fromEntries(g.named) } : {}),
          };
        }),
    }));
    if (breakdowns.length > 0) out.breakdowns = breakdowns;
    if (this.weighted) out.weightedScore = this.weighted.build();
    return out;
  }
}

function count(c: Counts, status: JobResult['status']): void {
  c.total++;
  c[status]++;
}

/** Remembers which jobs were counted, so a job logged twice counts once. */
export interface SeenJobs {
  /** True the first time a job is offered, false after. */
  first(r: JobResult): boolean;
}

/** Jobs told apart by their key (any stream of results). */
function keySet(): SeenJobs {
  const seen = new Set<string>();
  return {
    first(r) {
      if (seen.has(r.key)) return false;
      seen.add(r.key);
      return true;
    },
  };
}

/**
 * Jobs told apart by their plan position (case, trial, provider, prompt) in a bitmap: one bit a
 * job where a set of keys held a 64-character string each (over 100 MB at a million jobs). A
 * result the manifest cannot place (an unlisted column, a trial past the repeat) falls back to its key.
 */
export function planPositions(providers: string[], prompts: string[], repeat: number): SeenJobs {
  const provider = new Map(providers.map((p, i) => [p, i]));
  const prompt = new Map(prompts.map((p, i) => [p, i]));
  const perCase = Math.max(1, repeat) * Math.max(1, providers.length) * Math.max(1, prompts.length);
  let bits = new Uint8Array(1024);
  const others = keySet();
  return {
    first(r) {
      const pv = provider.get(r.providerId);
      const pr = prompt.get(r.promptId);
      if (
        pv === undefined ||
        pr === undefined ||
        !Number.isSafeInteger(r.caseIndex) ||
        r.caseIndex < 0 ||
        !(r.trial >= 0 && r.trial < repeat)
      )
        return others.first(r);
      const at = r.caseIndex * perCase + (r.trial * providers.length + pv) * prompts.length + pr;
      const byte = at >>> 3;
      if (byte >= bits.length) {
        const grown = new Uint8Array(Math.max(bits.length * 2, byte + 1));
        grown.set(bits);
        bits = grown;
      }
      const mask = 1 << (at & 7);
      if (bits[byte] & mask) return false;
      bits[byte] |= mask;
      return true;
    },
  };
}

/** Computes the scorecard of a stream of results; a job seen twice counts once (the first). */
export async function computeScorecard(
  results: AsyncIterable<JobResult> | Iterable<JobResult>,
  scoring?: SuiteScoring,
  passAt: number[] = [],
  trackCases = true,
  seen: SeenJobs = keySet(),
): Promise<Scorecard> {
  const builder = new ScorecardBuilder(scoring, passAt, trackCases);
  for await (const r of results) if (seen.first(r)) builder.add(r);
  return builder.build();
}

/** The builder and the job filter a run's manifest (as written to its directory) asks for. */
function runScorecard(manifest: RunManifest): { builder: ScorecardBuilder; seen: SeenJobs } {
  return {
    builder: new ScorecardBuilder(
      manifest.suite.scoring,
      manifest.options.passAt ?? [],
      manifest.options.repeat > 1,
    ),
    seen: planPositions(
      manifest.providers.map((p) => String(p.key ?? p.id)),
      manifest.suite.prompts.map((p) => p.id),
      manifest.options.repeat,
    ),
  };
}

/**
 * The scorecard of a run directory, computed from its log alone (results.jsonl, and the scoring
 * settings its manifest recorded): the same code for a merged run and last month's; a run made in
 * this process builds the same card live (LiveScorecard).
 */
export async function scorecardOfRun(runDir: string): Promise<Scorecard> {
  const { builder, seen } = runScorecard(readManifest(runDir));
  for await (const r of readResults(runDir)) if (seen.first(r)) builder.add(r);
  return builder.build();
}

/**
 * A run's scorecard built while its results are appended to its log: the builder and job filter
 * scorecardOfRun uses, fed the results in log order as the log will read them back, so the card
 * equals the one re-read from the log. A result is taken from its line when the line differs from
 * the result's JSON (redacted) or when reading the line back would change what the card keeps of
 * it (a number JSON cannot hold, a var whose JSON is not itself); otherwise the result itself.
 */
export class LiveScorecard {
  private readonly builder: ScorecardBuilder;
  private readonly seen: SeenJobs;
  /** Per metadata key, its distinct group values (null past MAX_METADATA_GROUPS), as metadata.ts counts them. */
  private readonly metadataValues = new Map<string, Set<string> | null>();

  /** `manifest`: the run's manifest as written to its directory (RunWriter.writeJson's answer). */
  constructor(manifest: RunManifest) {
    ({ builder: this.builder, seen: this.seen } = runScorecard(manifest));
  }

  /** Adds a result read back from the log (a resume's earlier results). */
  addLogged(r: JobResult): void {
    const metadata = r.case.metadata;
    if (metadata) {
      for (const key of Object.keys(metadata)) {
        const values = this.metadataValues.get(key);
        if (values === null) continue;
        const seen = values ?? new Set<string>();
        seen.add(groupValue(r, key));
        this.metadataValues.set(key, seen.size > MAX_METADATA_GROUPS ? null : seen);
      }
    }
    if (this.seen.first(r)) this.builder.add(r);
  }

  /**
   * Tells this process's readers of the run what the card saw of its cases' metadata, once the
   * log is closed: a run with no key to break down by (analysis/metadata.ts) is not read for one.
   */
  finish(runDir: string): void {
    const path = join(runDir, 'results.jsonl');
    const breakable = [...this.metadataValues.values()].some((v) => v !== null);
    liveMetadata.clear();
    if (!breakable && existsSync(path)) liveMetadata.set(resolve(path), statSync(path).size);
  }

  /** Adds a result just appended; `line`: the line logged, when redaction changed it (RunWriter.append). */
  add(r: JobResult, line?: string): void {
    this.addLogged(line !== undefined || !readsBackSame(r) ? fromLine(line ?? JSON.stringify(r)) : r);
  }

  build(): Scorecard {
    return this.builder.build();
  }
}

/** By log path: the log's size when a live card saw no metadata key with few enough values to break down by. */
const liveMetadata = new Map<string, number>();

/** Whether this process built the card of a run live and saw no metadata key to break it down by. */
export function noMetadataBreakdowns(runDir: string): boolean {
  const path = resolve(join(runDir, 'results.jsonl'));
  const size = liveMetadata.get(path);
  if (size === undefined) return false;
  try {
    return statSync(path).size === size;
  } catch {
    return false;
  }
}

/** A key with more values than this names cases rather than groups them (an id, a free text). */
export const MAX_METADATA_GROUPS = 12;

/** A result as a log line reads back (the line's version taken off, as readResults does). */
function fromLine(line: string): JobResult {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  delete parsed.v;
  return parsed as unknown as JobResult;
}

/** JSON's answer for a value is the value itself: not NaN or ±Infinity, undefined, a function, a Date. */
function plainScalar(v: unknown): boolean {
  if (v === null) return true;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      return typeof (v as { toJSON?: unknown }).toJSON !== 'function';
    default:
      return false;
  }
}

function plainNumber(v: unknown): boolean {
  return v === undefined || v === null || typeof v !== 'number' || Number.isFinite(v);
}

function plainValues(o: Record<string, unknown> | undefined): boolean {
  if (o === undefined || o === null) return true;
  if (typeof o !== 'object' || Array.isArray(o) || typeof (o as { toJSON?: unknown }).toJSON === 'function')
    return false;
  for (const k in o) if (!plainScalar(o[k])) return false;
  return true;
}

/**
 * Whether what the scorecard keeps of a result is the same read back from its line: the numbers it
 * sums, and the vars and metadata it names cases and groups by (a top-level value whose JSON is
 * another type: a Date, NaN, undefined).
 */
function readsBackSame(r: JobResult): boolean {
  const a = r.answer;
  if (
    !plainNumber(r.score) ||
    !plainNumber(a.latencyMs) ||
    !plainNumber(a.cost) ||
    !plainNumber(r.caseIndex) ||
    !plainNumber(r.trial)
  )
    return false;
  if (
    a.usage &&
    (!plainNumber(a.usage.total) || !plainNumber(a.usage.prompt) || !plainNumber(a.usage.completion))
  )
    return false;
  if (a.stream && (!plainNumber(a.stream.firstTokenMs) || !plainNumber(a.stream.tokensPerSecond)))
    return false;
  if (r.grading && (!plainNumber(r.grading.total) || !plainNumber(r.grading.cost))) return false;
  if (r.namedScores !== undefined && !plainValues(r.namedScores)) return false;
  if (r.namedScoreWeights !== undefined && !plainValues(r.namedScoreWeights)) return false;
  return plainValues(r.case.vars) && plainValues(r.case.metadata);
}

/** A failed or errored job as reports name it: the case, where it is written, the failing check. */
export function failureNoteOf(r: JobResult): FailureNote {
  const failing = r.verdicts.find((v) => !v.pass);
  return {
    key: r.key,
    caseId: r.caseId,
    ...(r.case.ref !== undefined ? { caseRef: r.case.ref } : {}),
    description: r.case.description,
    vars: namingVars(r.case.vars),
    ...(r.case.source ? { source: r.case.source } : {}),
    promptLabel: r.promptLabel,
    providerId: r.providerId,
    trial: r.trial,
    status: r.status as 'fail' | 'error',
    assertion: r.status === 'error' ? 'error' : failing?.type,
    reason: r.status === 'error' ? (r.error ?? r.reason) : (failing?.reason ?? r.reason),
    ...(typeof r.output === 'string' ? { output: r.output.slice(0, NOTE_OUTPUT_CHARS) } : {}),
  };
}

/**
 * The first failed or errored job of each failing case, for the first `max` such cases in log
 * order, and how many other cases failed: one pass over the run log (the scorecard lists only the
 * first failing jobs, which on a run of many columns may all be a handful of cases).
 */
export async function failingCases(
  runDir: string,
  max: number,
): Promise<{ notes: FailureNote[]; more: number }> {
  const notes: FailureNote[] = [];
  const seen = new Set<string>();
  let more = 0;
  for await (const r of readResults(runDir)) {
    if (r.status !== 'fail' && r.status !== 'error') continue;
    const id = r.case.ref ?? r.caseId;
    if (seen.has(id)) continue;
    seen.add(id);
    if (notes.length < max) notes.push(failureNoteOf(r));
    else more++;
  }
  return { notes, more };
}
