// `assay eval`: reads the flags, loads the suite, runs it with a progress line and Ctrl-C handling,
// then prints the summary and writes the -o files.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatDiagnostic, InputError } from '../core/errors.js';
import type { Suite } from '../core/types.js';
import { DEFAULT_CACHE_TTL_SECONDS, defaultCachePath } from '../engine/cache.js';
import { parseShard } from '../engine/shard.js';
import { selectProviders } from '../evaluate/select-providers.js';
import { resolveRunSettings } from '../evaluate/settings.js';
import { evaluate } from '../evaluate.js';
import { type LoadOptions, loadSuite, loadSuiteObject, suiteFormats } from '../formats/detect.js';
import { appendedBefore } from '../outputs.js';
import { renderResultLine, renderSummary } from '../report/console.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { readManifest } from '../runlog/reader.js';
import { formatLoadOptions, parseCommand, usage } from './args.js';
import { guard, intFlag, shellWord, useColor } from './common.js';
import { loadEnvFiles } from './env.js';
import { exitCode, parseErrorBudget } from './exit-code.js';
import { envFilesFrom, filtersFrom, seedSample, varsFrom } from './filter-flags.js';
import {
  outputTargets,
  RUN_REPORT_MAX_RESULTS,
  recordTarget,
  refuseOverwritingInputs,
  reporterFrom,
  runReporter,
  suiteGate,
  type WrittenOutput,
  writeOutputs,
  writeRunReport,
} from './outputs.js';
import { ProgressLine, showLoading } from './progress.js';
import { promptsAndProviders, renderTable, tableFlag, testsFlag } from './promptfoo-flags.js';
import { normaliseResumeFlag, resolveResume } from './resume-flag.js';
import { checkExpectedHash, graderFrom, loadOptionsFrom } from './suite-flags.js';
import { terminalSecrets } from './terminal.js';

