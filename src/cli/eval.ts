// `assay eval`: reads the flags, loads the suite, runs it with a progress line and Ctrl-C handling,
// then prints the summary and writes the -o files.
import { resolve } from 'node:path';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { DEFAULT_CACHE_TTL_SECONDS, defaultCachePath } from '../engine/cache.js';
import { parseShard } from '../engine/shard.js';
import { selectProviders } from '../evaluate/select-providers.js';
import { resolveRunSettings } from '../evaluate/settings.js';
import { evaluate } from '../evaluate.js';
import { loadSuite } from '../formats/detect.js';
import { renderComparison } from '../report/compare.js';
import { renderResultLine, renderSummary } from '../report/console.js';
import type { OutputJudgement } from '../report/formats.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { readManifest } from '../runlog/reader.js';
import { guard, intFlag, parseFlags, shellWord, useColor } from './common.js';
import { checkGateBaseline, compareDirs, compareExitCode, compareOptionsFrom } from './compare.js';
import { loadEnvFiles } from './env.js';
import { EVAL_FLAGS, EVAL_USAGE } from './eval-usage.js';
import { exitCode, parseErrorBudget } from './exit-code.js';
import { envFilesFrom, filtersFrom, seedSample, varsFrom } from './filter-flags.js';
import { githubReporterOn, writeGithubReport } from './github.js';
import { outputTargets, recordTarget, refuseOverwritingInputs, writeOutputs } from './outputs.js';
import { ProgressLine, showLoading } from './progress.js';
import { normaliseResumeFlag, resolveResume } from './resume-flag.js';
import { checkExpectedHash, graderFrom, loadOptionsFrom, SUITE_FLAGS } from './suite-flags.js';

