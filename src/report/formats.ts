// Every output format `-o` can write: assay's own (outputs.ts, html.ts, junit.ts, markdown.ts)
// and each input format's native results file. A writer registers itself with
// registerOutputFormat when imported here.
export {
  type OutputFormat,
  type OutputJudgement,
  outputFormatNames,
  resolveOutputFormat,
  writeOutput,
} from './outputs.js';

import './html.js';
import './junit.js';
import './markdown.js';
import '../formats/reports.js';
