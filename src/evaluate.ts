import { join, resolve } from 'node:path';
import { ScorecardBuilder } from './analysis/scorecard.js';
import { InputError } from './core/errors.js';
import { redactObject, secretValues } from './core/redact.js';
import type { Scorecard } from './core/scorecard.js';
import {
  type AssertionSpec,
  type Diagnostic,
  type Job,
  type JobResult,
  type ProviderSpec,
  SELF_GRADER,
  type Suite,
} from './core/types.js';
import { CacheFileError, ResponseCache } from './engine/cache.js';
import { caseProviderSpecs } from './engine/case-providers.js';
import { filterProviders, filterSuite, type SuiteFilters } from './engine/filter.js';
import { GraderPool, graderSpecFor } from './engine/graders.js';
import { countJobs, type PlanOptions, planJobs, providerKey } from './engine/plan.js';
import { runSuite } from './engine/run.js';
import { inShard, type Shard } from './engine/shard.js';
import { loadSuite } from './formats/detect.js';
import { createProvider, isKnownProviderId, providerPatterns } from './providers/registry.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './providers/types.js';
import { pinFilters, readSelectedFailures } from './runlog/failing.js';
import { readManifest, readResults } from './runlog/reader.js';
import { dropErrorResults, dropPartialGroups, repairTail } from './runlog/resume.js';
import type { RunManifest, Selection } from './runlog/types.js';
import { newRunId, RunWriter } from './runlog/writer.js';
import { closePythonWorker } from './scorers/code/index.js';
import { getScorer } from './scorers/registry.js';
import { assayVersion } from './version.js';

export const DEFAULT_MAX_CONCURRENCY = 8;

/** How many error results a run tolerates: a count, or a fraction of the planned jobs. */
export interface ErrorBudget {
  count?: number;
  fraction?: number;
}

export interface EvaluateOptions {
  /** A suite file or folder (ignored when `suite` is given). */
  suitePath?: string;
  suite?: Suite;
  /** Provider ids or labels replacing the suite's providers (`-p`). */
  providers?: string[];
  /** `--grader`: the grader for model-graded assertions that name no provider of their own. */
  grader?: ProviderSpec;
  /** `--embedder`: the embedding provider for graders that have none (similarity assertions). */
  embedder?: ProviderSpec;
  maxConcurrency?: number;
  repeat?: number;
  /** `--filter-*`: run only part of the suite. */
  filters?: SuiteFilters;
  /** `--var` values the suite was (or, with `suitePath`, is to be) loaded with; recorded in the manifest. */
  vars?: Record<string, string>;
  /** Milliseconds each worker waits after a provider call that was not answered from the cache. */
  delayMs?: number;
  /** A job not finished after this many milliseconds is an error (default: the suite's run defaults). */
  jobTimeoutMs?: number;
  /** Past this many milliseconds, jobs not finished are errors (default: the suite's run defaults). */
  maxRunMs?: number;
  /** Run only this share of the jobs (`--shard i/n`). */
  shard?: Shard;
  /** Where run directories go; default `.assay/runs` under the current folder. */
  runsDir?: string;
  /** Continue this run directory instead of starting a new one: only jobs missing from its log run. */
  resume?: string;
  /** With `resume`: also run again the jobs that ended in error. */
  retryErrors?: boolean;
  /** The response cache: a file and its time-to-live; undefined or false for none. */
  cache?: { path: string; ttlSeconds?: number } | false;
  /** Past this many errors the run stops (status `aborted`). Default: no early stop. */
  maxErrors?: ErrorBudget;
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** The command line, recorded in the manifest (secrets redacted). */
  command?: string[];
  /** Called after each result is logged, with the running counts. */
  onProgress?: (progress: Progress) => void;
  onResult?: (result: JobResult) => void;
  /** Abort to stop scheduling; jobs in flight finish and the run is marked interrupted. */
  signal?: AbortSignal;
  /** Abort to stop at once: requests in flight are cancelled and their jobs left for a resume. */
  hardSignal?: AbortSignal;
}

export interface Progress {
  done: number;
  planned: number;
  pass: number;
  fail: number;
  error: number;
}

export interface EvaluateResult {
  runDir: string;
  manifest: RunManifest;
  scorecard: Scorecard;
  suite: Suite;
  /** Jobs already in the log before this invocation (resume). */
  resumedJobs: number;
  /** With filters: how many of the suite's cases they kept (`suiteCases` before filtering). */
  selectedCases?: number;
  suiteCases?: number;
}

