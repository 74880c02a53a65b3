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
import { formatLoadOptions, parseCommand, usage } from './args.js';
import { guard, intFlag, useColor } from './common.js';
import { exitCode } from './exit-code.js';
import { outputTargets, refuseOverwritingInputs, writeOutputs } from './outputs.js';
import { ProgressLine } from './progress.js';
import { promptsAndProviders } from './promptfoo-flags.js';
import { graderFrom, loadOptionsFrom } from './suite-flags.js';
import { terminalSecrets } from './terminal.js';

/** `assay rescore`: re-score a run's recorded generations. */
export async function rescoreCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const parsed = await parseCommand('rescore', args);
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(usage('rescore', parsed.formatFlags));
      return 0;
    }
    // rescore asks no model: a -p value can only be a provider (assay's -p of earlier versions).
    const { prompts, providers } = promptsAndProviders(values.prompts, [
      ...(values.providers ?? []),
      ...(values.provider ?? []),
    ]);
    if (prompts)
      throw new InputError(
        `-p ${prompts[0]}: rescore scores the answers a run recorded, for the prompts it ran; give a provider with -r`,
      );
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
    const suite = await loadSuite(suitePath, {
      ...loadOptionsFrom(values),
      ...formatLoadOptions(parsed),
      ...(vars ? { vars } : {}),
    });
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
        providers,
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
        // Its credentials are redacted from what this command prints as from what the run writes.
        secrets: terminalSecrets(),
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
