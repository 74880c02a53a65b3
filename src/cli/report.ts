// `assay report [RUN]`: any run rendered from its log: the console summary, the scorecard as JSON,
// or a report file (HTML, JUnit, Markdown) and the GitHub job summary.
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { renderSummary } from '../report/console.js';
import { resolveOutputFormat, writeOutput } from '../report/formats.js';
import { renderMarkdown } from '../report/markdown.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { readManifest } from '../runlog/reader.js';
import { newestRun } from '../runlog/runs.js';
import { writeFileWhole } from '../runlog/write-whole.js';
import { guard, parseFlags, useColor } from './common.js';
import { COMPARE_FLAGS, compareDirs, compareExitCode, compareOptionsFrom } from './compare.js';
import { writeGithubReport } from './github.js';
import { outputTargets, refuseOverwritingInputs, writeOutputs } from './outputs.js';

const USAGE = `Usage: assay report [RUN] [--format html|junit|markdown|github] [-o FILE] [--json]

Renders a run from its log (results.jsonl and the scoring its manifest recorded). RUN is a run
directory, a run id under --runs-dir, or a baseline name; default: the newest run under
--runs-dir (.assay/runs). Works for any run: live, merged, re-scored, or from an earlier assay
version.

  (no flag)             the console summary
  --json                the scorecard as JSON
  -o FILE               write FILE in the format its extension names: .html, .xml (JUnit), .md,
                        .json, .jsonl, .csv
  --format html         the HTML report (to -o FILE, else RUN/report.html; its path is printed)
  --format junit        JUnit XML (to -o FILE, else stdout)
  --format markdown     the summary and failures as Markdown (to -o FILE, else stdout)
  --format github       the Markdown appended to $GITHUB_STEP_SUMMARY (stdout outside Actions)
                        and an ::error annotation at each failing test's line
  --baseline B          the comparison of RUN (the candidate) with B, as assay compare B RUN
                        prints it; with --format html (RUN/compare.html) or -o FILE.html, a page.
                        The compare options (--seed, --min-effect, …) apply; exit codes are compare's
  --runs-dir DIR        where run ids are found (default .assay/runs)
  --baselines-dir DIR   where baseline names are found (default .assay/baselines)
`;

const FORMATS = ['html', 'junit', 'markdown', 'github'] as const;
type ReportFormat = (typeof FORMATS)[number];

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
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`assay report: expected one RUN, got ${positionals.length}`);
    const format = values.format as ReportFormat | undefined;
    if (format !== undefined && !FORMATS.includes(format))
      throw new InputError(`--format ${values.format}: expected one of ${FORMATS.join(', ')}`);
    if (format === 'github' && values.output)
      throw new InputError('--format github writes to $GITHUB_STEP_SUMMARY and stdout, not to -o FILE');
    if (values.json && (format || values.output))
      throw new InputError('--json goes alone, without --format or -o');
    // The file is checked (its format, its folder) before anything is read.
    const target = values.output ? outputTargets([values.output], format)[0] : undefined;
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
      return reportComparison(runDir, values.baseline, values, format, values.output);
    const manifest = readManifest(runDir);
    const scorecard = await scorecardOfRun(runDir);
    if (target) return (await writeOutputs(runDir, scorecard, [target], { keepPending: true })) ? 0 : 3;
    if (format === 'html') {
      const html = outputTargets([join(runDir, 'report.html')], 'html');
      return (await writeOutputs(runDir, scorecard, html, { keepPending: true })) ? 0 : 3;
    }
    if (format === 'github')
      return (await writeGithubReport(runDir, manifest, scorecard, process.env)) ? 0 : 3;
    if (format === 'markdown') {
      process.stdout.write(renderMarkdown(manifest, scorecard));
      return 0;
    }
    if (format === 'junit') {
      await writeToStdout(runDir, scorecard, resolveOutputFormat('report.xml', 'junit'));
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
  format: ReportFormat | undefined,
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

/** Writes a format to stdout: through a private temporary file, as every output is written whole. */
async function writeToStdout(
  runDir: string,
  scorecard: Awaited<ReturnType<typeof scorecardOfRun>>,
  format: ReturnType<typeof resolveOutputFormat>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-report-'));
  try {
    const file = join(dir, 'out');
    await writeOutput(runDir, scorecard, file, format);
    await pipeline(createReadStream(file), process.stdout, { end: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