/**
 * Loads a suite, runs it, and writes the run directory (manifest.json, results.jsonl,
 * scorecard.json). The library entry point behind `assay eval`.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const env = options.env ?? process.env;
  const loaded = options.suite ?? (await loadSuite(options.suitePath, { env, vars: options.vars }));
  const filters = pinFilters(options.filters, options.runsDir);
  const failing = await readSelectedFailures(filters);
  const suite = filters ? filterSuite(loaded, filters, failing) : loaded;
  const providers = filterProviders(selectProviders(suite, options.providers), filters?.providers);
  const selection: Selection = {};
  if (filters) selection.filters = filters;
  if (options.vars && Object.keys(options.vars).length > 0) selection.vars = options.vars;
  const repeat = options.repeat ?? 1;
  const jobTimeoutMs = options.jobTimeoutMs ?? suite.runDefaults?.jobTimeoutMs;
  const maxRunMs = options.maxRunMs ?? suite.runDefaults?.maxRunMs;
  const fallbackDelayMs = suite.runDefaults?.fallbackDelayMs;
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const providerEnv = { ...env, ...(suite.env ?? {}) };
  const secrets = secretValues(providerEnv);
  for (const spec of providers) if (spec.env) secrets.push(...secretValues(spec.env));
  const providerContext = { env: providerEnv, maxConcurrency, retry };
  // A provider's own `env` overrides the run's for that provider only.
  const contextFor = (spec: ProviderSpec) =>
    spec.env ? { ...providerContext, env: { ...providerEnv, ...spec.env } } : providerContext;
  const resolved = await Promise.all(
    providers.map(async (spec) => ({ spec, provider: await createProvider(spec, contextFor(spec)) })),
  );
  checkGraders(suite, options.grader, options.embedder);
  // Providers that cases name for themselves are built up front, so a bad one stops the run before it starts.
  const caseProviders = new Map(
    await Promise.all(
      [...caseProviderSpecs(suite)].map(
        async ([key, spec]) => [key, await createProvider(spec, contextFor(spec))] as const,
      ),
    ),
  );
  const described = redactObject(
    resolved.map((r) => ({ key: providerKey(r.spec), ...r.provider.describe() })),
  );
  const plan: PlanOptions = { repeat };
  const shard = options.shard;
  const planned = countPlanned(suite, providers, plan, shard);
  const manifest: RunManifest = {
    runId: newRunId(),
    assayVersion: assayVersion(),
    status: 'running',
    suite: {
      id: suite.id,
      name: suite.name,
      format: suite.format,
      path: suite.source.path,
      contentHash: suite.source.contentHash,
      nativeHash: suite.source.nativeHash,
      files: suite.source.files,
      cases: suite.cases.length,
      prompts: suite.prompts.map((p) => ({
        id: p.id,
        label: p.label,
        raw: p.raw,
        ...(p.config && Object.keys(p.config).length > 0 ? { config: redactObject(p.config) } : {}),
      })),
      scoring: suite.scoring,
      ...(suite.native ? { native: suite.native } : {}),
    },
    providers: described,
    options: {
      repeat,
      maxConcurrency,
      ...(shard ? { shard } : {}),
      ...(Object.keys(selection).length > 0 ? { selection: redactObject(selection) } : {}),
      ...(options.delayMs ? { delayMs: options.delayMs } : {}),
      ...(jobTimeoutMs ? { jobTimeoutMs } : {}),
      ...(maxRunMs ? { maxRunMs } : {}),
    },
    plannedJobs: planned,
    command: redactCommand(options.command ?? []),
    cwd: process.cwd(),
    startedAt: new Date().toISOString(),
  };

  const scorecard = new ScorecardBuilder(suite.scoring);
  const progress: Progress = { done: 0, planned, pass: 0, fail: 0, error: 0 };
  const count = (result: JobResult): void => {
    scorecard.add(result);
    progress.done++;
    if (result.status === 'pass') progress.pass++;
    else if (result.status === 'fail') progress.fail++;
    else if (result.status === 'error') progress.error++;
  };

  // The cache opens before the run directory exists: a bad cache path must leave nothing behind.
  let cache: ResponseCache | undefined;
  // Only providers whose answers cost something use the cache; an echo-only run never opens it.
  if (options.cache && resolved.some((r) => r.provider.cacheable !== false)) {
    try {
      cache = ResponseCache.open(options.cache.path, { ttlSeconds: options.cache.ttlSeconds });
    } catch (err) {
      if (err instanceof CacheFileError)
        throw new InputError({ file: options.cache.path, message: err.message, severity: 'error' });
      throw err;
    }
  }
  let writer: RunWriter;
  const done = new Set<string>();
  if (options.resume) {
    const runDir = resolve(options.resume);
    const previous = checkResumable(runDir, manifest);
    repairTail(join(runDir, 'results.jsonl'));
    if (options.retryErrors) await dropErrorResults(runDir);
    // Rows judged together must run together: a group only partly in the log runs again whole.
    await dropPartialGroups(runDir, planJobs(suite, providers, plan));
    for await (const r of readResults(runDir)) {
      if (done.has(r.key)) continue;
      done.add(r.key);
      count(r);
    }
    writer = RunWriter.reopen(runDir, {
      ...manifest,
      runId: previous.runId,
      startedAt: previous.startedAt,
      command: previous.command,
      resumedAt: [...(previous.resumedAt ?? []), manifest.startedAt],
    });
  } else {
    writer = RunWriter.create(resolve(options.runsDir ?? '.assay/runs'), manifest);
  }
  const resumedJobs = done.size;
  const graders = new GraderPool({
    override: options.grader,
    embedder: options.embedder,
    suiteDefault: suite.grader,
    providerContext,
    cache,
    hardSignal: options.hardSignal,
    secrets,
  });
  const allowedErrors = errorAllowance(options.maxErrors, planned);

  let outcome: Awaited<ReturnType<typeof runSuite>>;
  try {
    outcome = await runSuite(suite, resolved, {
      ...plan,
      maxConcurrency,
      env: providerEnv,
      secrets,
      signal: options.signal,
      hardSignal: options.hardSignal,
      cache,
      graders,
      caseProviders,
      delayMs: options.delayMs ?? fallbackDelayMs,
      jobTimeoutMs,
      maxRunMs,
      include: (job: Job) => (!shard || inShard(job, shard)) && !done.has(job.key),
      stopWhen: () =>
        progress.error > allowedErrors
          ? `error budget exceeded: ${progress.error} errors, at most ${allowedErrors} allowed (--max-errors)`
          : undefined,
      onResult: (result) => {
        writer.append(result);
        count(result);
        options.onResult?.(result);
        options.onProgress?.(progress);
      },
    });
  } finally {
    writer.close();
    cache?.close();
    for (const r of resolved) await r.provider.close?.();
    for (const p of caseProviders.values()) await p.close?.();
    await graders.close();
    await closePythonWorker();
  }
  const card = scorecard.build();
  writer.writeJson('scorecard.json', card);
  const finished = card.counts.total >= planned;
  const status =
    outcome.stopReason && !finished ? (outcome.interrupted ? 'interrupted' : 'aborted') : 'complete';
  writer.updateManifest({
    status,
    stopReason: status === 'complete' ? undefined : outcome.stopReason,
    endedAt: new Date().toISOString(),
    counts: card.counts,
  });
  return {
    runDir: writer.dir,
    manifest: readManifest(writer.dir),
    scorecard: card,
    suite,
    resumedJobs,
    ...(filters ? { selectedCases: suite.cases.length, suiteCases: loaded.cases.length } : {}),
  };
}

/**
 * Refuses, before anything runs, a suite with a model-graded assertion and no grader for it: a
 * surprise call to a paid default API is worse than an error. Also checks grader ids are known.
 */
