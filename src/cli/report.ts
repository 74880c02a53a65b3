// `assay report [RUN]`: any run rendered from its log: the console summary, the scorecard as JSON,
// or a report file (HTML, JUnit, Markdown) and the GitHub job summary.
import { join, resolve } from 'node:path';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { outputFormatNamed, outputRun, runShapeOf, writeToStdout } from '../outputs.js';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { renderSummary } from '../report/console.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { readManifest } from '../runlog/reader.js';
import { newestRun } from '../runlog/runs.js';
import { writeFileWhole } from '../runlog/write-whole.js';
import { parseCommand, usage } from './args.js';
import { guard, useColor } from './common.js';
import { compareDirs, compareExitCode, compareOptionsFrom } from './compare.js';
import { outputTargets, refuseOverwritingInputs, runReporter, writeOutputs } from './outputs.js';

/** `assay report`. */
export async function reportCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('report', args);
    if (values.help) {
      process.stdout.write(usage('report', []));
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
        : newestRun(runsDir, 'report');
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
    verbose?: boolean;
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
    writeFileWhole(
      file,
      renderComparisonHtml(comparison, { ...labels, baselineDir, candidateDir, page: file }),
    );
    process.stdout.write(`Wrote ${printable(file)}\n`);
  } else process.stdout.write(renderComparison(comparison, labels, { verbose: values.verbose === true }));
  return compareExitCode(comparison, failOn);
}
