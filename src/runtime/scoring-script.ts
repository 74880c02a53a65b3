// A case's own scoring function (Case.scoreScript, promptfoo's `assertScoringFunction`): it
// replaces the weighted average of the verdicts. It is called with the named scores (each the
// weighted mean of its assertions) and `{threshold, componentResults, tokensUsed}`, and must
// return a grading result `{pass, score, reason, …}`, which then stands for the case.
import type { Verdict } from '../core/types.js';
import { errorText } from '../scorers/code/run-file.js';
import { loadScriptFunction } from './js-runtime.js';
import { callPython, PythonUnavailableError } from './python-worker.js';
import { parseScriptRef, scriptPath, scriptRuntime } from './script-ref.js';

/** What a scoring function decided. */
export interface ScoringDecision {
  pass: boolean;
  score: number;
  reason: string;
  namedScores?: Record<string, number>;
}

/** promptfoo's test of a grading result: pass, score and reason of the right types, the rest optional. */
function isGradingResult(r: unknown): r is ScoringDecision {
  if (r === null || typeof r !== 'object') return false;
  const g = r as Record<string, unknown>;
  const optional = (k: string, type: string) => g[k] === undefined || typeof g[k] === type;
  return (
    typeof g.pass === 'boolean' &&
    typeof g.score === 'number' &&
    typeof g.reason === 'string' &&
    optional('namedScores', 'object') &&
    optional('namedScoreWeights', 'object') &&
    optional('tokensUsed', 'object') &&
    (g.componentResults === undefined || Array.isArray(g.componentResults)) &&
    (g.assertion === undefined || g.assertion === null || typeof g.assertion === 'object') &&
    optional('comment', 'string')
  );
}

/** A verdict as promptfoo's componentResults hold it. */
function componentResult(v: Verdict): Record<string, unknown> {
  const out: Record<string, unknown> = { pass: v.pass, score: v.score, reason: v.reason };
  if (v.namedScores) out.namedScores = v.namedScores;
  if (v.assertion) {
    const { type: _type, negate: _negate, ...rest } = v.assertion;
    out.assertion = { ...rest, type: v.type };
  }
  return out;
}

/**
 * Runs a case's scoring function. Anything that goes wrong (the function throws, Python fails or
 * is missing, the result is no grading result) is promptfoo's "Scoring function error": the case
 * fails with score 0.
 */
export async function runScoringScript(
  script: string,
  input: {
    namedScores: Record<string, number>;
    threshold?: number;
    verdicts: Verdict[];
    basePath?: string;
  },
): Promise<ScoringDecision> {
  const context = {
    threshold: input.threshold,
    componentResults: input.verdicts.flatMap((v) => [
      componentResult(v),
      ...(v.children ?? []).map(componentResult),
    ]),
    tokensUsed: { total: 0, prompt: 0, completion: 0, cached: 0, numRequests: 0 },
  };
  try {
    const ref = parseScriptRef(script);
    if (!ref) throw new Error(`${script} is not a file:// reference`);
    const abs = scriptPath(ref, input.basePath);
    let result: unknown;
    if (scriptRuntime(ref.path) === 'python') {
      const reply = await callPython({
        kind: 'file',
        path: abs,
        fn: ref.fn ?? 'func',
        args: [input.namedScores, context],
      });
      if (!reply.ok) throw new Error(reply.error);
      result = reply.result;
    } else {
      const fn = await loadScoringFunction(abs, ref.fn, `file://${ref.path}`);
      result = await fn(input.namedScores, context);
    }
    if (!isGradingResult(result)) throw new Error('assertion scoring function must return a GradingResult');
    return result;
  } catch (err) {
    const message = err instanceof PythonUnavailableError ? err.message : errorText(err);
    return { pass: false, score: 0, reason: `Scoring function error: ${message}` };
  }
}

/** The module's named function, else its default export, else its `func` export (promptfoo's order). */
async function loadScoringFunction(abs: string, fn: string | undefined, shown: string) {
  if (fn !== undefined) return loadScriptFunction(abs, fn, shown);
  try {
    return await loadScriptFunction(abs, undefined, shown);
  } catch {
    return loadScriptFunction(abs, 'func', shown);
  }
}
