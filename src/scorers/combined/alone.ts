// A comparing scorer asked to judge one output by itself (e.g. inside a set): it is judged as a
// group of one, so it gives the same verdict or error as a test with a single prompt × provider.
import type { CompareInput, ScoreInput, ScoreResult } from '../types.js';

/** A `score` for a comparing scorer: its `compare` over a group holding only this output. */
export function judgedAlone(
  compare: (input: CompareInput) => Promise<ScoreResult[]>,
): (input: ScoreInput) => Promise<ScoreResult> {
  return async (input) =>
    (
      await compare({
        spec: input.spec,
        value: input.value,
        rows: [
          {
            output: input.output,
            outputValue: input.outputValue,
            errored: false,
            verdicts: [],
            prompt: input.prompt,
          },
        ],
        vars: input.vars,
        basePath: input.basePath,
        grader: input.grader,
      })
    )[0];
}
