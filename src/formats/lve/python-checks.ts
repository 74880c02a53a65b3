// Runs an LVE check that is Python (a lambda, a custom checker file) in assay's python3 worker.
import { callPython, PythonUnavailableError } from '../../scorers/code/python-worker.js';
import { ScorerInputError } from '../../scorers/types.js';
import { LVE_PYTHON_SOURCE } from './python-source.js';

/** Asks python3 whether an instance is safe; an exception in the check is a ScorerInputError with Python's message. */
export async function runPythonCheck(request: Record<string, unknown>): Promise<boolean> {
  let reply: Awaited<ReturnType<typeof callPython>>;
  try {
    reply = await callPython({
      kind: 'inline',
      code: LVE_PYTHON_SOURCE,
      fn: 'main',
      header: 0,
      args: [request],
    });
  } catch (err) {
    if (err instanceof PythonUnavailableError)
      throw new ScorerInputError(
        `this checker runs in Python, and python3 could not be started: ${err.message}`,
      );
    throw err;
  }
  if (!reply.ok) {
    const where = reply.where && !reply.where.includes('inline code') ? ` (${reply.where})` : '';
    throw new ScorerInputError(`${reply.error}${where}`);
  }
  const result = reply.result as { safe?: unknown } | null;
  if (typeof result?.safe !== 'boolean') throw new ScorerInputError('the Python check returned no verdict');
  return result.safe;
}
