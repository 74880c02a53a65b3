// The `javascript` assertion (spec §5.3): inline code or a `file://` module, called with the raw
// output and promptfoo's context; booleans, numbers and GradingResults read by promptfoo's rules.

import { compileInline, processShim } from '../../runtime/js-runtime.js';
import { parseScriptRef } from '../../runtime/script-ref.js';
import { hasTemplateSyntax } from '../../template/render.js';
import type { Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { truncate, writtenType } from '../util.js';
import { type ScriptScoreInput, scriptContext, scriptOutput } from './context.js';
import { normalizeJavascriptResult, type ScriptScoreResult } from './normalize.js';
import { errorText, runScriptFile } from './run-file.js';
import { scriptValueProblem } from './validate.js';

function failed(reason: string): ScriptScoreResult {
  return { pass: false, score: 0, reason };
}

async function scoreJavascript(input: ScriptScoreInput): Promise<ScriptScoreResult> {
  const code = input.value;
  if (typeof code !== 'string') {
    throw new ScorerInputError('"javascript" needs a string value (inline code or file://path.js)');
  }
  // promptfoo shows the code under a failure reason; a long script is shortened.
  const shown = truncate(code.trimEnd());
  const opts = { threshold: input.spec.threshold, negate: input.spec.negate === true, suffix: shown };
  const ref = parseScriptRef(code.trim());
  let result: unknown;
  if (ref) {
    const run = await runScriptFile(ref, input, writtenType('javascript', input.spec));
    if ('failure' in run) return failed(`${run.failure}\n${shown}`);
    result = run.result;
  } else {
    const fn = compileInline(code);
    // Code that does not compile fails the assertion (promptfoo compiles inside its try block).
    if (typeof fn === 'string') return failed(`Custom function threw error: ${fn}\n${shown}`);
    try {
      result = await fn(scriptOutput(input), scriptContext(input, 'javascript'), processShim(input.basePath));
    } catch (err) {
      return failed(`Custom function threw error: ${errorText(err)}\n${shown}`);
    }
  }
  try {
    return normalizeJavascriptResult(result, opts);
  } catch (err) {
    return failed(`Custom function threw error: ${errorText(err)}\n${shown}`);
  }
}

/** `javascript`: a JavaScript expression, function body or module function judges the output. */
export const javascriptScorer: Scorer = {
  type: 'javascript',
  description:
    'JavaScript code (inline expression or body, or file://x.js[:fn]) returns bool, number or {pass, score, reason}',
  validate(spec) {
    const problem = scriptValueProblem(spec, 'javascript');
    if (problem) return problem;
    const code = spec.value as string;
    // Templated code is only known after rendering; it is compiled then.
    if (parseScriptRef(code.trim()) || hasTemplateSyntax(code)) return undefined;
    const compiled = compileInline(code);
    if (typeof compiled === 'string') {
      return `${writtenType('javascript', spec)}: inline code does not compile: ${compiled}`;
    }
    return undefined;
  },
  score: scoreJavascript,
};
