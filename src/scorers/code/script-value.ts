// Expected values computed by a script (AssertionSpec.valueScript, promptfoo's `value:
// file://compute.js` on a non-script assertion): the script is called as a script assertion is,
// with the output and the context, and what it returns is the value the assertion compares with.
import type { AssertionSpec } from '../../core/types.js';
import { parseScriptRef, scriptPath, scriptRuntime } from '../../runtime/script-ref.js';
import { type ScoreInput, ScorerInputError } from '../types.js';
import { scriptContext, scriptOutput } from './context.js';
import { callRuby } from './ruby.js';
import { runScriptFile } from './run-file.js';

/**
 * Runs `spec.valueScript` for one output. A Python error fails the assertion with its message (as
 * in promptfoo); a JavaScript function that throws, or a result that is not a value (a function,
 * a boolean, a grading result), makes the assertion unusable (an error), as promptfoo throws there.
 */
export async function scriptValue(
  spec: AssertionSpec,
  input: ScoreInput,
): Promise<{ value: unknown } | { failure: string }> {
  const written = spec.valueScript ?? '';
  const ref = parseScriptRef(written);
  if (!ref) throw new ScorerInputError(`the value script ${written} is not a file:// reference`);
  const type = spec.negate ? `not-${spec.type}` : spec.type;
  if (/\.rb$/i.test(ref.path)) {
    // Ruby (`get_assert` by default): an error fails the assertion, as in promptfoo.
    try {
      const value = await callRuby(scriptPath(ref, input.basePath), ref.fn ?? 'get_assert', [
        scriptOutput(input),
        scriptContext(input, 'python'),
      ]);
      return checked(value, type);
    } catch (err) {
      if (err instanceof ScorerInputError) throw err;
      return { failure: `Error running Ruby script: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  const run = await runScriptFile(ref, input, type);
  if ('failure' in run) {
    if (scriptRuntime(ref.path) === 'python') return { failure: run.failure };
    throw new ScorerInputError(run.failure);
  }
  return checked(run.result, type);
}

/** A script's result as an expected value; a function, a boolean or a grading result is refused. */
function checked(result: unknown, type: string): { value: unknown } {
  const refuse = (what: string) =>
    new ScorerInputError(
      `Script for "${type}" assertion returned ${what}. Only javascript/python/ruby assertion types can return ${what === 'a function' ? 'functions' : what === 'a boolean' ? 'boolean values' : 'GradingResult objects'}. For other assertion types, return the expected value (string, number, array, or object).`,
    );
  if (typeof result === 'function') throw refuse('a function');
  if (typeof result === 'boolean') throw refuse('a boolean');
  if (result !== null && typeof result === 'object' && !Array.isArray(result) && 'pass' in result)
    throw refuse('a GradingResult');
  return { value: result };
}
