// evaluate(): the library entry point behind `assay eval` — load, check, run, and write the run
// directory. The checks it makes first are in src/evaluate/.
import { join, resolve } from 'node:path';
import { LiveScorecard } from './analysis/scorecard.js';
import { type OutputRule, outputRule, outputRuleNames } from './core/answer.js';
import { caseCount, surveyOf } from './core/cases.js';
import { InputError } from './core/errors.js';
import type { Scorecard } from './core/scorecard.js';
import { Secrets } from './core/secrets.js';
import type { Case, Job, JobResult, ProviderSpec, Suite, SuiteFilters } from './core/types.js';
import { CacheFileError, ResponseCache } from './engine/cache.js';
import { addCaseProvider } from './engine/case-providers.js';
import { filterProviders, filterSuite } from './engine/filter.js';
import { GraderPool } from './engine/graders.js';
import { jobCounter, type PlanOptions, planJobs, plannedJobs, providerKey } from './engine/plan.js';
import { type ResolvedProvider, type RunOutcome, runSuite } from './engine/run.js';
import { inShard, type Shard } from './engine/shard.js';
import { hasOrderedThreads, type TurnSource, turnSourceOf } from './engine/threads.js';
import { graderCheck, graderRecord } from './evaluate/check-graders.js';
import { checkSuite } from './evaluate/define-suite.js';
import { Disposer } from './evaluate/disposer.js';
import { allowedErrors, type ErrorBudget } from './evaluate/error-budget.js';
import { countPlanned, newManifest } from './evaluate/manifest.js';
import { RecordedGenerations } from './evaluate/recorded.js';
import { checkResumable } from './evaluate/resumable.js';
import { selectProviders } from './evaluate/select-providers.js';
import { type RunSettings, resolveRunSettings } from './evaluate/settings.js';
import { refuseUnusableProviders } from './evaluate/unusable.js';
import { loadSuite, loadSuiteObject, suiteFormats } from './formats/detect.js';
import { declareProviderSecrets } from './providers/provider-secrets.js';
import { createProvider } from './providers/registry.js';
import {
  DEFAULT_RETRY_POLICY,
  type Provider,
  type ProviderContext,
  type RetryPolicy,
} from './providers/types.js';
import { runCompleteness } from './runlog/completeness.js';
import { pinFilters, readSelectedFailures } from './runlog/failing.js';
import { cleanLeftovers, lockRun } from './runlog/lock.js';
import { readManifest, readResults } from './runlog/reader.js';
import { dropErrorResults, dropPartialGroups, repairTail } from './runlog/resume.js';
import type { RunManifest, Selection } from './runlog/types.js';
import { RunWriter } from './runlog/writer.js';
import { closePythonWorker, killPythonWorker, setPythonTimeLimit } from './scorers/code/index.js';

export type { ErrorBudget } from './evaluate/error-budget.js';

/** A run whose recorded generations are re-scored. */
interface RescoreSource {
  dir: string;
  manifest: RunManifest;
  recorded: RecordedGenerations;
  /** The source run's provider columns, as the suite describes them (else by their recorded ids). */
  providers(suite: Suite): ProviderSpec[];
}

