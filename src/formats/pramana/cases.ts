// A validated pramana test as an assay Case: its one message, and its assertion as one of assay's
// general scorers with pramana's rules as parameters.
import type { AssertionSpec, Case, Diagnostic } from '../../core/types.js';
import type { PramanaTest } from './test-case.js';

/** pramana's generation settings: `pramana run` defaults, and the OpenAI provider's token cap. */
export const PRAMANA_PARAMS = { temperature: 0, seed: 42, max_completion_tokens: 1000 } as const;

/** The judge's system prompt, verbatim from pramana's runner (part of the behaviour reproduced). */
export const JUDGE_SYSTEM_PROMPT =
  "You are an evaluation judge. Given a model output and a question about it, respond with ONLY 'YES' or 'NO'. Do not explain.";

/** The judge's user prompt layout in pramana's runner. */
export const JUDGE_TEMPLATE = 'Model output:\n{output}\n\nQuestion: {question}';

/** pramana's exception text where it stops a run (null ideal, missing judge prompt). */
function noValueError(test: PramanaTest): string {
  switch (test.assertion.type) {
    case 'contains_any':
      return "contains_any requires ideal value (got: None, type: <class 'NoneType'>)";
    case 'llm_judge':
      return `llm_judge requires judge_prompt for test ${test.id}`;
    default:
      return `${test.assertion.type} requires ideal value`;
  }
}

/** The assertion as a general scorer spec. */
export function assertionSpec(test: PramanaTest, where: { file: string; line: number }): AssertionSpec {
  const { type, caseSensitive, threshold, judgePrompt } = test.assertion;
  const common = { literal: true, source: where };
  switch (type) {
    case 'exact_match':
    case 'contains':
    case 'contains_any':
      return {
        type: type === 'exact_match' ? 'py-equals' : type === 'contains' ? 'py-contains' : 'py-contains-any',
        value: test.ideal,
        options: { caseSensitive, noValueError: noValueError(test) },
        ...common,
      };
    case 'is_json':
      return { type: 'py-is-json', ...common };
    case 'llm_judge':
      return {
        type: 'judge-yes-no',
        value: judgePrompt ?? '',
        options: {
          system: JUDGE_SYSTEM_PROMPT,
          template: JUDGE_TEMPLATE,
          passPrefix: 'YES',
          params: { ...PRAMANA_PARAMS },
          noValueError: noValueError(test),
        },
        ...common,
      };
    case 'semantic_similarity':
      return {
        type: 'embedding-similarity',
        value: test.ideal,
        // pramana never reads the threshold; an infinite or NaN one (pydantic reads "inf") gives
        // assay nothing to compare with either, so the test is skipped as pramana skips it.
        ...(threshold !== null && Number.isFinite(threshold) ? { threshold } : {}),
        ...common,
      };
  }
}

/** A warning for a semantic_similarity threshold that is not a finite number. */
export function thresholdWarning(
  test: PramanaTest,
  where: { file: string; line: number },
): Diagnostic | undefined {
  const { type, threshold } = test.assertion;
  if (type !== 'semantic_similarity' || threshold === null || Number.isFinite(threshold)) return undefined;
  return {
    ...where,
    severity: 'warning',
    message: `assertion.threshold is ${threshold}: no similarity can be judged against it, so the test is skipped (pramana never reads the threshold and skips semantic_similarity always)`,
  };
}

/**
 * Where pramana would stop the whole run on this test (a ValueError or IndexError from its
 * assertion): assay runs it and records an error instead; the warning says so up front.
 */
export function abortWarning(
  test: PramanaTest,
  where: { file: string; line: number },
): Diagnostic | undefined {
  const { type, judgePrompt } = test.assertion;
  let problem: string | undefined;
  if (test.inputError) problem = `input: a chat list without a first message content (${test.inputError})`;
  else if (type === 'llm_judge' && !judgePrompt)
    problem = 'assertion.judge_prompt: missing or empty for llm_judge';
  else if (['exact_match', 'contains', 'contains_any'].includes(type)) {
    if (test.ideal === null) problem = `ideal: null with ${type}`;
    else if (Array.isArray(test.ideal) && test.ideal.length === 0 && type !== 'contains_any')
      problem = `ideal: an empty list with ${type}`;
  }
  if (!problem) return undefined;
  return {
    ...where,
    severity: 'warning',
    message: `${problem}: pramana stops the whole run at this test; assay records it as an error and goes on`,
  };
}

/** The Case for a test of a tier. `caseId` is unique within the suite. */
export function toCase(
  test: PramanaTest,
  tier: string,
  caseId: string,
  where: { file: string; line: number },
): Case {
  return {
    id: caseId,
    // pramana's own id, within its tier: pairs the test across runs whatever its check says.
    ref: `${tier}/${test.id}`,
    description: test.id,
    vars: {},
    conversations: [
      {
        messages: [
          { role: 'user', content: test.inputText },
          { role: 'assistant', content: null },
        ],
      },
    ],
    asserts: [assertionSpec(test, where)],
    ...(test.inputError ? { error: test.inputError } : {}),
    metadata: {
      pramana_id: test.id,
      tier,
      category: test.category,
      difficulty: test.difficulty,
      tags: test.tags,
      tokens_est: test.tokensEst,
    },
    provenance: { source: where },
  };
}
