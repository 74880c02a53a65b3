// Registers the code assertions (`javascript`, `python`). The engine calls closePythonWorker()
// when a run ends.
import { registerScorer } from '../registry.js';
import { javascriptScorer } from './javascript.js';
import { pythonScorer } from './python.js';
import { rubyScorer } from './ruby.js';

registerScorer(javascriptScorer);
registerScorer(pythonScorer);
registerScorer(rubyScorer);

export {
  closePythonWorker,
  killPythonWorker,
  pythonExecutable,
  pythonWorkerPid,
  setPythonTimeLimit,
} from '../../runtime/python-worker.js';
export type { ScriptContext } from './context.js';
export type { ScriptScoreResult } from './normalize.js';
export { normalizeJavascriptResult, normalizePythonResult } from './normalize.js';
export { javascriptScorer, pythonScorer, rubyScorer };
