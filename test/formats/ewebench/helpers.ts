import type { AssertionSpec, Case } from '../../../src/core/types.js';
import { scoreCase } from '../../../src/engine/score.js';
import { assertionFor, type EweTest, type Mode } from '../../../src/formats/ewebench/assertions.js';
import '../../../src/scorers/index.js';
import '../../../src/formats/ewebench/ewe-quality.js';

/** Scores an output the way an ÈwéBench case of this test would be scored (assay's own pipeline). */
export async function scoreTest(test: EweTest, output: string, mode: Mode = 'compat') {
  const spec: AssertionSpec = assertionFor(test, mode);
  const testCase: Case = {
    id: 't',
    vars: {},
    asserts: [spec],
    metadata: {},
    scoring: { threshold: 0.7, thresholdDigits: 3 },
  };
  return scoreCase(testCase, { output, outputValue: output, vars: {}, prompt: '', response: {} });
}

/** The test object a golden unit case stands for: [method, args] → (test, response). */
export function unitCaseTest(method: string, args: unknown[]): { test: EweTest; response: string } {
  switch (method) {
    case 'exact_match':
    case 'multiple_choice':
      return { test: { eval_method: method, expected: args[0] as string }, response: args[1] as string };
    case 'keywords':
      return {
        test: { eval_method: method, expected_keywords: args[0] as string[] },
        response: args[1] as string,
      };
    case 'format':
      return {
        test: { eval_method: method, expected_format: args[0] as Record<string, unknown> },
        response: args[1] as string,
      };
    case 'ewe_quality':
      return { test: { eval_method: method }, response: args[0] as string };
    default:
      throw new Error(`unknown unit case method ${method}`);
  }
}
