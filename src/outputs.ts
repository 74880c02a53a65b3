// Every output format, registered: assay's own (report/formats.ts) and the native results files
// of the input formats (formats/reports.ts). The CLI and the library import the registry and its
// host from here, so the writers are registered wherever outputs are resolved; report/ itself
// never imports a format.
import './report/formats.js';
import './formats/reports.js';
import { resolve } from 'node:path';
import { scorecardOfRun } from './analysis/scorecard.js';
import type { Scorecard } from './core/scorecard.js';
import { outputRun, writeOutput } from './report/output-host.js';
import { resolveOutputFormat } from './report/outputs.js';

export {
  APPEND_LEDGER,
  appendedBefore,
  type OutputTarget,
  outputRun,
  processIo,
  writeOutput,
  writeToStdout,
} from './report/output-host.js';
export {
  type ChosenFormat,
  type FileOutputFormat,
  type FileSink,
  type FolderOutputFormat,
  type FolderSink,
  type OutputFolder,
  type OutputFormat,
  type OutputOptions,
  type OutputRun,
  outputFormatNamed,
  outputFormatNames,
  outputFormats,
  outputFormatsHelp,
  type ReporterIo,
  type RunShape,
  registerOutputFormat,
  reporterNames,
  resolveOutputFormat,
  runShapeOf,
  type TreeOutputFormat,
  type TreeSink,
} from './report/outputs.js';

/**
 * Writes a report of a finished run to `path` as `assay report RUN -o PATH` does: in the format
 * the extension names, or `format` (any registered output format name, e.g. `html`, `junit`,
 * `markdown`, `csv-raw`, a plugin's), written whole. A path ending in `/` is a folder for formats
 * that name their own output. Resolves to the paths written.
 */
export async function writeReport(
  runDir: string,
  path: string,
  options: { format?: string; scorecard?: Scorecard } = {},
): Promise<string[]> {
  const chosen = resolveOutputFormat(path, options.format);
  const scorecard = options.scorecard ?? (await scorecardOfRun(runDir));
  return writeOutput(outputRun(runDir, scorecard), {
    path: resolve(path),
    ...chosen,
    folder: /[\\/]$/.test(path),
  });
}
