// Running a `file://` script named by a javascript or python assertion. The file's extension picks
// the runtime and the assertion's type picks how the result is read, as in promptfoo (so a
// `javascript` assertion may name a .py file).

import { loadScriptFunction } from '../../runtime/js-runtime.js';
import { callPython, PythonUnavailableError } from '../../runtime/python-worker.js';
import { type ScriptRef, scriptFileProblem, scriptPath, scriptRuntime } from '../../runtime/script-ref.js';
import { ScorerInputError } from '../types.js';
import { type ScriptScoreInput, scriptContext, scriptOutput } from './context.js';
import { ScriptResultError } from './normalize.js';

/** A script's return value, or why the assertion fails without one. */
export type ScriptRun = { result: unknown } | { failure: string };

/** The message of anything thrown, as one `Name: message` string. */
export function errorText(err: unknown): string {
  if (err instanceof ScriptResultError) return err.message;
  if (err instanceof Error)
    return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}

/** Calls python and turns "Python cannot start" into an unusable assertion (a job error). */
export async function callPythonOrExplain(...args: Parameters<typeof callPython>) {
  try {
    return await callPython(...args);
  } catch (err) {
    if (err instanceof PythonUnavailableError) throw new ScorerInputError(err.message);
    throw err;
  }
}

/** A traceback location with the suite's folder removed, so reasons read the same on every machine. */
export function relativeWhere(where: string | undefined, basePath: string | undefined): string {
  if (!where) return '';
  return `\n${basePath ? where.split(`${basePath}/`).join('') : where}`;
}

/**
 * Runs the script a `file://` value names with `(output, context)`. A JavaScript module that does
 * not load or lacks the function, or whose function throws, is a ScorerInputError (a job error,
 * as in promptfoo); a Python error of any kind (promptfoo's rule for Python files) is a failure.
 */
export async function runScriptFile(
  ref: ScriptRef,
  input: ScriptScoreInput,
  type: string,
): Promise<ScriptRun> {
  const problem = scriptFileProblem(ref, type);
  if (problem) throw new ScorerInputError(problem);
  const abs = scriptPath(ref, input.basePath);
  const shown = `file://${ref.path}`;
  if (scriptRuntime(ref.path) === 'javascript') {
    const fn = await loadScriptFunction(abs, ref.fn, shown);
    try {
      return { result: await fn(scriptOutput(input), scriptContext(input, 'javascript')) };
    } catch (err) {
      // promptfoo calls a file's function outside its try block: what it throws errors the row
      // (recorded in test/fixtures/promptfoo/habits); inline code that throws fails the assertion.
      throw new ScorerInputError(errorText(err));
    }
  }
  const reply = await callPythonOrExplain({
    kind: 'file',
    path: abs,
    fn: ref.fn ?? 'get_assert',
    args: [scriptOutput(input), scriptContext(input, 'python')],
  });
  if (reply.ok) return { result: reply.result };
  return {
    failure: `Error running Python script ${shown}: ${reply.error}${relativeWhere(reply.where, input.basePath)}`,
  };
}
