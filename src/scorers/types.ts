import type { AssertionSpec, TokenUsage } from '../core/types.js';

/** What a scorer sees for one assertion on one output. */
export interface ScoreInput {
  /** The output as text (objects are JSON-stringified). */
  output: string;
  /** The output as the provider returned it (may be an object, e.g. tool calls). */
  outputValue: unknown;
  /** The expected value after template rendering (strings rendered, arrays element-wise). */
  value: unknown;
  spec: AssertionSpec;
  vars: Record<string, unknown>;
  /** The rendered prompt text. */
  prompt: string;
  response: {
    latencyMs?: number;
    cost?: number;
    finishReason?: string;
    usage?: TokenUsage;
    cached?: boolean;
    /** Token log-probabilities of the output, when the provider returned them. */
    logProbs?: number[];
  };
  /** The provider that produced the output: its id and config (e.g. `tools` for tool-call checks). */
  provider?: { id: string; config: Record<string, unknown> };
  /** The case being scored (scripts see it as `context.test`). */
  test?: { description?: string; metadata?: Record<string, unknown> };
  /** The suite's folder: relative `file://` paths in assertion values resolve against it. */
  basePath?: string;
}

/** A scorer's judgement, before the engine adds weight and metric. */
export interface ScoreResult {
  pass: boolean;
  score: number;
  reason: string;
  /** Metrics the scorer reports itself (scripts may return them); merged into the case's named scores. */
  namedScores?: Record<string, number>;
}

/**
 * A scorer: turns (output, expected value) into a ScoreResult. It throws ScorerInputError when the
 * assertion itself is unusable (e.g. `contains` with no value): the job then becomes an error, as
 * in promptfoo, because no verdict on the model can be given.
 */
export interface Scorer {
  type: string;
  /** One line for `assay --help`-style listings. */
  description: string;
  /** Checks a spec at load time; returns a problem in one sentence, or undefined. */
  validate?(spec: AssertionSpec): string | undefined;
  /** Needs a grader provider. */
  graded?: boolean;
  score(input: ScoreInput): ScoreResult | Promise<ScoreResult>;
}

/** The assertion's own value or shape is invalid; no verdict on the output is possible. */
export class ScorerInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScorerInputError';
  }
}
