// `assay report [RUN]`: the scorecard of any run, recomputed from its log, as the console summary
// or as JSON.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { renderSummary } from '../report/console.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { readManifest } from '../runlog/reader.js';
import { guard, parseFlags, useColor } from './common.js';

const USAGE = `Usage: assay report [RUN] [--json] [--runs-dir DIR]

Recomputes the scorecard of a run from its log (results.jsonl and the scoring its manifest
recorded) and prints the summary, or the scorecard as JSON with --json. RUN is a run directory, a
run id under --runs-dir, or a baseline name; default: the newest run under --runs-dir
(.assay/runs). Works for any run: live, merged, re-scored, or from an earlier assay version.
`;

/** The newest run directory under a folder (run ids sort by time). */
function newestRun(runsDir: string): string {
  const root = resolve(runsDir);
  const ids = existsSync(root)
    ? readdirSync(root)
        .filter((id) => existsSync(join(root, id, 'manifest.json')))
        .sort()
    : [];
  if (ids.length === 0) throw new InputError(`assay report: no run in ${runsDir}; give a run directory`);
  return join(root, ids[ids.length - 1]);
}

/** `assay report`. */
export async function reportCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, {
      json: { type: 'boolean' },
      'runs-dir': { type: 'string' },
      'baselines-dir': { type: 'string' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`assay report: expected one RUN, got ${positionals.length}`);
    const runsDir = values['runs-dir'] ?? '.assay/runs';
    const runDir =
      positionals.length === 1
        ? resolveRun(positionals[0], {
            runsDir,
            baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
          })
        : newestRun(runsDir);
    const manifest = readManifest(runDir);
    const scorecard = await scorecardOfRun(runDir);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(scorecard, null, 2)}\n`
        : renderSummary(manifest, scorecard, runDir, {
            color: useColor(process.stdout, values['no-color'] === true),
          }),
    );
    // A run killed while its -o files were being written: the log is whole, the files are not.
    if (!values.json && manifest.outputsPending?.length && manifest.status !== 'running')
      process.stdout.write(
        `Output files not written: ${manifest.outputsPending.map((p) => printable(p)).join(', ')} (write them with assay eval SUITE --resume ${printable(manifest.runId)} -o FILE)\n`,
      );
    return 0;
  });
}
