import type { AssertionSpec, Case } from '../../../src/core/types.js';
import { type CaseOutcome, type ScoringContext, scoreCase } from '../../../src/engine/score.js';
import '../../../src/scorers/index.js';
import type { ScriptScoreResult } from '../../../src/scorers/code/normalize.js';
import { getScorer } from '../../../src/scorers/registry.js';
import type { ScoreInput } from '../../../src/scorers/types.js';
import { fixture } from '../../support/paths.js';

/** The folder of the code scorers' fixtures (scripts resolve against it). */
export const CODE_DIR = fixture('code');

/** A ScoreInput for one assertion on one output. */
export function input(spec: AssertionSpec, output: unknown, extra: Partial<ScoreInput> = {}): ScoreInput {
  return {
    output: typeof output === 'string' ? output : JSON.stringify(output),
    outputValue: output,
    value: spec.value,
    spec,
    vars: {},
    prompt: 'the prompt',
    response: {},
    basePath: CODE_DIR,
    ...extra,
  };
}

/** Scores one assertion straight through its scorer (validate first, as the loader would). */
export async function score(
  spec: AssertionSpec,
  output: unknown,
  extra: Partial<ScoreInput> = {},
): Promise<ScriptScoreResult> {
  const scorer = getScorer(spec.type);
  if (!scorer) throw new Error(`no scorer ${spec.type}`);
  const problem = scorer.validate?.(spec);
  if (problem) throw new Error(`invalid spec: ${problem}`);
  return (await scorer.score(input(spec, output, extra))) as ScriptScoreResult;
}

/** Scores a case with these assertions through the engine's scoreCase. */
export function scoreWith(
  asserts: AssertionSpec[],
  output: unknown,
  extra: Partial<ScoringContext> = {},
  caseExtra: Partial<Case> = {},
): Promise<CaseOutcome> {
  return scoreCase(
    { id: 'c', vars: {}, asserts, metadata: {}, ...caseExtra },
    {
      output: typeof output === 'string' ? output : JSON.stringify(output),
      outputValue: output,
      vars: {},
      prompt: 'p',
      response: {},
      basePath: CODE_DIR,
      ...extra,
    },
  );
}

/** Just pass and score, for compact comparisons. */
export function ps(r: { pass: boolean; score: number }): { pass: boolean; score: number } {
  return { pass: r.pass, score: r.score };
}