export function checkGraders(
  suite: Suite,
  override: ProviderSpec | undefined,
  embedder?: ProviderSpec,
): void {
  const problems: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const c of suite.cases) {
    for (const spec of allAssertions(c.asserts)) {
      const scorer = getScorer(spec.type);
      if (!scorer?.graded && !scorer?.usesGrader) continue;
      const graderSpec = graderSpecFor(spec, override, suite.grader, embedder);
      const where = spec.source ?? c.source ?? { file: suite.source.path };
      if (!graderSpec) {
        if (!scorer.graded) continue;
        const key = `none\u0000${spec.type}`;
        if (seen.has(key)) continue;
        seen.add(key);
        problems.push({
          ...where,
          severity: 'error',
          message: `${spec.type} needs a grader model and none is configured: give --grader PROVIDER, a suite default grader (promptfoo: defaultTest.options.provider), or a provider on the assertion`,
        });
      } else {
        for (const id of [graderSpec.id, graderSpec.embedding?.id]) {
          if (id === undefined || id === SELF_GRADER || isKnownProviderId(id)) continue;
          const key = `unknown\u0000${id}`;
          if (seen.has(key)) continue;
          seen.add(key);
          problems.push({
            ...where,
            severity: 'error',
            message: `grader "${id}": unknown provider; expected one of: ${providerPatterns().join(', ')}`,
          });
        }
      }
    }
  }
  if (problems.length > 0) throw new InputError(problems);
}

