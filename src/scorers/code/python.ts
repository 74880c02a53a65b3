// The `python` assertion (spec §5.3): inline code wrapped into `main(output, context)`, or a
// `file://x.py[:fn]` function (default `get_assert`), run in the shared Python worker. Python
// syntax is only checked when the code first runs: checking it at load would start Python for
// every suite that merely mentions a python assertion.

import { parseScriptRef } from '../../runtime/script-ref.js';
import type { Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { writtenType } from '../util.js';
import { type ScriptScoreInput, scriptContext, scriptOutput } from './context.js';
import { normalizePythonResult, type ScriptScoreResult } from './normalize.js';
import { callPythonOrExplain, errorText, relativeWhere, runScriptFile } from './run-file.js';
import { scriptValueProblem } from './validate.js';

/** Lines the wrapper puts before the user's code (error line numbers are shifted back by this). */
export const PYTHON_HEADER_LINES = 3;

/**
 * promptfoo's wrapper for inline Python: one line becomes `return <line>`; several lines are each
 * indented by the first indented line's indentation (four spaces if none) into `main`.
 */
export function pythonScript(code: string): string {
  let body: string;
  if (code.includes('\n')) {
    const indent = /^(?!\s*$)\s+/m.exec(code)?.[0] ?? '    ';
    body = code
      .split('\n')
      .map((line) => `${indent}${line}`)
      .join('\n');
  } else body = `    return ${code}`;
  return `import json\n\ndef main(output, context):\n${body}\n`;
}

function failed(reason: string): ScriptScoreResult {
  return { pass: false, score: 0, reason };
}

async function scorePython(input: ScriptScoreInput): Promise<ScriptScoreResult> {
  const code = input.value;
  if (typeof code !== 'string') {
    throw new ScorerInputError('"python" needs a string value (inline code or file://path.py)');
  }
  const written = input.spec.value;
  const opts = {
    threshold: input.spec.threshold,
    negate: input.spec.negate === true,
    // promptfoo appends the assertion's value as written (before rendering) to failure reasons.
    suffix: typeof written === 'string' ? written : undefined,
  };
  const ref = parseScriptRef(code.trim());
  let result: unknown;
  if (ref) {
    const run = await runScriptFile(ref, input, writtenType('python', input.spec));
    if ('failure' in run) return failed(run.failure);
    result = run.result;
  } else {
    const reply = await callPythonOrExplain({
      kind: 'inline',
      code: pythonScript(code),
      fn: 'main',
      header: PYTHON_HEADER_LINES,
      args: [scriptOutput(input), scriptContext(input, 'python')],
    });
    if (!reply.ok) {
      return failed(
        `Python code execution failed: ${reply.error}${relativeWhere(reply.where, input.basePath)}`,
      );
    }
    result = reply.result;
  }
  try {
    return normalizePythonResult(result, opts);
  } catch (err) {
    return failed(`Python code execution failed: ${errorText(err)}`);
  }
}

/** `python`: a Python expression, function body or file function judges the output. */
export const pythonScorer: Scorer = {
  type: 'python',
  description:
    'Python code (inline expression or body, or file://x.py[:fn]) returns bool, number or {pass, score, reason}',
  validate: (spec) => scriptValueProblem(spec, 'python'),
  score: scorePython,
};
