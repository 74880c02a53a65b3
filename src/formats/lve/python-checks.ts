// Runs an LVE check that is Python (a lambda, a custom checker file) in assay's python3 worker.

import { pyRepr } from '../../core/python/str.js';
import { callPython, PythonUnavailableError } from '../../runtime/python-worker.js';
import { ScorerInputError } from '../../scorers/types.js';
import { laxBool } from './instances.js';
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
  if (!result || !('safe' in result)) throw new ScorerInputError('the Python check returned no verdict');
  const safe = passedOf(result.safe);
  if (safe === undefined)
    throw new ScorerInputError(
      `the check returned ${typeof result.safe === 'string' || result.safe === null ? pyRepr(result.safe) : String(result.safe)}, which LVE cannot record as the instance's passed (pydantic: Input should be a valid boolean)`,
    );
  return safe;
}

/** What pydantic makes of a check's value as `TestInstance.passed` (a bool, lax): undefined where it refuses. */
function passedOf(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return laxBool(v);
  // Ints and floats: 0 and 1 only (1.0 too); anything else is refused.
  if (typeof v === 'number') return v === 0 ? false : v === 1 ? true : undefined;
  return undefined;
}