async function openSource(runDir: string): Promise<RescoreSource> {
  const dir = resolve(runDir);
  let manifest: RunManifest;
  try {
    manifest = readManifest(dir);
  } catch (err) {
    throw new InputError({
      file: join(dir, 'manifest.json'),
      message: `not a run directory: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  const recorded = await RecordedGenerations.open(dir);
  return {
    dir,
    manifest,
    recorded,
    providers(suite) {
      return manifest.providers.map((p) => {
        const key = String(p.key ?? p.id);
        const own = suite.providers.find((s) => providerKey(s) === key);
        return own ?? (key === p.id ? { id: String(p.id) } : { id: String(p.id), label: key });
      });
    },
  };
}

/** The jobs of a plan that the source run recorded (the ones a rescore scores). */
function countRecorded(
  suite: Suite,
  providers: ProviderSpec[],
  plan: PlanOptions,
  recorded: RecordedGenerations,
): number {
  let n = 0;
  for (const { job, testCase } of plannedJobs(suite, providers, plan)) if (recorded.has(job, testCase)) n++;
  return n;
}

export { DEFAULT_MAX_CONCURRENCY } from './evaluate/settings.js';

export interface EvaluateOptions {
  /** A suite file or folder (ignored when `suite` or `config` is given). */
  suitePath?: string;
  /**
   * A suite already loaded (`loadSuite`) or written in code (`defineSuite`); one built by hand is
   * checked first (an InputError naming the path, e.g. `cases[0].asserts`).
   */
  suite?: Suite;
  /**
   * A config object of a format's shape instead of a file: by default a promptfoo config
   * (`{ prompts, providers, tests }`), read as its file would be. Mistakes are InputErrors naming
   * the path in the object (`tests[3].assert[0].type`).
   */
  config?: Record<string, unknown>;
  /** The format of `config` (default `promptfoo`). */
  configFormat?: string;
  /** Where relative `file://` paths of `config` resolve (default: the current folder). */
  basePath?: string;
  /** Provider ids or labels replacing the suite's providers (`-p`). */
  providers?: string[];
  /** `--grader`: the grader for model-graded assertions that name no provider of their own. */
  grader?: ProviderSpec;
  /** `--embedder`: the embedding provider for graders that have none (similarity assertions). */
  embedder?: ProviderSpec;
  maxConcurrency?: number;
  repeat?: number;
  /** `--pass-at`: the k of pass@k and pass^k in the scorecard of a repeated run (besides 1 and the trials). */
  passAt?: number[];
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
  /**
   * Re-score this run directory's recorded generations with the suite's current assertions, into a
   * new run that names its source (`assay rescore`): no model is called (graded assertions still
   * ask their graders). Providers and repeat default to the source run's.
   */
  rescore?: string;
  /**
   * The `-o` files the caller writes after the run: recorded in the manifest as `outputsPending`
   * until the caller has written them all (see `clearOutputsPending`).
   */
  outputs?: string[];
  /** The response cache: a file and its time-to-live; undefined or false for none. */
  cache?: { path: string; ttlSeconds?: number } | false;
  /** Past this many errors the run stops (status `aborted`). Default: no early stop. */
  maxErrors?: ErrorBudget;
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** The command line, recorded in the manifest (secrets redacted). */
  command?: string[];
  /**
   * The run's secrets, its one redaction boundary: every credential the run is given is declared
   * into it, and everything the run writes goes through it. Give one to redact other output the
   * same way (the CLI prints through its own); a new one otherwise.
   */
  secrets?: Secrets;
  /** Called after each result is logged, with the running counts. */
  onProgress?: (progress: Progress) => void;
  /** Called with each result as the run log holds it (secrets redacted). */
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
 * scorecard.json). The library entry point behind `assay eval`: prepareRun, then executeRun.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  return executeRun(await prepareRun(options));
}

/**
 * Everything decided before a run, with nothing written: the suite (filtered), the settings, the
 * providers built, the planned job count and the manifest to write. It owns the providers it built
 * (and a re-score's source log): disposing it releases them; executeRun does.
 */
export interface PreparedRun extends AsyncDisposable {
  options: EvaluateOptions;
  /** The suite as loaded, before filters. */
  loaded: Suite;
  suite: Suite;
  settings: RunSettings;
  filters: SuiteFilters | undefined;
  source: RescoreSource | undefined;
  resolved: ResolvedProvider[];
  caseProviders: Map<string, Provider>;
  /** The graders the assertions ask, built up front; executeRun hands them to its GraderPool. */
  builtGraders: Map<string, Provider>;
  providerEnv: Record<string, string | undefined>;
  providerContext: ProviderContext;
  secrets: Secrets;
  plan: PlanOptions;
  planned: number;
  /** A re-score: the planned jobs its source never ran. */
  notRecorded: number;
  manifest: RunManifest;
  /** The suite's output rule (Suite.answerRule), resolved before anything runs. */
  outputRule: OutputRule;
}

/**
 * The first half of evaluate(): loads the suite, resolves settings and filters, builds the
 * providers and graders (so a bad config stops before anything is written), counts the planned jobs
 * and makes the manifest. Writes nothing.
 */
export async function prepareRun(options: EvaluateOptions): Promise<PreparedRun> {
  const owned = new Disposer();
  try {
    return await prepareInto(options, owned);
  } catch (err) {
    await owned[Symbol.asyncDispose]();
    throw err;
  }
}

async function prepareInto(options: EvaluateOptions, owned: Disposer): Promise<PreparedRun> {
  const env = options.env ?? process.env;
  const loaded = options.suite
    ? checkSuite(options.suite)
    : options.config !== undefined
      ? await loadSuiteObject(options.config, {
          env,
          vars: options.vars,
          basePath: options.basePath,
          format: options.configFormat,
        })
      : await loadSuite(options.suitePath, { env, vars: options.vars });
  const rule = await suiteOutputRule(loaded);
  // The caller's settings over the suite's own run defaults: the same resolution as `assay eval`'s.
  const settings = resolveRunSettings(loaded, options);
  const filters = pinFilters(settings.filters, options.runsDir);
  // A results file of a format's own tool (promptfoo's results JSON) is read by that format.
  const readers = (await suiteFormats()).flatMap((f) => (f.failures ? [f.failures] : []));
  const failing = await readSelectedFailures(filters, readers);
  const suite = filters ? filterSuite(loaded, filters, failing) : loaded;
  const source = options.rescore ? await openSource(options.rescore) : undefined;
  if (source) owned.defer(() => source.recorded.close());
  const providers = filterProviders(
    source && !options.providers ? source.providers(suite) : selectProviders(suite, options.providers),
    filters?.providers,
  );
  const selection: Selection = {};
  if (filters) selection.filters = filters;
  if (options.vars && Object.keys(options.vars).length > 0) selection.vars = options.vars;
  const repeat = options.repeat ?? source?.manifest.options.repeat ?? settings.repeat;
  const { jobTimeoutMs, maxRunMs, maxConcurrency, grader } = settings;
  const delayMs = settings.delayMs || undefined;
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const providerEnv = { ...env, ...(suite.env ?? {}) };
  const secrets = (options.secrets ?? new Secrets()).addEnv(providerEnv);
  // Each provider built declares its credentials (providers/provider-secrets.ts); so do those
  // named only as graders, whether or not a job asks them.
  for (const g of [suite.grader, options.grader, options.embedder]) if (g) declareProviderSecrets(secrets, g);
  const providerContext: ProviderContext = {
    env: providerEnv,
    maxConcurrency,
    retry,
    basePath: suite.basePath,
    secrets,
    // A credential a provider obtains mid-run (an access token) is a secret from then on.
    addSecret: (value: string) => secrets.add(value),
  };
  // A provider's own `env` overrides the run's for that provider only.
  const contextFor = (spec: ProviderSpec) =>
    spec.env ? { ...providerContext, env: { ...providerEnv, ...spec.env } } : providerContext;
  const resolved = await buildAll(owned, providers, async (spec) => ({
    spec,
    provider: await createProvider(spec, contextFor(spec)),
  }));
  refuseMaskedTwins(resolved, secrets);
  const plan: PlanOptions = { repeat };
  const shard = options.shard;
  const recorded = source?.recorded;
  // One pass over the cases for everything decided before the run: a streamed suite reads its
  // files once for all of it. (A shard or a rescore counts its jobs by their keys, a pass of its own.)
  const graderChecks = graderCheck(suite, grader, options.embedder);
  const caseSpecs = new Map<string, ProviderSpec>();
  const jobsOf = recorded || shard ? undefined : jobCounter(suite, providers, plan);
  let planned = 0;
  // The providers under test some job of the suite calls (a case naming its own provider, or
  // restricted to others, calls none of them): only those must be able to make a call.
  const called = new Set<ProviderSpec>();
  const columns = providers.map((spec) => ({ spec, jobsOf: jobCounter(suite, [spec], { repeat: 1 }) }));
  // A streamed suite's loader surveyed its cases on its first pass: one case of each kind is enough.
  for (const { c, count } of surveyOf(suite)) {
    graderChecks.visit(c);
    addCaseProvider(caseSpecs, c);
    if (jobsOf) planned += count * jobsOf(c);
    if (!c.preparation?.options?.provider && called.size < columns.length)
      for (const { spec, jobsOf: of } of columns) if (!called.has(spec) && of(c) > 0) called.add(spec);
  }
  graderChecks.done();
  // Providers that cases name for themselves are built up front, so a bad one stops the run before it starts.
  const caseProviders = new Map(
    await buildAll(
      owned,
      [...caseSpecs],
      async ([key, spec]) => [key, await createProvider(spec, contextFor(spec))] as const,
    ),
  );
  // So are the graders the assertions will ask (a grader without its endpoint is a config error too).
  // Until executeRun hands them to its GraderPool (which then closes them).
  const builtGraders = new Map(
    await buildAll(owned, graderChecks.used(), async (spec) => {
      try {
        return [providerKey(spec), await createProvider(spec, providerContext)] as const;
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        // Say it is the grader: a default grader is named nowhere in the suite.
        throw new InputError(err.diagnostics.map((d) => ({ ...d, message: `grader ${d.message}` })));
      }
    }),
  );
  // A provider or grader that cannot make a single call (no key) stops the run before it starts. A
  // re-score calls no provider under test, only the graders.
  refuseUnusableProviders(suite.source.path, {
    underTest: recorded
      ? []
      : [...resolved.filter((r) => called.has(r.spec)).map((r) => r.provider), ...caseProviders.values()],
    graders: graderChecks
      .required()
      .map((spec) => builtGraders.get(providerKey(spec)))
      .filter((p): p is Provider => p !== undefined),
  });
  if (recorded) planned = countRecorded(suite, providers, plan, recorded);
  else if (shard) planned = countPlanned(suite, providers, plan, shard);
  // A re-score covers what its source recorded: the jobs of the suite (of the source's shard) the
  // source never ran are counted, and a source that did not complete passes its status on.
  const sourceShard = source?.manifest.options.shard;
  // A source marked complete whose log is short (cut by hand, a copy cut off) is not whole either:
  // its missing jobs count, and its re-score is interrupted, never a complete run of fewer jobs.
  const sourceMissing = source ? (await runCompleteness(source.dir)).missing : 0;
  const notRecorded = source
    ? Math.max(sourceMissing, countPlanned(suite, providers, plan, sourceShard) - planned, 0)
    : 0;
  const sourceIncomplete = source && (source.manifest.status !== 'complete' || sourceMissing > 0);
  const manifest = newManifest(
    suite,
    resolved,
    { repeat, maxConcurrency, shard, selection, delayMs, jobTimeoutMs, maxRunMs, passAt: options.passAt },
    planned,
    options.command ?? [],
  );
  if (graderChecks.usesDefault()) {
    const record = graderRecord(suite, grader, options.grader !== undefined, options.embedder);
    if (record) manifest.grader = record;
  }
  if (source) {
    manifest.rescoredFrom = {
      runId: source.manifest.runId,
      dir: source.dir,
      results: source.recorded.size,
      unmatched: 0,
      ...(sourceIncomplete
        ? {
            // A source killed without a resume still says `running`: it stopped, it is interrupted;
            // one marked complete with a short log stopped short too.
            status:
              source.manifest.status === 'running' || source.manifest.status === 'complete'
                ? 'interrupted'
                : source.manifest.status,
            notRecorded,
          }
        : {}),
    };
    // One shard re-scored is still one shard.
    if (sourceShard) manifest.options.shard = sourceShard;
  }
  const releases = owned.move();
  return {
    options,
    loaded,
    suite,
    settings,
    filters,
    source,
    resolved,
    caseProviders,
    builtGraders,
    providerEnv,
    providerContext,
    secrets,
    plan,
    planned,
    notRecorded,
    manifest,
    outputRule: rule,
    [Symbol.asyncDispose]: () => releases[Symbol.asyncDispose](),
  };
}

/**
 * The output rule a suite names (Suite.answerRule; `default` when none). A format registers its
 * rule when its module loads, so a suite built in code that names one is given the formats first;
 * a name no one registered is refused before anything runs.
 */
async function suiteOutputRule(suite: Suite): Promise<OutputRule> {
  const name = suite.answerRule;
  if (name !== undefined && !outputRuleNames().includes(name)) await suiteFormats();
  try {
    return await outputRule(name);
  } catch (err) {
    throw new InputError({ file: suite.source.path, message: (err as Error).message, severity: 'error' });
  }
}

/**
 * Builds every item at once; each one built is closed when `owned` is released, the others built
 * included when one fails (that failure is then thrown, once every build has settled).
 */
async function buildAll<S, T extends readonly [string, Provider] | { provider: Provider }>(
  owned: Disposer,
  specs: readonly S[],
  build: (spec: S) => Promise<T>,
): Promise<T[]> {
  const settled = await Promise.allSettled(specs.map(build));
  const built = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  owned.defer(() => closeAll(built.map((b) => ('provider' in b ? b.provider : b[1]))));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return built;
}

/**
 * Two providers whose names differ only in a credential (`http://host/api?token=A` and `…?token=B`)
 * would be one column once it is masked: refused before anything runs, asking for labels.
 */
function refuseMaskedTwins(resolved: ResolvedProvider[], secrets: Secrets): void {
  const seen = new Map<string, string>();
  for (const { spec } of resolved) {
    const key = providerKey(spec);
    const shown = secrets.redact(key);
    const other = seen.get(shown);
    if (other !== undefined && other !== key)
      throw new InputError({
        ...(spec.source ?? { file: '' }),
        severity: 'error',
        message: `two providers are both shown as "${shown}": they differ only in a credential, which assay never writes; give each a label`,
      });
    seen.set(shown, key);
  }
}

/** Closes providers one after another (in the order given). */
async function closeAll(providers: Provider[]): Promise<void> {
  for (const p of providers) await p.close?.();
}

/**
 * The second half of evaluate(): takes the run's lock, opens the cache and the run directory, runs
 * the jobs, and writes the scorecard and the final manifest. Releases everything the prepared run
 * owns, and everything it opened, however it ends.
 */
export async function executeRun(prepared: PreparedRun): Promise<EvaluateResult> {
  const { options, suite, loaded, filters, source, manifest, planned, notRecorded } = prepared;
  // A run is owned by one process at a time: a resume takes its lock before anything else.
  await using held = new Disposer();
  // Released by runJobs once the jobs are done; here too, should anything before them fail.
  held.use(prepared);
  if (options.resume) {
    const lock = lockRun(resolve(options.resume));
    held.defer(() => lock.release());
  }
  const { writer, outcome, live } = await runJobs(prepared, held);
  // The scorecard is what the log says: built as the results were logged, by the code that reads
  // a past run's log (analysis/scorecard.ts LiveScorecard; the progress counts only fed the progress line).
  const card = live.build();
  live.finish(writer.dir);
  writer.writeJson('scorecard.json', card);
  // Complete means every planned job is in the log, nothing less, whatever else happened.
  const finished = card.counts.total >= planned;
  let status: RunManifest['status'] = finished ? 'complete' : outcome.interrupted ? 'interrupted' : 'aborted';
  if (!finished && !outcome.stopReason) outcome.stopReason = 'not every planned job ran';
  const inherited = manifest.rescoredFrom?.status;
  if (status === 'complete' && inherited && inherited !== 'complete') {
    status = inherited;
    outcome.stopReason = `re-scored from run ${manifest.rescoredFrom?.runId}, which is ${inherited}${source?.manifest.stopReason ? ` (${source.manifest.stopReason})` : ''}: ${notRecorded} planned job${notRecorded === 1 ? ' was' : 's were'} never run`;
  }
  writer.updateManifest({
    status,
    stopReason: status === 'complete' ? undefined : outcome.stopReason,
    endedAt: new Date().toISOString(),
    counts: card.counts,
    ...(options.outputs?.length ? { outputsPending: options.outputs } : {}),
    ...(source && manifest.rescoredFrom
      ? { rescoredFrom: { ...manifest.rescoredFrom, unmatched: source.recorded.unmatched } }
      : {}),
  });
  return {
    runDir: writer.dir,
    manifest: readManifest(writer.dir),
    scorecard: card,
    suite,
    resumedJobs: outcome.resumedJobs,
    ...(filters ? { selectedCases: caseCount(suite), suiteCases: caseCount(loaded) } : {}),
  };
}

/**
 * Opens the cache and the run directory (a new one, or the resumed one with its log read back),
 * then runs the jobs. Everything opened here (and the prepared run's providers) is released before
 * it returns; the lock of a new run directory goes to `held`.
 */
async function runJobs(
  prepared: PreparedRun,
  held: Disposer,
): Promise<{ writer: RunWriter; outcome: RunOutcome & { resumedJobs: number }; live: LiveScorecard }> {
  const { options, suite, settings, source, resolved, caseProviders, providerEnv, providerContext, secrets } =
    prepared;
  const { plan, planned, manifest } = prepared;
  await using run = new Disposer();
  run.use(prepared);
  const { jobTimeoutMs, maxRunMs, fallbackDelayMs, maxConcurrency, grader } = settings;
  const delayMs = settings.delayMs || undefined;
  const shard = options.shard;
  const recorded = source?.recorded;
  const providers = resolved.map((r) => r.spec);

  const progress: Progress = { done: 0, planned, pass: 0, fail: 0, error: 0 };
  const count = (result: JobResult): void => {
    progress.done++;
    if (result.status === 'pass') progress.pass++;
    else if (result.status === 'fail') progress.fail++;
    else if (result.status === 'error') progress.error++;
  };

  if (options.resume) cleanLeftovers(resolve(options.resume));
  // The cache opens before the run directory exists: a bad cache path must leave nothing behind.
  let cache: ResponseCache | undefined;
  // Only providers whose answers cost something use the cache; an echo-only run never opens it.
  const cacheTarget = settings.cache;
  if (cacheTarget && resolved.some((r) => r.provider.cacheable !== false)) {
    try {
      cache = ResponseCache.open(cacheTarget.path, { ttlSeconds: cacheTarget.ttlSeconds, secrets });
    } catch (err) {
      if (err instanceof CacheFileError)
        throw new InputError({ file: cacheTarget.path, message: err.message, severity: 'error' });
      throw err;
    }
    const opened = cache;
    run.defer(() => opened.close());
  }
  let writer: RunWriter;
  let live: LiveScorecard;
  const done = new Set<string>();
  // A resumed thread's later turns must see its earlier ones: keep the turns the log already has.
  const turnsDone = new Map<string, TurnSource>();
  if (options.resume) {
    const threaded = suite.prompts.some((p) => p.threadVar !== undefined) || hasOrderedThreads(suite);
    const runDir = resolve(options.resume);
    const previous = checkResumable(runDir, manifest);
    repairTail(join(runDir, 'results.jsonl'));
    if (options.retryErrors) await dropErrorResults(runDir);
    // Rows judged together must run together: a group only partly in the log runs again whole.
    await dropPartialGroups(runDir, planJobs(suite, providers, plan));
    const reopened: RunManifest = {
      ...manifest,
      runId: previous.runId,
      startedAt: previous.startedAt,
      command: previous.command,
      resumedAt: [...(previous.resumedAt ?? []), manifest.startedAt],
    };
    // The card is seeded with what the log holds, read here once for the jobs done anyway.
    live = new LiveScorecard(RunWriter.asWritten(reopened, secrets));
    for await (const r of readResults(runDir)) {
      live.addLogged(r);
      if (done.has(r.key)) continue;
      done.add(r.key);
      count(r);
      if (threaded) turnsDone.set(r.key, turnSourceOf(r));
    }
    writer = RunWriter.reopen(runDir, reopened, maxConcurrency, secrets);
  } else {
    // Results of one event-loop turn share a write; at most -j of them wait (the jobs in flight).
    writer = RunWriter.create(resolve(options.runsDir ?? '.assay/runs'), manifest, maxConcurrency, secrets);
    live = new LiveScorecard(writer.manifestAsWritten);
    const lock = lockRun(writer.dir);
    held.defer(() => lock.release());
  }
  const opened = writer;
  run.defer(() => opened.close());
  const resumedJobs = done.size;
  const graders = new GraderPool({
    override: grader,
    embedder: options.embedder,
    suiteDefault: suite.grader,
    providerContext,
    cache,
    hardSignal: options.hardSignal,
    secrets,
    built: takeBuiltGraders(prepared),
  });
  run.defer(() => graders.close());
  const allowedErrorCount = allowedErrors(options.maxErrors, planned, Number.POSITIVE_INFINITY);

  // A Python call may run as long as a job may (60 s when the suite sets no job time limit); a hard
  // stop kills the worker, so no job waits on Python code that never returns.
  setPythonTimeLimit(jobTimeoutMs);
  const stopPython = (): void => killPythonWorker();
  options.hardSignal?.addEventListener('abort', stopPython, { once: true });
  run.defer(async () => {
    options.hardSignal?.removeEventListener('abort', stopPython);
    await closePythonWorker();
    setPythonTimeLimit(undefined);
  });
  const outcome = await runSuite(suite, resolved, {
    ...plan,
    maxConcurrency,
    env: providerEnv,
    secrets,
    signal: options.signal,
    hardSignal: options.hardSignal,
    cache,
    graders,
    caseProviders,
    delayMs: delayMs ?? fallbackDelayMs,
    jobTimeoutMs,
    maxRunMs,
    include: (job: Job, testCase: Case) =>
      (!shard || inShard(job, shard)) && !done.has(job.key) && (!recorded || recorded.has(job, testCase)),
    recorded,
    outputRule: prepared.outputRule,
    ...(turnsDone.size > 0 ? { earlierTurn: (job: Job) => turnsDone.get(job.key) } : {}),
    stopWhen: () =>
      progress.error > allowedErrorCount
        ? `error budget exceeded: ${progress.error} errors, at most ${allowedErrorCount} allowed (--max-errors)`
        : undefined,
    onResult: (result) => {
      const logged = writer.append(result);
      live.add(result, logged);
      count(result);
      // The caller sees the result as the log holds it: one printing it prints no secret.
      options.onResult?.(logged === undefined ? result : (JSON.parse(logged) as JobResult));
      options.onProgress?.(progress);
    },
  });
  return { writer, outcome: { ...outcome, resumedJobs }, live };
}

/** The prepared run's built graders, which the caller now closes (the prepared run no longer does). */
function takeBuiltGraders(prepared: PreparedRun): Map<string, Provider> {
  const built = new Map(prepared.builtGraders);
  prepared.builtGraders.clear();
  return built;
}
