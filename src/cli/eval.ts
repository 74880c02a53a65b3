import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { DEFAULT_CACHE_TTL_SECONDS, defaultCachePath } from '../engine/cache.js';
import { parseShard } from '../engine/shard.js';
import {
  DEFAULT_MAX_CONCURRENCY,
  type ErrorBudget,
  evaluate,
  type Progress,
  selectProviders,
} from '../evaluate.js';
import { loadSuite } from '../formats/detect.js';
import { DEFAULT_RETRY_POLICY } from '../providers/types.js';
import { renderProgress, renderResultLine, renderSummary } from '../report/console.js';
import { type OutputFormat, resolveOutputFormat, writeOutput } from '../report/formats.js';
import { ensureDir } from '../runlog/dirs.js';
import { readManifest } from '../runlog/reader.js';
import { findLatestUnfinishedRun } from '../runlog/resume.js';
import { guard, intFlag, parseFlags, useColor } from './common.js';
import { loadEnvFiles } from './env.js';
import {
  envFilesFrom,
  FILTER_FLAGS,
  FILTER_FLAGS_USAGE,
  filtersFrom,
  seedSample,
  varsFrom,
} from './filter-flags.js';
import {
  checkExpectedHash,
  graderFrom,
  loadOptionsFrom,
  SUITE_FLAGS,
  SUITE_FLAGS_USAGE,
} from './suite-flags.js';

const USAGE = `Usage: assay eval [SUITE] [options]

Runs every prompt × provider × test of a suite, prints a summary and writes the run to
.assay/runs/<run-id>/ (manifest.json, results.jsonl, scorecard.json).

Suite and providers:
  -c, --config FILE          the suite (same as the SUITE argument)
  -p, --provider ID          run with this provider instead of the suite's (repeatable); a name
                             matching a suite provider keeps its config
      --grader ID            the grader model for model-graded assertions that name none
      --embedder ID          the embedding model for similarity assertions whose grader has none
                             (e.g. openai:embedding:text-embedding-3-small)
      --expect-hash HASH     refuse to run unless the suite's own hash (pramana) is HASH
${SUITE_FLAGS_USAGE}${FILTER_FLAGS_USAGE}Running:
  -j, --max-concurrency N    jobs in flight at once (default ${DEFAULT_MAX_CONCURRENCY})
      --repeat N             run every job N times (trials)
      --max-errors N|P%      errors tolerated: past this the run stops early and exits 3
                             (default: the run goes on, and any error makes the exit code 3)
      --resume [RUN-ID]      continue an unfinished run (default: the latest unfinished run of
                             this suite; write --resume=ID or --resume ID): only its missing jobs
                             run, with the filters and --var values it was started with
      --retry-errors         with --resume, also run again the jobs that ended in error
      --shard I/N            run only shard I of N (1-based) of the jobs, chosen by job key;
                             k8s/N takes I from JOB_COMPLETION_INDEX (0-based). Combine with assay merge
      --grace-period S       after Ctrl-C/SIGTERM, seconds to let jobs in flight finish (default 10)
      --max-retries N        retries per request on 429/5xx/network errors (default ${DEFAULT_RETRY_POLICY.maxAttempts - 1})
      --request-timeout MS   per-request timeout (default ${DEFAULT_RETRY_POLICY.timeoutMs})
      --runs-dir DIR         where run directories go (default .assay/runs)
      --no-cache             neither read nor fill the response cache
      --cache-path FILE      the response cache (default .assay/cache.sqlite, or ASSAY_CACHE_PATH)
      --cache-ttl S          cached responses older than S seconds are ignored (default 14 days; 0: never expire)
Output:
  -o, --output FILE          also write results to FILE: .json, .jsonl or .csv (repeatable)
      --output-format NAME   the format of the -o files (default: from each file's extension);
                             promptfoo writes promptfoo's results JSON
      --no-progress          no progress line
      --no-color             no colours
      --verbose              print every result as it completes
  -h, --help

Exit codes: 0 all passed (or nothing selected) · 1 a test failed · 2 invalid input ·
3 run could not complete. promptfoo exits 100 for both 1 and 3.
`;

