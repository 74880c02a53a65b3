// `assay rescore RUN [SUITE]`: scores a past run's recorded answers again with the suite's current
// assertions, into a new run directory, without calling the model.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { DEFAULT_CACHE_TTL_SECONDS, defaultCachePath } from '../engine/cache.js';
import { evaluate } from '../evaluate.js';
import { loadSuite } from '../formats/detect.js';
import { renderSummary } from '../report/console.js';
import { readManifest } from '../runlog/reader.js';
import { guard, intFlag, parseFlags, useColor } from './common.js';
import { exitCode } from './exit-code.js';
import { outputTargets, refuseOverwritingInputs, writeOutputs } from './outputs.js';
import { ProgressLine } from './progress.js';
import { graderFrom, loadOptionsFrom, SUITE_FLAGS, SUITE_FLAGS_USAGE } from './suite-flags.js';

const FLAGS = {
  ...SUITE_FLAGS,
  provider: { type: 'string', short: 'p', multiple: true },
  grader: { type: 'string' },
  embedder: { type: 'string' },
  'max-concurrency': { type: 'string', short: 'j' },
  output: { type: 'string', short: 'o', multiple: true },
  'output-format': { type: 'string' },
  'runs-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  'cache-path': { type: 'string' },
  'no-progress': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const RESCORE_USAGE = `Usage: assay rescore RUN [SUITE] [options]

Scores the answers a past run recorded again, with the suite's current assertions, into a new run
directory that names its source. No model is called: use it after fixing an assertion, a
threshold or an output transform. Model-graded assertions still ask their grader (its answers
come from the response cache when it has them).

RUN is a run directory, or a run id under --runs-dir. SUITE defaults to the suite the run was
made from. Results pair by the case's stable identity (its format id, or its description and
vars), prompt, provider and trial, so an edited assertion keeps its recorded answer; a case the run
did not record is left out and counted, never sent to a model.

A re-score is as complete as its source: re-scoring a run that was interrupted or aborted (or
one shard) gives a run marked the same, which says how many planned jobs were never run, and
which compare and baseline save refuse as they refuse its source.

Options:
${SUITE_FLAGS_USAGE}  -p, --provider ID          score only these providers' columns (default: the run's)
      --grader ID            the grader model for model-graded assertions that name none
      --embedder ID          the embedding model for similarity assertions whose grader has none
  -j, --max-concurrency N    assertions scored at once (default 8)
  -o, --output FILE          also write results to FILE (as assay eval -o; repeatable)
      --output-format NAME   the format of the -o files
      --runs-dir DIR         where runs are found and the new run goes (default .assay/runs)
      --no-cache             graders neither read nor fill the response cache
      --cache-path FILE      the response cache (default .assay/cache.sqlite)
      --no-progress          no progress line
      --no-color             no colours

Exit codes are eval's: 0 all passed, 1 a test failed, 2 bad input, 3 the rescore could not complete.
`;

/** `assay rescore`: re-score a run's recorded generations. */
export async function rescoreCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, FLAGS);
    if (values.help) {
      process.stdout.write(RESCORE_USAGE);
      return 0;
    }
    if (positionals.length === 0)
      throw new InputError('assay rescore: give the run to re-score (a run directory or id)');
    if (positionals.length > 2)
      throw new InputError(`assay rescore: expected RUN [SUITE], got ${positionals.length} arguments`);
    const runsDir = resolve(values['runs-dir'] ?? '.assay/runs');
    const runDir = findRun(positionals[0], runsDir);
    const manifest = readManifest(runDir);
    const suitePath = positionals[1] ?? manifest.suite.path;
    const vars = manifest.options.selection?.vars;
    if (vars && Object.values(vars).includes('[redacted]'))
      throw new InputError(
        'the run was made with --var values whose names look secret, which were not recorded; re-score with assay eval --var … instead',
      );
    const suite = await loadSuite(suitePath, { ...loadOptionsFrom(values), ...(vars ? { vars } : {}) });
    for (const w of suite.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
    const outputs = outputTargets(values.output ?? [], values['output-format']);
    refuseOverwritingInputs(
      outputs.map((o) => o.path),
      [runDir],
      [resolve(suite.source.path), ...suite.source.files.map((f) => resolve(suite.basePath, f))],
    );
    const color = useColor(process.stdout, values['no-color'] === true);
    const progress = values['no-progress'] ? undefined : new ProgressLine();
    let result: Awaited<ReturnType<typeof evaluate>>;
    try {
      result = await evaluate({
        suite,
        rescore: runDir,
        outputs: outputs.map((o) => o.path),
        providers: values.provider,
        grader: graderFrom(values.grader),
        embedder: graderFrom(values.embedder, '--embedder'),
        maxConcurrency: intFlag('max-concurrency', values['max-concurrency'], 1, 10_000),
        runsDir,
        cache: values['no-cache']
          ? false
          : {
              path: resolve(values['cache-path'] ?? defaultCachePath(process.env, process.cwd())),
              ttlSeconds: DEFAULT_CACHE_TTL_SECONDS,
            },
        command: ['assay', 'rescore', ...args],
        onProgress: progress ? (p) => progress.update(p) : undefined,
      });
    } finally {
      progress?.clear();
    }
    const from = result.manifest.rescoredFrom;
    if (from) {
      process.stdout.write(
        `Re-scored ${result.manifest.plannedJobs} recorded results of run ${from.runId}\n`,
      );
      const notRecorded = result.manifest.plannedJobs === 0 ? 'every' : undefined;
      if (from.unmatched > 0)
        process.stdout.write(
          `${from.unmatched} recorded results match no test of the suite now (removed or renamed tests, prompts or providers); left out\n`,
        );
      if (notRecorded)
        process.stdout.write('Nothing to re-score: no test of the suite was recorded by that run\n');
      if (from.status && from.status !== 'complete')
        process.stdout.write(
          `Run ${from.runId} is ${from.status}: ${from.notRecorded ?? 0} planned jobs of the suite were never run, so this re-score is ${result.manifest.status} too (finish that run with assay eval --resume ${from.runId}, then re-score it)\n`,
        );
    }
    process.stdout.write(renderSummary(result.manifest, result.scorecard, result.runDir, { color }));
    const written = await writeOutputs(result.runDir, result.scorecard, outputs);
    const code = exitCode(result.manifest.status, result.scorecard.counts, undefined, {});
    return written ? code : Math.max(code, 3);
  });
}

/** A run id under the runs folder, or a run directory. */
function findRun(value: string, runsDir: string): string {
  for (const dir of [join(runsDir, value), resolve(value)])
    if (existsSync(join(dir, 'manifest.json'))) return dir;
  throw new InputError(`assay rescore: no run "${value}" (not a run directory, nor a run id in ${runsDir})`);
}