/** `assay eval`: run a suite. */
export async function evalCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const parsed = await parseCommand('eval', normaliseResumeFlag(args));
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(usage('eval', parsed.formatFlags));
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
    const table = tableFlag(args, values['table-cell-max-length']);
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
    // The comparison's modules load only when pass@k or a regression gate is asked for.
    const compare =
      values['pass-at'] !== undefined || values.baseline !== undefined
        ? await import('./compare.js')
        : undefined;
    const passAtFlag =
      values['pass-at'] !== undefined
        ? compare?.compareOptionsFrom({ 'pass-at': values['pass-at'] }).ks
        : undefined;
    // The gate's baseline and options are checked before anything runs, like every other flag.
    const gate = values.baseline !== undefined ? compare?.compareOptionsFrom(values) : undefined;
    const baselineDir =
      values.baseline !== undefined
        ? resolveRun(values.baseline, {
            runsDir: values['runs-dir'] ?? '.assay/runs',
            baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
          })
        : undefined;
    const reporter = reporterFrom(values.reporter, process.env);
    // Output targets are checked before anything runs: a typo in -o must not cost a run.
    let outputs = outputTargets(values.output ?? [], values['output-format']);

    const suitePath = configs[0] ?? positionals[0];
    const embedder = graderFrom(values.embedder, '--embedder');
    const envLoad = loadEnvFiles(envFilesFrom(values), suitePath);
    // A secret from an env file is redacted from the terminal as from the environment.
    terminalSecrets().addEnv(process.env);
    if (envLoad.files.length > 0 && values.verbose)
      process.stderr.write(
        `assay: environment from ${envLoad.files.join(', ')} (${envLoad.names.join(', ')})\n`,
      );
    // -p is promptfoo's --prompts; a value naming no file but a provider id is assay's old -p.
    const { prompts, providers } = promptsAndProviders(values.prompts, [
      ...(values.providers ?? []),
      ...(values.provider ?? []),
    ]);
    const loadOptions: LoadOptions = {
      ...loadOptionsFrom(values),
      ...formatLoadOptions(parsed),
      ...(prompts ? { prompts } : {}),
      ...(testsFlag(values) !== undefined ? { tests: testsFlag(values) } : {}),
      ...(providers ? { providers } : {}),
    };
    if (configs.length > 1) loadOptions.combine = configs.slice(1);
    // promptfoo's command line without a config (`eval -p prompts.txt -r echo -t tests.csv` in a
    // folder holding no suite): the prompts, providers and tests flags are the whole suite.
    const bare =
      suitePath === undefined &&
      prompts !== undefined &&
      providers !== undefined &&
      !(await suiteFormats()).some((f) => f.detectDir?.(process.cwd()));
    const readSuite = (options: LoadOptions): Promise<Suite> =>
      bare
        ? loadSuiteObject({ description: 'command line', providers }, { ...options, basePath: process.cwd() })
        : loadSuite(suitePath, options);
    // "loading suite…" on the terminal at once: a large suite takes seconds to read.
    const loaded = values['no-progress'] ? undefined : showLoading('suite');
    let suite = await readSuite({ ...loadOptions, vars }).finally(loaded);
    checkExpectedHash(suite, values['expect-hash']);
    if (values.description !== undefined) suite.name = values.description;
    // A format's flag that appends results into the suite's own folders (LVE's --record).
    for (const f of parsed.formatFlags) {
      const value = parsed.formatValues[f.name];
      if (f.record && typeof value === 'string') outputs.push(recordTarget(value, f.record));
    }
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
      terminalSecrets().addEnv(process.env);
      suite = await readSuite({ ...loadOptions, vars });
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
    const showProgress = !values['no-progress'] && !values['no-progress-bar'] && defaults.progress !== false;
    const runsDir = resolve(values['runs-dir'] ?? '.assay/runs');
    const resume =
      values.resume !== undefined
        ? resolveResume(values.resume, runsDir, suite.source.contentHash)
        : undefined;
    // Results the run being resumed appended into the suite's own folders (--record) are its
    // output, not a change of the suite: the suite is read as it was before them.
    const ownAppends = resume && outputs.some((o) => o.inPlace) ? appendedBefore(resume) : {};
    if (Object.keys(ownAppends).length > 0) {
      loadOptions.ownAppends = ownAppends;
      suite = await readSuite({ ...loadOptions, vars });
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
        if (vars) suite = await readSuite({ ...loadOptions, vars });
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
      providers: selectProviders(suite, providers).length,
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
    if (baselineDir && compare)
      await compare.checkGateBaseline(baselineDir, suite, {
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
        providers,
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
        // Its credentials are redacted from what this command prints as from what the run writes.
        secrets: terminalSecrets(),
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
      if (table) process.stdout.write(await renderTable(runDir, table));
      // The report is written before the summary, so that the summary's "… and N more in the
      // report" names the page itself; its link is printed again last.
      const report = values['no-report'] ? undefined : await writeRunReport(runDir, scorecard);
      process.stdout.write(renderSummary(manifest, scorecard, runDir, { color }));
      if (manifest.status === 'interrupted' || manifest.status === 'aborted') {
        const runsFlag = values['runs-dir'] ? ` --runs-dir ${shellWord(values['runs-dir'])}` : '';
        // Several -c configs are one suite: each is given again.
        const suiteArg =
          configs.length > 1
            ? configs.map((c) => ` -c ${shellWord(c)}`).join('')
            : suitePath
              ? ` ${shellWord(suitePath)}`
              : '';
        // The flags that chose what the suite loaded (--args, --replay, --tier, …) and where its
        // results are written must be given again for the resume to find the same suite and outputs.
        const again = resumeFlags(
          { ...values, prompts, tests: testsFlag(values), vars: undefined },
          parsed.formatFlags,
        );
        // After an outage the errors are what most needs running again: say so in the command.
        const retry = scorecard.counts.error > 0 ? ' --retry-errors' : '';
        process.stdout.write(
          `To finish it: assay eval${suiteArg}${again}${runsFlag} --resume ${manifest.runId}${retry}\n`,
        );
      }
      const outputsWritten: WrittenOutput[] = [];
      let written = await writeOutputs(runDir, scorecard, outputs, { written: outputsWritten });
      if (reporter) written = (await runReporter(reporter, runDir, scorecard)) && written;
      let code = exitCode(manifest.status, scorecard.counts, maxErrors, defaults);
      // A suite format whose tool judges its own runs (apastra's thresholds and regression
      // policy, on the run folders written) decides the run: its gate, not the count of failing cases.
      const verdict = await suiteGate(runDir, manifest.suite.format, outputsWritten);
      if (verdict) {
        process.stdout.write(`\n${verdict.text}`);
        if (code !== 3) code = verdict.failed ? 1 : 0;
      }
      if (baselineDir && gate && compare && manifest.status === 'complete' && code !== 3) {
        // The regression gate: the run is judged against the baseline, not by its own failures.
        const { renderComparison } = await import('../report/compare.js');
        const comparison = await compare.compareDirs(
          baselineDir,
          runDir,
          gate.options,
          gate.ks,
          values['allow-partial'] === true,
        );
        process.stdout.write(
          renderComparison(
            comparison,
            { baseline: values.baseline ?? '', candidate: manifest.runId },
            { verbose: values.verbose === true },
          ),
        );
        code = compare.compareExitCode(comparison, gate.failOn);
      }
      // The run ends on its report: the link comes last, after the failures and the gates.
      if (report) process.stdout.write(`Report: ${pathToFileURL(report).href}\n`);
      else if (!values['no-report'] && scorecard.counts.total > RUN_REPORT_MAX_RESULTS)
        process.stdout.write(
          `Report not written: ${scorecard.counts.total} results is more than a page can hold (${RUN_REPORT_MAX_RESULTS}); write it with assay report ${shellWord(runDir)} --format html\n`,
        );
      return written ? code : Math.max(code, 3);
    } finally {
      process.off('SIGINT', onLateSignal);
      process.off('SIGTERM', onLateSignal);
    }
  });
}

/** The flags a resume must repeat: those that choose the suite (the formats' own, --mode) and the outputs. */
function resumeFlags(values: Record<string, unknown>, formatFlags: readonly { name: string }[]): string {
  const names = [
    ...new Set([...formatFlags.map((f) => f.name), 'mode', 'prompts', 'tests', 'output', 'output-format']),
  ];
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
