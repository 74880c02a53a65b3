// Vars computed by a script for each job (Case.varScripts, promptfoo's `vars: {x: file://gen.js}`):
// a JavaScript module's default export is called with (var name, prompt template, vars, provider),
// a Python file's `get_var(var_name, prompt, other_vars)`; each returns `{output}` or `{error}`.
import type { Case } from '../core/types.js';
import { loadScriptFunction } from './js-runtime.js';
import { callPython, PythonUnavailableError } from './python-worker.js';
import { parseScriptRef, scriptPath, scriptRuntime } from './script-ref.js';

/** A var script that failed: the job is an error with this message. */
export class VarScriptError extends Error {}

/** The case with its script vars computed, in order, each script seeing the vars before it. */
export async function withComputedVars(
  testCase: Case,
  promptRaw: string,
  provider: { id: string; label?: string; config: Record<string, unknown> },
  basePath: string | undefined,
): Promise<Case> {
  const scripts = testCase.preparation?.varScripts;
  if (!scripts) return testCase;
  const vars = { ...testCase.vars };
  for (const [name, ref] of Object.entries(scripts)) {
    vars[name] = await computeVar(name, ref, promptRaw, vars, provider, basePath);
  }
  return { ...testCase, vars };
}

async function computeVar(
  name: string,
  ref: string,
  promptRaw: string,
  vars: Record<string, unknown>,
  provider: { id: string; label?: string; config: Record<string, unknown> },
  basePath: string | undefined,
): Promise<string> {
  const script = parseScriptRef(ref);
  if (!script) throw new VarScriptError(`var "${name}": ${ref} is not a file:// reference`);
  const abs = scriptPath({ path: script.path }, basePath);
  if (scriptRuntime(script.path) === 'python') {
    let reply: Awaited<ReturnType<typeof callPython>>;
    try {
      reply = await callPython({ kind: 'file', path: abs, fn: 'get_var', args: [name, promptRaw, vars] });
    } catch (err) {
      if (err instanceof PythonUnavailableError) throw new VarScriptError(err.message);
      throw err;
    }
    if (!reply.ok) throw new VarScriptError(`Error running Python script ${abs}: ${reply.error}`);
    const result = reply.result as { output?: unknown; error?: unknown } | null;
    if (result?.error)
      throw new VarScriptError(`Error running Python script ${abs}: ${String(result.error)}`);
    if (!result?.output) throw new VarScriptError(`Python script ${abs} did not return any output`);
    if (typeof result.output !== 'string')
      throw new VarScriptError(
        `pythonScriptOutput.output must be a string. Received: ${typeof result.output}`,
      );
    return result.output.trim();
  }
  const fn = await loadScriptFunction(abs, undefined, ref);
  const result = (await fn(name, promptRaw, vars, { ...provider, id: () => provider.id })) as {
    output?: unknown;
    error?: unknown;
  } | null;
  if (result?.error) throw new VarScriptError(`Error running ${abs}: ${String(result.error)}`);
  if (!result?.output)
    throw new VarScriptError(`Expected ${abs} to return { output: string } but got ${String(result)}`);
  return result.output as string;
}