/** Assertions with the members of groups (assert-sets) after their group. */
function* allAssertions(specs: AssertionSpec[]): Generator<AssertionSpec> {
  for (const spec of specs) {
    yield spec;
    if (spec.children) yield* allAssertions(spec.children);
  }
}

/** Jobs a plan will run (in one shard, when sharded), without materialising them. */
function countPlanned(
  suite: Suite,
  providers: ProviderSpec[],
  plan: PlanOptions,
  shard: Shard | undefined,
): number {
  if (!shard) return countJobs(suite, providers, plan);
  let n = 0;
  for (const job of planJobs(suite, providers, plan)) if (inShard(job, shard)) n++;
  return n;
}

/** Refuses to resume a run made from other inputs: its results would not be the same experiment. */
function checkResumable(runDir: string, next: RunManifest): RunManifest {
  let previous: RunManifest;
  try {
    previous = readManifest(runDir);
  } catch {
    throw new InputError({
      file: runDir,
      message: 'not a run directory (no readable manifest.json)',
      severity: 'error',
    });
  }
  const problems: string[] = [];
  if (previous.suite.contentHash !== next.suite.contentHash) {
    problems.push(
      `the suite changed since that run (content hash ${short(previous.suite.contentHash)} → ${short(next.suite.contentHash)})`,
    );
  }
  if (previous.options.repeat !== next.options.repeat) {
    problems.push(`--repeat differs (${previous.options.repeat} then, ${next.options.repeat} now)`);
  }
  const shardText = (m: RunManifest): string =>
    m.options.shard ? `${m.options.shard.index}/${m.options.shard.count}` : 'none';
  if (shardText(previous) !== shardText(next))
    problems.push(`--shard differs (${shardText(previous)} then, ${shardText(next)} now)`);
  const selectionText = (m: RunManifest): string => JSON.stringify(m.options.selection ?? {});
  if (selectionText(previous) !== selectionText(next))
    problems.push(
      `the filters or --var values differ (${selectionText(previous)} then, ${selectionText(next)} now)`,
    );
  const providerKeys = (m: RunManifest): string => JSON.stringify(m.providers);
  if (providerKeys(previous) !== providerKeys(next)) problems.push('the providers or their settings differ');
  if (problems.length > 0) {
    throw new InputError(
      problems.map((p) => ({
        file: runDir,
        message: `cannot resume: ${p}; start a new run instead`,
        severity: 'error' as const,
      })),
    );
  }
  return previous;
}

function short(hash: string): string {
  return hash.slice(0, 12);
}

function errorAllowance(budget: ErrorBudget | undefined, planned: number): number {
  if (!budget) return Number.POSITIVE_INFINITY;
  if (budget.fraction !== undefined) return Math.floor(budget.fraction * planned);
  return budget.count ?? Number.POSITIVE_INFINITY;
}

/**
 * The providers to run: the suite's, or those named with `-p`. A name matching a suite provider
 * (exact id, exact label, or id ending in `:name`) keeps that provider's config.
 */
export function selectProviders(suite: Suite, overrides: string[] | undefined): ProviderSpec[] {
  if (!overrides || overrides.length === 0) {
    // Some formats (ÈwéBench) name no model: the model under test comes from the command line.
    if (suite.providers.length === 0)
      throw new InputError({
        file: suite.source.path,
        message: `a ${suite.format} suite names no model: give one with -p, e.g. -p openai:chat:MODEL (OPENAI_BASE_URL for a local OpenAI-compatible server)`,
        severity: 'error',
      });
    return suite.providers;
  }
  const out: ProviderSpec[] = [];
  const problems: string[] = [];
  for (const name of overrides) {
    const match =
      suite.providers.find((p) => p.id === name) ??
      suite.providers.find((p) => p.label === name) ??
      suite.providers.find((p) => p.id.endsWith(`:${name}`));
    const spec = match ?? (isKnownProviderId(name) ? { id: name } : undefined);
    if (spec && out.some((p) => providerKey(p) === providerKey(spec)))
      problems.push(`--provider ${name}: given twice`);
    else if (spec) out.push(spec);
    else
      problems.push(
        `--provider ${name}: unknown provider; expected one of: ${providerPatterns().join(', ')}`,
      );
  }
  if (problems.length > 0)
    throw new InputError(problems.map((message) => ({ file: '', message, severity: 'error' as const })));
  return out;
}

function redactCommand(argv: string[]): string[] {
  return argv.map((a) => a.replace(/((?:api[-_]?key|token|secret|password)[^=]*=)\S+/gi, '$1[redacted]'));
}
