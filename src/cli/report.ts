// `assay report [RUN]`: any run rendered from its log: the console summary, the scorecard as JSON,
// or a report file (HTML, JUnit, Markdown) and the GitHub job summary.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { outputFormatNamed, outputFormatsHelp, outputRun, runShapeOf, writeToStdout } from '../outputs.js';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { renderSummary } from '../report/console.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { readManifest } from '../runlog/reader.js';
import { writeFileWhole } from '../runlog/write-whole.js';
import { guard, parseFlags, useColor } from './common.js';
import { COMPARE_FLAGS, compareDirs, compareExitCode, compareOptionsFrom } from './compare.js';
import { outputTargets, refuseOverwritingInputs, runReporter, writeOutputs } from './outputs.js';

/** The help text; the formats are listed from the output format registry. */
const usage = (): string => `Usage: assay report [RUN] [--format NAME] [-o FILE] [--json]

Renders a run from its log (results.jsonl and the scoring its manifest recorded). RUN is a run
directory, a run id under --runs-dir, or a baseline name; default: the newest run under
--runs-dir (.assay/runs). Works for any run: live, merged, re-scored, or from an earlier assay
version.

  (no flag)             the console summary
  --json                the scorecard as JSON
  -o FILE               write FILE in the format its extension names (or --format NAME)
  --format NAME         write the run in that output format: to -o FILE; without -o, a reporter
                        reports (github), html writes RUN/report.html (its path is printed), and
                        any other one-file format prints to stdout. The formats:
${outputFormatsHelp('                          ')}  --baseline B          the comparison of RUN (the candidate) with B, as assay compare B RUN
                        prints it; with --format html (RUN/compare.html) or -o FILE.html, a page.
                        The compare options (--seed, --min-effect, …) apply; exit codes are compare's
  --runs-dir DIR        where run ids are found (default .assay/runs)
  --baselines-dir DIR   where baseline names are found (default .assay/baselines)
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
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      'runs-dir': { type: 'string' },
      ...COMPARE_FLAGS,
      baseline: { type: 'string' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(usage());
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`assay report: expected one RUN, got ${positionals.length}`);
    const chosen = values.format !== undefined ? outputFormatNamed(values.format, '--format') : undefined;
    const format = chosen?.format;
    if (values.json && (format || values.output))
      throw new InputError('--json goes alone, without --format or -o');
    if (format && !values.output && !format.report && !format.inRunDir && format.layout !== 'file')
      throw new InputError(
        `--format ${values.format} writes a ${format.layout === 'folder' ? 'folder' : 'tree of files'}: give -o DIR/`,
      );
    // The file is checked (its format, its folder) before anything is read.
    const target = values.output ? outputTargets([values.output], values.format)[0] : undefined;
    const runsDir = values['runs-dir'] ?? '.assay/runs';
    const runDir =
      positionals.length === 1
        ? resolveRun(positionals[0], {
            runsDir,
            baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
          })
        : newestRun(runsDir);
    if (values.output) refuseOverwritingInputs([values.output], [runDir]);
    if (values.baseline !== undefined)
      return reportComparison(runDir, values.baseline, values, values.format, values.output);
    const manifest = readManifest(runDir);
    const scorecard = await scorecardOfRun(runDir);
    if (target) return (await writeOutputs(runDir, scorecard, [target], { keepPending: true })) ? 0 : 3;
    if (chosen && format) {
      if (format.report) return (await runReporter(format, runDir, scorecard)) ? 0 : 3;
      if (format.inRunDir) {
        const file = outputTargets([join(runDir, format.inRunDir)], values.format);
        return (await writeOutputs(runDir, scorecard, file, { keepPending: true })) ? 0 : 3;
      }
      const problem = format.check?.(runShapeOf(manifest));
      if (problem) throw new InputError(`--format ${values.format}: ${problem}`);
      await writeToStdout(outputRun(runDir, scorecard), format, chosen.options);
      return 0;
    }
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

/**
 * `assay report CANDIDATE --baseline B`: the comparison, as `assay compare B CANDIDATE` prints it,
 * or as a page (`--format html`, `-o FILE.html`). Exit codes are compare's.
 */
async function reportComparison(
  candidateDir: string,
  baseline: string,
  values: Parameters<typeof compareOptionsFrom>[0] & {
    'runs-dir'?: string;
    'baselines-dir'?: string;
    'allow-partial'?: boolean;
    json?: boolean;
  },
  format: string | undefined,
  output: string | undefined,
): Promise<number> {
  if (format !== undefined && format !== 'html')
    throw new InputError(`--baseline renders a comparison as text or HTML, not --format ${format}`);
  if (output && !/\.html?$/i.test(output))
    throw new InputError(`-o ${output}: with --baseline, the comparison is written as .html`);
  const { options, ks, failOn } = compareOptionsFrom(values);
  const baselineDir = resolveRun(baseline, {
    runsDir: values['runs-dir'] ?? '.assay/runs',
    baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
  });
  if (output) refuseOverwritingInputs([output], [baselineDir, candidateDir]);
  const comparison = await compareDirs(baselineDir, candidateDir, options, ks, values['allow-partial']);
  const labels = { baseline, candidate: readManifest(candidateDir).runId };
  if (format === 'html' || output) {
    const file = resolve(output ?? join(candidateDir, 'compare.html'));
    writeFileWhole(file, renderComparisonHtml(comparison, labels));
    process.stdout.write(`Wrote ${printable(file)}\n`);
  } else process.stdout.write(renderComparison(comparison, labels));
  return compareExitCode(comparison, failOn);
}
