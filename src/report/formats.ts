// Every output format `-o` can write: assay's own (outputs.ts) and each input format's native
// results file. A native writer registers itself with registerOutputFormat when imported here.
export {
  type OutputFormat,
  type OutputJudgement,
  outputFormatNames,
  resolveOutputFormat,
  writeOutput,
} from './outputs.js';

import '../formats/reports.js';