/** `assay eval`: run a suite. */
export async function evalCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(normaliseResumeFlag(args), {
      config: { type: 'string', short: 'c' },
      ...SUITE_FLAGS,
      ...FILTER_FLAGS,
      grader: { type: 'string' },
      embedder: { type: 'string' },
      'expect-hash': { type: 'string' },
      provider: { type: 'string', short: 'p', multiple: true },
      'max-concurrency': { type: 'string', short: 'j' },
      repeat: { type: 'string' },
      output: { type: 'string', short: 'o', multiple: true },
      'output-format': { type: 'string' },
      'max-errors': { type: 'string' },
      resume: { type: 'string' },
      'retry-errors': { type: 'boolean' },
      shard: { type: 'string' },
      'grace-period': { type: 'string' },
      'max-retries': { type: 'string' },
      'request-timeout': { type: 'string' },
      'runs-dir': { type: 'string' },
      'no-cache': { type: 'boolean' },
      'cache-path': { type: 'string' },
      'cache-ttl': { type: 'string' },
      'no-progress': { type: 'boolean' },
      'no-color': { type: 'boolean' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`expected one suite, got ${positionals.length}: ${positionals.join(' ')}`);
    if (values.config !== undefined && positionals.length > 0) {
      throw new InputError(`two suites given (-c ${values.config} and ${positionals[0]}); give one`);
    }
    const delayMs = intFlag('delay', values.delay, 0);
    // promptfoo runs one request at a time under --delay; an explicit -j still wins.
    const maxConcurrency =
      intFlag('max-concurrency', values['max-concurrency'], 1, 10_000) ?? (delayMs ? 1 : undefined);
    let filters = filtersFrom(values);
    let vars = varsFrom(values.var);
    const repeat = intFlag('repeat', values.repeat, 1, 100_000);
    const maxRetries = intFlag('max-retries', values['max-retries'], 0);
    const timeoutMs = intFlag('request-timeout', values['request-timeout']);
    const maxErrors = values['max-errors'] !== undefined ? parseErrorBudget(values['max-errors']) : undefined;
    const shard = values.shard !== undefined ? parseShard(values.shard) : undefined;
    const graceSeconds = intFlag('grace-period', values['grace-period'], 0) ?? 10;
    const cacheTtl = intFlag('cache-ttl', values['cache-ttl'], 0) ?? DEFAULT_CACHE_TTL_SECONDS;
    const cache = values['no-cache']
      ? false
      : {
          path: resolve(values['cache-path'] ?? defaultCachePath(process.env, process.cwd())),
          ttlSeconds: cacheTtl,
        };
    if (values['retry-errors'] && values.resume === undefined)
      throw new InputError('--retry-errors goes with --resume');
    // Output targets are checked before anything runs: a typo in -o must not cost a run.
    const outputs: OutputTarget[] = (values.output ?? []).map((path) => ({
      path: resolve(path),
      format: resolveOutputFormat(path, values['output-format']),
      // `-o DIR/`: a format that names its own files (a tool's native results) writes into DIR.
      folder: /[\\/]$/.test(path) || (existsSync(path) && statSync(path).isDirectory()),
    }));
    for (const o of outputs) {
      if (o.folder && !o.format.fileName)
        throw new InputError(
          `-o ${o.path}: is a folder, not a file (only formats that name their files take a folder)`,
        );
      ensureDir(o.folder ? o.path : dirname(o.path));
    }

    const suitePath = values.config ?? positionals[0];
    const grader = graderFrom(values.grader);
    const embedder = graderFrom(values.embedder, '--embedder');
    const envLoad = loadEnvFiles(envFilesFrom(values), suitePath);
    if (envLoad.files.length > 0 && values.verbose)
      process.stderr.write(
        `assay: environment from ${envLoad.files.join(', ')} (${envLoad.names.join(', ')})\n`,
      );
    const loadOptions = loadOptionsFrom(values);
    let suite = await loadSuite(suitePath, { ...loadOptions, vars });
    checkExpectedHash(suite, values['expect-hash']);
    for (const w of suite.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
    const runsDir = resolve(values['runs-dir'] ?? '.assay/runs');
    const resume =
      values.resume !== undefined
        ? resolveResume(values.resume, runsDir, suite.source.contentHash)
        : undefined;
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
    filters = seedSample(filters);
    // A native results file that cannot describe this run (another format, several models) is
    // refused now, not after the run has been paid for.
    const shape = {
      format: suite.format,
      native: suite.native,
      providers: selectProviders(suite, values.provider).length,
      repeat: repeat ?? 1,
    };
    for (const o of outputs) {
      const problem = o.format.check?.(shape);
      if (problem) throw new InputError(`-o ${o.path}: ${problem}`);
    }

    const color = useColor(process.stdout, values['no-color'] === true);
    const progress = values['no-progress'] ? undefined : new ProgressLine();
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
        grader,
        embedder,
        maxConcurrency,
        repeat,
        filters,
        vars,
        delayMs,
        shard,
        runsDir,
        resume,
        retryErrors: values['retry-errors'],
        cache,
        maxErrors,
        retry: {
          ...(maxRetries !== undefined ? { maxAttempts: maxRetries + 1 } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        },
        command: ['assay', 'eval', ...args],
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
    } finally {
      clearTimeout(graceTimer);
      progress?.clear();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
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
      const runsFlag = values['runs-dir'] ? ` --runs-dir ${values['runs-dir']}` : '';
      const suiteArg = suitePath ? ` ${suitePath}` : '';
      process.stdout.write(`To finish it: assay eval${suiteArg}${runsFlag} --resume ${manifest.runId}\n`);
    }
    const written = await writeOutputs(runDir, scorecard, outputs);
    const code = exitCode(manifest.status, scorecard.counts, maxErrors);
    return written ? code : Math.max(code, 3);
  });
}

