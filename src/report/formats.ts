// assay's own output formats. Each file registers itself with report/outputs.ts when imported;
// the native results files of the input formats are registered by src/formats/reports.ts, and
// src/outputs.ts imports both, so report/ never imports a format.
import './csv.js';
import './github.js';
import './html.js';
import './json.js';
import './junit.js';
import './markdown.js';
