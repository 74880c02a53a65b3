// Every output format, registered: assay's own (report/formats.ts) and the native results files
// of the input formats (formats/reports.ts). The CLI and the library import the registry and its
// host from here, so the writers are registered wherever outputs are resolved; report/ itself
// never imports a format.
import './report/formats.js';
import './formats/reports.js';

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
