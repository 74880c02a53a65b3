// The native results files of every format that has one (src/formats/<name>/report.ts). Each
// registers its writer with report/outputs.ts when imported; src/outputs.ts imports this list, so
// `-o FILE --output-format NAME` finds them by name.
import './promptfoo/report.js';
import './ewebench/report.js';
import './pramana/report.js';
import './apastra/report.js';
import './lve/report.js';