/** `assay eval`: run a suite. */
export async function evalCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(normaliseResumeFlag(args), EVAL_FLAGS);
    if (values.help) {
      process.stdout.write(EVAL_USAGE);
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`expected one suite, got ${positionals.length}: ${positionals.join(' ')}`);
    // Several -c configs are one suite, combined as their format combines them (promptfoo's -c a -c b).
    const configs = values.config ?? [];
    if (configs.length > 0 && positionals.length > 0) {
      throw new InputError(`two suites given (-c ${configs[0]} and ${positionals[0]}); give one`);
    }
    const delayFlag = intFlag('delay', values.delay, 0);
    const jobsFlag = intFlag('max-concurrency', values['max-concurrency'], 1, 10_000);
    let filters = filtersFrom(values);
    let vars = varsFrom(values.var);
    const repeatFlag = intFlag('repeat', values.repeat, 1, 100_000);
    const maxRetries = intFlag('max-retries', values['max-retries'], 0);
    const timeoutMs = intFlag('request-timeout', values['request-timeout']);
    const maxErrors = values['max-errors'] !== undefined ? parseErrorBudget(values['max-errors']) : undefined;
    const shard = values.shard !== undefined ? parseShard(values.shard) : undefined;
    const graceSeconds = intFlag('grace-period', values['grace-period'], 0) ?? 10;
    const cacheTtl = intFlag('cache-ttl', values['cache-ttl'], 0) ?? DEFAULT_CACHE_TTL_SECONDS;
    const cacheTarget = {
      path: resolve(values['cache-path'] ?? defaultCachePath(process.env, process.cwd())),
      ttlSeconds: cacheTtl,
    };
    if (values['retry-errors'] && values.resume === undefined)
      throw new InputError('--retry-errors goes with --resume');
    const passAtFlag =
      values['pass-at'] !== undefined ? compareOptionsFrom({ 'pass-at': values['pass-at'] }).ks : undefined;
    // The gate's baseline and options are checked before anything runs, like every other flag.
    const gate = values.baseline !== undefined ? compareOptionsFrom(values) : undefined;
    const baselineDir =
      values.baseline !== undefined
        ? resolveRun(values.baseline, {
            runsDir: values['runs-dir'] ?? '.assay/runs',
            baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
          })
        : undefined;
    if (values.reporter !== undefined && values.reporter !== 'github' && values.reporter !== 'none')
      throw new InputError(`--reporter ${values.reporter}: expected github or none`);
    const github = githubReporterOn(values.reporter, process.env);
    // Output targets are checked before anything runs: a typo in -o must not cost a run.
    let outputs = outputTargets(values.output ?? [], values['output-format']);

    const suitePath = configs[0] ?? positionals[0];
    const embedder = graderFrom(values.embedder, '--embedder');
    const envLoad = loadEnvFiles(envFilesFrom(values), suitePath);
    if (envLoad.files.length > 0 && values.verbose)
      process.stderr.write(
        `assay: environment from ${envLoad.files.join(', ')} (${envLoad.names.join(', ')})\n`,
      );
    const loadOptions = {
      ...loadOptionsFrom(values),
      ...(values.provider?.length ? { providers: values.provider } : {}),
    };
    if (configs.length > 1) loadOptions.combine = configs.slice(1);
    // "loading suite…" on the terminal at once: a large suite takes seconds to read.
    const loaded = values['no-progress'] ? undefined : showLoading('suite');
    let suite = await loadSuite(suitePath, { ...loadOptions, vars }).finally(loaded);
    checkExpectedHash(suite, values['expect-hash']);
    // LVE's own recording: the one output format that appends into the suite's folders.
    if (values.record !== undefined) outputs.push(recordTarget(values.record, 'lve'));
    for (const w of suite.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
    // The suite's own run settings are defaults: each flag given replaces the one it names.
    const defaults = suite.runDefaults ?? {};
    if (!envFilesFrom(values) && defaults.envFiles) {
      // commandLineOptions.envPath: promptfoo loads it relative to the config, overriding what is
      // set, before it reads the rest of the config — so the suite is read again with it.
      loadEnvFiles(
        defaults.envFiles.map((f) => resolve(suite.basePath, f)),
        suitePath,
      );
      suite = await loadSuite(suitePath, { ...loadOptions, vars });
    }
    if (outputs.length === 0 && defaults.outputs)
      outputs = defaults.outputs.flatMap((o) => outputTargets([o.path], values['output-format'] ?? o.format));
    // What the flags ask for; the suite's own run settings fill in the rest (evaluate/settings.ts,
    // the same resolution the library applies).
    const requested = {
      maxConcurrency: jobsFlag,
      repeat: repeatFlag,
      delayMs: delayFlag,
      cache: values['no-cache'] ? (false as const) : cacheTarget,
      grader: graderFrom(values.grader),
    };
    const showProgress = !values['no-progress'] && defaults.progress !== false;
    const runsDir = resolve(values['runs-dir'] ?? '.assay/runs');
    const resume =
      values.resume !== undefined
        ? resolveResume(values.resume, runsDir, suite.source.contentHash)
        : undefined;
    // Results the run being resumed appended into the suite's own folders (--record) are its
    // output, not a change of the suite: the suite is read as it was before them.
    const ownAppends = resume
      ? Object.assign({}, ...outputs.map((o) => (o.inPlace ? o.format.ownAppends?.(resume) : undefined)))
      : {};
    if (Object.keys(ownAppends).length > 0) {
      loadOptions.ownAppends = ownAppends;
      suite = await loadSuite(suitePath, { ...loadOptions, vars });
    }
    if (resume && !filters && !vars) {
      // A bare --resume continues the run as it was started: same filters, same --var values.
      const recorded = readManifest(resume).options.selection;
      if (recorded?.vars && Object.values(recorded.vars).includes('[redacted]'))
        throw new InputError(
          `--resume: the run was started with --var values whose names look secret, which were not recorded; give the same --var flags again`,
        );
      if (recorded?.filters || recorded?.vars) {
        process.stderr.write('assay: resuming with the filters and --var values the run was started with\n');
        filters = recorded.filters;
        vars = recorded.vars;
        if (vars) suite = await loadSuite(suitePath, { ...loadOptions, vars });
      }
    }
    const settings = resolveRunSettings(suite, { ...requested, filters });
    for (const note of settings.notes) process.stderr.write(`assay: ${note}\n`);
    filters = seedSample(settings.filters);
    // A native results file that cannot describe this run (another format, several models) is
    // refused now, not after the run has been paid for.
    const shape = {
      format: suite.format,
      native: suite.native,
      providers: selectProviders(suite, values.provider).length,
      repeat: settings.repeat,
    };
    if (values['output-format'] !== undefined && outputs.length === 0)
      throw new InputError(
        `--output-format ${values['output-format']} goes with -o FILE: there is no output to write`,
      );
    // Writing results over a file the suite was read from would destroy the tests themselves.
    const inputs = new Set([
      resolve(suite.source.path),
      ...suite.source.files.map((f) => resolve(suite.basePath, f)),
    ]);
    // Nor over the log of the run being resumed, nor the response cache (every cached answer).
    refuseOverwritingInputs(
      outputs.map((o) => o.path),
      resume ? [resume] : [],
      [cacheTarget.path],
    );
    for (const o of outputs) {
      if (inputs.has(o.path))
        throw new InputError(`-o ${o.path}: is one of the suite's own files; write the results elsewhere`);
      const problem = o.format.check?.(shape);
      if (problem) throw new InputError(`${o.inPlace ? '--record' : '-o'} ${o.path}: ${problem}`);
    }

    // The gate's baseline is checked against the suite before any model is called.
    if (baselineDir)
      await checkGateBaseline(baselineDir, suite, {
        allowPartial: values['allow-partial'] === true,
        shard: shard !== undefined,
      });

    const color = useColor(process.stdout, values['no-color'] === true);
    const progress = showProgress ? new ProgressLine() : undefined;
    const controller = new AbortController();
    const hard = new AbortController();
    let graceTimer: NodeJS.Timeout | undefined;
    const onSignal = (): void => {
      progress?.clear();
      if (controller.signal.aborted) {
        process.stderr.write('assay: stopping now; jobs in flight are left for --resume\n');
        hard.abort();
        return;
      }
      process.stderr.write(
        `\nassay: stopping: letting the jobs in flight finish (up to ${graceSeconds} s; Ctrl-C again to stop now)\n`,
      );
      controller.abort();
      graceTimer = setTimeout(() => hard.abort(), graceSeconds * 1000);
      graceTimer.unref();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let result: Awaited<ReturnType<typeof evaluate>>;
    try {
      result = await evaluate({
        suite,
        providers: values.provider,
        ...requested,
        ...(passAtFlag?.length ? { passAt: passAtFlag } : {}),
        embedder,
        filters,
        vars,
        shard,
        runsDir,
        resume,
        retryErrors: values['retry-errors'],
        maxErrors,
        retry: {
          ...(maxRetries !== undefined ? { maxAttempts: maxRetries + 1 } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        },
        command: ['assay', 'eval', ...args],
        outputs: outputs.map((o) => o.path),
        signal: controller.signal,
        hardSignal: hard.signal,
        onProgress: progress ? (p) => progress.update(p) : undefined,
        onResult: values.verbose
          ? (r) => {
              progress?.clear();
              process.stdout.write(renderResultLine(r, { color }));
            }
          : undefined,
      });
    } catch (err) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      throw err;
    } finally {
      clearTimeout(graceTimer);
      progress?.clear();
    }
    // The run is over and logged; a signal now must not kill assay half-way through an -o file.
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    const onLateSignal = (): void => {
      process.stderr.write(
        'assay: the run has ended; finishing its summary and output files, then stopping\n',
      );
    };
    process.on('SIGINT', onLateSignal);
    process.on('SIGTERM', onLateSignal);
    try {
      const { manifest, scorecard, runDir } = result;
      if (result.resumedJobs > 0)
        process.stdout.write(`Resumed run ${manifest.runId}: ${result.resumedJobs} jobs were already done\n`);
      if (result.selectedCases !== undefined)
        process.stdout.write(`Filters kept ${result.selectedCases} of ${result.suiteCases} test cases\n`);
      if (manifest.plannedJobs === 0)
        process.stdout.write(
          `Nothing to run: ${result.selectedCases === 0 ? 'the filters selected no test' : 'no prompt × provider × test combination is left'}\n`,
        );
      process.stdout.write(renderSummary(manifest, scorecard, runDir, { color }));
      if (manifest.status === 'interrupted' || manifest.status === 'aborted') {
        const runsFlag = values['runs-dir'] ? ` --runs-dir ${shellWord(values['runs-dir'])}` : '';
        const suiteArg = suitePath ? ` ${shellWord(suitePath)}` : '';
        // The flags that chose what the suite loaded (--args, --replay, --tier, …) and where its
        // results are written must be given again for the resume to find the same suite and outputs.
        const again = resumeFlags(values as Record<string, unknown>);
        // After an outage the errors are what most needs running again: say so in the command.
        const retry = scorecard.counts.error > 0 ? ' --retry-errors' : '';
        process.stdout.write(
          `To finish it: assay eval${suiteArg}${again}${runsFlag} --resume ${manifest.runId}${retry}\n`,
        );
      }
      const judgements: OutputJudgement[] = [];
      let written = await writeOutputs(runDir, scorecard, outputs, { judgements });
      if (github) written = (await writeGithubReport(runDir, manifest, scorecard, process.env)) && written;
      let code = exitCode(manifest.status, scorecard.counts, maxErrors, defaults);
      // A native output whose tool judges its own runs (apastra's thresholds and regression
      // policy) decides a run that completed: its gate, not the count of failing cases.
      if (judgements.length > 0) {
        for (const j of judgements) process.stdout.write(`\n${j.text}`);
        if (code !== 3) code = judgements.some((j) => j.failed) ? 1 : 0;
      }
      if (baselineDir && gate && manifest.status === 'complete' && code !== 3) {
        // The regression gate: the run is judged against the baseline, not by its own failures.
        const comparison = await compareDirs(
          baselineDir,
          runDir,
          gate.options,
          gate.ks,
          values['allow-partial'] === true,
        );
        process.stdout.write(
          renderComparison(comparison, { baseline: values.baseline ?? '', candidate: manifest.runId }),
        );
        code = compareExitCode(comparison, gate.failOn);
      }
      return written ? code : Math.max(code, 3);
    } finally {
      process.off('SIGINT', onLateSignal);
      process.off('SIGTERM', onLateSignal);
    }
  });
}

/** The flags a resume must repeat: those that choose the suite (SUITE_FLAGS) and the outputs. */
function resumeFlags(values: Record<string, unknown>): string {
  const names = [...Object.keys(SUITE_FLAGS), 'output', 'output-format', 'record'];
  let out = '';
  for (const name of names) {
    const v = values[name];
    for (const item of Array.isArray(v) ? v : [v]) {
      if (item === true) out += ` --${name}`;
      else if (typeof item === 'string') out += ` --${name} ${shellWord(item)}`;
    }
  }
  return out;
}