/**
 * Turns a bare `--resume` into `--resume=` (meaning: the latest unfinished run), unless the next
 * argument is a run id or run directory, so `--resume` never swallows the suite path.
 */
function normaliseResumeFlag(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== '--resume') {
      out.push(a);
      continue;
    }
    const next = args[i + 1];
    if (
      next !== undefined &&
      (/^\d{8}T\d{6}Z-[0-9a-f]+$/.test(next) || existsSync(join(next, 'manifest.json')))
    ) {
      out.push(`--resume=${next}`);
      i++;
    } else out.push('--resume=');
  }
  return out;
}

/** The run directory to resume: a run id under the runs folder, a run directory, or the latest unfinished one. */
function resolveResume(value: string, runsDir: string, contentHash: string): string | undefined {
  if (value === '') {
    const latest = findLatestUnfinishedRun(runsDir, contentHash);
    if (!latest)
      process.stderr.write('assay: no unfinished run of this suite to resume; starting a new run\n');
    else process.stderr.write(`assay: resuming ${relative(process.cwd(), latest) || latest}\n`);
    return latest;
  }
  for (const dir of [join(runsDir, value), resolve(value)])
    if (existsSync(join(dir, 'manifest.json'))) return dir;
  throw new InputError(`--resume ${value}: no such run in ${runsDir}`);
}

/**
 * Writes every -o file, each independently: one that cannot be written is reported and the others
 * are still written. Returns false if any failed.
 */
export async function writeOutputs(
  runDir: string,
  scorecard: Parameters<typeof writeOutput>[1],
  outputs: OutputTarget[],
): Promise<boolean> {
  let ok = true;
  for (const o of outputs) {
    let path = o.path;
    try {
      if (o.folder && o.format.fileName) path = join(o.path, o.format.fileName(runDir));
      await writeOutput(runDir, scorecard, path, o.format);
      process.stdout.write(`Wrote ${path}\n`);
    } catch (err) {
      ok = false;
      process.stderr.write(`assay: cannot write ${path}: ${(err as Error).message}\n`);
    }
  }
  return ok;
}

/** An `-o` target: a file, or a folder for a format that names its own files. */
export interface OutputTarget {
  path: string;
  format: OutputFormat;
  folder?: boolean;
}

/** The exit code of a finished run (see `assay --help`). */
export function exitCode(
  status: string,
  counts: { total: number; fail: number; error: number },
  maxErrors: ErrorBudget | undefined,
): number {
  if (status !== 'complete') return 3;
  const allowed =
    maxErrors?.fraction !== undefined
      ? Math.floor(maxErrors.fraction * counts.total)
      : (maxErrors?.count ?? 0);
  if (counts.error > allowed) return 3;
  return counts.fail > 0 ? 1 : 0;
}

function parseErrorBudget(value: string): ErrorBudget {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(value);
  if (pct && Number(pct[1]) <= 100) return { fraction: Number(pct[1]) / 100 };
  if (/^\d+$/.test(value)) return { count: Number(value) };
  throw new InputError(
    `--max-errors ${value}: expected a count (e.g. 5) or a percentage up to 100% (e.g. 2%)`,
  );
}

/** A progress line on stderr: redrawn in place on a terminal, a line every few seconds otherwise. */
class ProgressLine {
  private readonly tty = process.stderr.isTTY === true;
  private last = 0;
  private readonly started = performance.now();
  private shown = false;

  update(p: Progress): void {
    const now = performance.now();
    const interval = this.tty ? 100 : 5000;
    if (now - this.last < interval && p.done !== p.planned) return;
    this.last = now;
    const rate = p.done / Math.max(0.001, (now - this.started) / 1000);
    const line = renderProgress(p, rate);
    if (this.tty) {
      process.stderr.write(`\r\u001b[2K${line}`);
      this.shown = true;
    } else if (p.done !== p.planned || now - this.started > interval) {
      process.stderr.write(`${line}\n`);
    }
  }

  clear(): void {
    if (this.tty && this.shown) process.stderr.write('\r\u001b[2K');
    this.shown = false;
  }
}
