import assert from 'node:assert/strict';
import type { AssertionSpec } from '../../../src/core/types.js';
import { getScorer } from '../../../src/scorers/index.js';
import type { ScoreInput, ScoreResult } from '../../../src/scorers/types.js';

/** What a test may set besides the type, value and output. */
export interface RunOptions {
  spec?: Partial<AssertionSpec>;
  response?: ScoreInput['response'];
  outputValue?: unknown;
  provider?: ScoreInput['provider'];
  basePath?: string;
}

/** Scores one output with a registered scorer, as the engine would (value already rendered). */
export async function run(
  type: string,
  value: unknown,
  output: string,
  options: RunOptions = {},
): Promise<ScoreResult> {
  const scorer = getScorer(type);
  assert.ok(scorer, `${type} is registered`);
  return scorer.score({
    output,
    outputValue: 'outputValue' in options ? options.outputValue : output,
    value,
    spec: { type, value, ...options.spec },
    vars: {},
    prompt: '',
    response: options.response ?? {},
    provider: options.provider,
    basePath: options.basePath,
  });
}

/** The load-time problem a scorer reports for a spec, or undefined. */
export function problem(type: string, spec: Partial<AssertionSpec>): string | undefined {
  const scorer = getScorer(type);
  assert.ok(scorer, `${type} is registered`);
  return scorer.validate?.({ type, ...spec });
}

/** `not-` for the spec. */
export const not: RunOptions = { spec: { negate: true } };

/** Asserts two numbers agree to 1e-9. */
export function near(actual: number, expected: number, message?: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9, message ?? `expected ${expected}, got ${actual}`);
}
