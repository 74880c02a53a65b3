import { resolve } from 'node:path';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { DEFAULT_MAX_CONCURRENCY, evaluate, type Progress } from '../evaluate.js';
import { loadSuite } from '../formats/detect.js';
import { DEFAULT_RETRY_POLICY } from '../providers/types.js';
import { renderProgress, renderResultLine, renderSummary } from '../report/console.js';
import { type OutputFormat, resolveOutputFormat, writeOutput } from '../report/outputs.js';
import { guard, intFlag, parseFlags, useColor } from './common.js';

const USAGE = `Usage: assay eval [SUITE] [options]

Runs every prompt × provider × test of a suite, prints a summary and writes the run to
.assay/runs/<run-id>/ (manifest.json, results.jsonl, scorecard.json).

Options:
  -c, --config FILE          the suite (same as the SUITE argument)
  -p, --provider ID          run with this provider instead of the suite's (repeatable); a name
                             matching a suite provider keeps its config
  -j, --max-concurrency N    jobs in flight at once (default ${DEFAULT_MAX_CONCURRENCY})
      --repeat N             run every job N times (trials)
  -o, --output FILE          also write results to FILE: .json, .jsonl or .csv (repeatable)
      --output-format NAME   the format of -o files when the extension is not enough
      --max-errors N|P%      provider/scorer errors tolerated before exit code 3 (default 0)
      --max-retries N        retries per request on 429/5xx/network errors (default ${DEFAULT_RETRY_POLICY.maxAttempts - 1})
      --request-timeout MS   per-request timeout (default ${DEFAULT_RETRY_POLICY.timeoutMs})
      --runs-dir DIR         where run directories go (default .assay/runs)
      --no-progress          no progress line
      --no-color             no colours
      --verbose              print every result as it completes
  -h, --help

Exit codes: 0 all passed · 1 a test failed · 2 invalid input · 3 run could not complete.
`;

/** `assay eval`: run a suite. */
export async function evalCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, {
      config: { type: 'string', short: 'c' },
      provider: { type: 'string', short: 'p', multiple: true },
      'max-concurrency': { type: 'string', short: 'j' },
      repeat: { type: 'string' },
      output: { type: 'string', short: 'o', multiple: true },
      'output-format': { type: 'string' },
      'max-errors': { type: 'string' },
      'max-retries': { type: 'string' },
      'request-timeout': { type: 'string' },
      'runs-dir': { type: 'string' },
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
    const maxConcurrency = intFlag('max-concurrency', values['max-concurrency']);
    const repeat = intFlag('repeat', values.repeat);
    const maxRetries = intFlag('max-retries', values['max-retries'], 0);
    const timeoutMs = intFlag('request-timeout', values['request-timeout']);
    const maxErrors = parseErrorBudget(values['max-errors']);
    // Output targets are checked before anything runs: a typo in -o must not cost a run.
    const outputs: { path: string; format: OutputFormat }[] = (values.output ?? []).map((path) => ({
      path: resolve(path),
      format: resolveOutputFormat(path, values['output-format']),
    }));

    const suite = await loadSuite(values.config ?? positionals[0]);
    for (const w of suite.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);

    const color = useColor(process.stdout, values['no-color'] === true);
    const progress = values['no-progress'] ? undefined : new ProgressLine();
    const controller = new AbortController();
    const onSignal = (): void => {
      if (controller.signal.aborted) process.exit(130);
      process.stderr.write('\nassay: stopping after the jobs in flight (press Ctrl-C again to quit now)\n');
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let result: Awaited<ReturnType<typeof evaluate>>;
    try {
      result = await evaluate({
        suite,
        providers: values.provider,
        maxConcurrency,
        repeat,
        runsDir: values['runs-dir'],
        retry: {
          ...(maxRetries !== undefined ? { maxAttempts: maxRetries + 1 } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        },
        command: ['assay', 'eval', ...args],
        signal: controller.signal,
        onProgress: progress ? (p) => progress.update(p) : undefined,
        onResult: values.verbose
          ? (r) => {
              progress?.clear();
              process.stdout.write(renderResultLine(r, { color }));
            }
          : undefined,
      });
    } finally {
      progress?.clear();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    const { manifest, scorecard, runDir } = result;
    process.stdout.write(renderSummary(manifest, scorecard, runDir, { color }));
    for (const o of outputs) {
      await writeOutput(runDir, scorecard, o.path, o.format);
      process.stdout.write(`Wrote ${o.path}\n`);
    }
    return exitCode(manifest.status, scorecard.counts, maxErrors);
  });
}

/** The exit code of a finished run (see `assay --help`). */
export function exitCode(
  status: string,
  counts: { total: number; fail: number; error: number },
  maxErrors: { count?: number; fraction?: number },
): number {
  if (status !== 'complete') return 3;
  const allowed =
    maxErrors.fraction !== undefined ? Math.floor(maxErrors.fraction * counts.total) : (maxErrors.count ?? 0);
  if (counts.error > allowed) return 3;
  return counts.fail > 0 ? 1 : 0;
}

function parseErrorBudget(value: string | undefined): { count?: number; fraction?: number } {
  if (value === undefined) return { count: 0 };
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(value);
  if (pct) return { fraction: Number(pct[1]) / 100 };
  if (/^\d+$/.test(value)) return { count: Number(value) };
  throw new InputError(`--max-errors ${value}: expected a count (e.g. 5) or a percentage (e.g. 2%)`);
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
