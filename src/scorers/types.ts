import type { Answer, AssertionSpec, Message, RunTranscript, TokenUsage, Verdict } from '../core/types.js';

/** What a scorer sees for one assertion on one output. */
export interface ScoreInput {
  /** The output as text (objects are JSON-stringified). */
  output: string;
  /** The output as the provider returned it (may be an object, e.g. tool calls). */
  outputValue: unknown;
  /**
   * The output after the provider's transform but before the case's and the assertion's (promptfoo
   * gives this to a `contextTransform`). Defaults to `outputValue` when the engine has no other.
   */
  providerOutput?: unknown;
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
    /**
     * The answer as it came (content blocks: text, tool calls, reasoning, refusal), when its
     * provider returned it structured: for scorers that read more than the output's text.
     */
    answer?: Answer;
  };
  /** The provider that produced the output: its id and config (e.g. `tools` for tool-call checks). */
  provider?: { id: string; config: Record<string, unknown> };
  /**
   * The conversation with every hole filled, the last being the answer scored (for a prompt
   * template: the messages sent, then the answer). With several runs, the last run's. The engine
   * always sets this, `outputs` and `runs`; they are optional only for scorers called by hand.
   */
  messages?: Message[];
  /** The completions of the named holes (`Message.variable`) of the last run, by variable. */
  outputs?: Record<string, string>;
  /** Every run of the case's conversations (each conversation × repetition), in order. */
  runs?: RunTranscript[];
  /** The case being scored (scripts see it as `context.test`). */
  test?: { description?: string; metadata?: Record<string, unknown> };
  /** The suite's folder: relative `file://` paths in assertion values resolve against it. */
  basePath?: string;
  /** The grader resolved for this assertion (set only for scorers marked `graded` or `usesGrader`). */
  grader?: Grader;
  /** For a `group` scorer: the verdicts of `spec.children`, scored by the engine first. */
  children?: Verdict[];
}

/** One output of a cross-row comparison: what one prompt × provider answered for the same case and trial. */
export interface CompareRow {
  /** The output text; empty when the provider failed. */
  output: string;
  outputValue: unknown;
  /** The job had no usable output (a provider error). */
  errored: boolean;
  /** The row's verdicts from the case's other assertions (groups carry their children). */
  verdicts: Verdict[];
  prompt: string;
}

/** What a comparing scorer sees: every row of one case and trial, in plan order. */
export interface CompareInput {
  spec: AssertionSpec;
  /** The expected value after template rendering. */
  value: unknown;
  rows: CompareRow[];
  vars: Record<string, unknown>;
  basePath?: string;
  /** Set for scorers marked `graded` or `usesGrader`. */
  grader?: Grader;
}

/** What a grader answered. */
export interface GraderReply {
  output: string;
  usage?: TokenUsage;
  cost?: number;
  cached?: boolean;
}

/**
 * A model that judges outputs: the assertion's own provider, `--grader`, the suite's default
 * grader, or the provider under test. Calls go through retries and the response cache.
 */
export interface Grader {
  /** The grader's provider id (for reasons and reports). */
  id: string;
  /** Asks the grader; throws GraderError when it cannot answer after retries. */
  complete(messages: Message[], params?: Record<string, unknown>): Promise<GraderReply>;
  /** The provider that embeds (the same as `id` unless a separate embedding provider was given). */
  embeddingId?: string;
  /** Embeds texts; undefined when the provider offers no embeddings. Throws GraderError on failure. */
  embed?: (texts: string[]) => Promise<number[][]>;
}

/** The grader could not be asked or answered unusably: the job becomes an error with this reason. */
export class GraderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GraderError';
  }
}

/** A scorer's judgement, before the engine adds weight and metric. */
export interface ScoreResult {
  pass: boolean;
  score: number;
  reason: string;
  /** Metrics the scorer reports itself (scripts may return them); merged into the case's named scores. */
  namedScores?: Record<string, number>;
  /** The scorer cannot judge here (and says why in `reason`): the verdict is left out of the case score. */
  skip?: boolean;
  /** Scorer-specific facts for native outputs (kept on the verdict). */
  details?: Record<string, unknown>;
  /** The weight behind each named score, when not 1 (a group's metrics). */
  namedScoreWeights?: Record<string, number>;
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
  /**
   * A load-time doubt that is not an error (the original tool runs the assertion): a warning in
   * one sentence, e.g. a fixed pattern that can never match; undefined when there is none.
   */
  lint?(spec: AssertionSpec): string | undefined;
  /** Needs a grader provider: a suite without one is refused before anything runs. */
  graded?: boolean;
  /** Uses a grader when one is resolvable but does not require it (e.g. embeddings that may be absent). */
  usesGrader?: boolean;
  /** Needs the grader's embeddings: a grader known to offer none is refused before anything runs. */
  needsEmbeddings?: boolean;
  /** A group: its spec's `children` are scored by the engine first and given to `score` as `input.children`. */
  group?: boolean;
  score(input: ScoreInput): ScoreResult | Promise<ScoreResult>;
  /**
   * A cross-row scorer: judges all outputs of one case and trial together, once every job of that
   * group has finished, returning one result per row. The engine leaves the assertion out of each
   * row's own scoring and applies these results afterwards (`score` stays the judgement of a lone
   * output, a group of one).
   */
  compare?(input: CompareInput): Promise<ScoreResult[]>;
}

/** The assertion's own value or shape is invalid; no verdict on the output is possible. */
export class ScorerInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScorerInputError';
  }
}
