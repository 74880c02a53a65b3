/**
 * assay's core model. Every input format is translated into these types; everything downstream
 * (engine, run log, analysis, reports) reads only these.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** One part of a multi-part message (text or image), as chat APIs accept them. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/**
 * A chat message. An assistant message whose content is `null` is a hole: the model fills it and
 * its text is exposed to scorers under `variable`.
 */
export interface Message {
  role: Role;
  content: string | ContentPart[] | null;
  variable?: string;
}

/** A conversation sent to the model, possibly several times. */
export interface Conversation {
  messages: Message[];
  repetitions?: number;
}

/** Where something came from in a user's files, for error messages. */
export interface SourceRef {
  file: string;
  line?: number;
  col?: number;
}

/** A prompt template rendered with a case's vars (nunjucks syntax). */
export interface PromptTemplate {
  /** Stable identity (used in job keys and filters). */
  id: string;
  /** Human label (shown in reports; matched by filters). */
  label: string;
  /** Template text. If it parses as a JSON array of messages it is a chat prompt. */
  raw: string;
  /** Extra provider parameters carried by the prompt. */
  config?: Record<string, unknown>;
}

/** How a suite asks for a provider. Resolved into a Provider by the provider registry. */
export interface ProviderSpec {
  /** Provider id, e.g. `echo`, `openai:chat:gpt-4o-mini`. */
  id: string;
  /** Display label; defaults to the id. Job keys use label ?? id. */
  label?: string;
  config?: Record<string, unknown>;
  /** Restricts which prompts this provider runs (prompt refs). */
  prompts?: string[];
  source?: SourceRef;
}

/** One assertion to apply to a model output. */
export interface AssertionSpec {
  /** Scorer type name in the registry, without any `not-` prefix. */
  type: string;
  /** Expected value; strings are rendered as templates against the case's vars. */
  value?: unknown;
  /** `not-<type>`: the scorer inverts its own verdict (each scorer decides how). */
  negate?: boolean;
  threshold?: number;
  /** Weight in the case score; 0 means the assertion never fails the case. Default 1. */
  weight?: number;
  /** Named metric this assertion's score contributes to. */
  metric?: string;
  /** Grader provider for model-graded assertions. */
  grader?: ProviderSpec;
  /** Scorer-specific options. */
  options?: Record<string, unknown>;
  source?: SourceRef;
}

/** Options that change how a case's prompt is built. */
export interface CaseOptions {
  /** Prepended to the raw prompt template before rendering. */
  prefix?: string;
  /** Appended to the raw prompt template before rendering. */
  suffix?: string;
  /** Extra provider parameters for this case. */
  params?: Record<string, unknown>;
}

/** One test case: inputs plus what to check. */
export interface Case {
  /** Stable within the suite (derived from content); used in job keys. */
  id: string;
  description?: string;
  vars: Record<string, unknown>;
  /** Conversations of their own (formats without prompt templates). */
  conversations?: Conversation[];
  asserts: AssertionSpec[];
  metadata: Record<string, unknown>;
  /** Restricts which providers / prompts run this case (refs, as in promptfoo). */
  only?: { providers?: string[]; prompts?: string[] };
  /** The case passes iff its weighted score ≥ threshold (when set). */
  threshold?: number;
  options?: CaseOptions;
  /** A fixed output: no provider is called. */
  providerOutput?: unknown;
  source?: SourceRef;
}

export interface SuiteSource {
  /** The suite's main file or folder. */
  path: string;
  /** sha256 of every file read to build the suite. */
  contentHash: string;
  /** The format's own identity hash, when it defines one. */
  nativeHash?: string;
  files: string[];
}

export interface SuiteScoring {
  groupBy?: string;
  groupWeights?: Record<string, number>;
  passThreshold?: number;
}

/** A whole suite, in assay's model. */
export interface Suite {
  id: string;
  name: string;
  /** The input format's name; for provenance only — nothing downstream branches on it. */
  format: string;
  source: SuiteSource;
  /** Directory that relative paths (file:// values) resolve against. */
  basePath: string;
  prompts: PromptTemplate[];
  providers: ProviderSpec[];
  cases: Case[];
  scoring: SuiteScoring;
  grader?: ProviderSpec;
  /** Environment overrides declared by the suite (visible to templates and providers). */
  env?: Record<string, string>;
  /** Warnings found while loading; the suite is still runnable. */
  warnings: Diagnostic[];
}

/** A unit of work: one case × prompt × provider × trial. */
export interface Job {
  key: string;
  caseId: string;
  caseIndex: number;
  promptId: string;
  providerId: string;
  trial: number;
}

export interface TokenUsage {
  prompt?: number;
  completion?: number;
  total?: number;
}

export type JobStatus = 'pass' | 'fail' | 'error' | 'skip';

/** The judgement of one assertion on one output. */
export interface Verdict {
  /** Scorer type, with `not-` when negated. */
  type: string;
  pass: boolean;
  /** In [0, 1] for most scorers; a few (latency, cost without threshold) report raw values. */
  score: number;
  reason: string;
  weight: number;
  metric?: string;
  /** Set when the scorer could not run (bad value, grader failure); the verdict then fails. */
  error?: string;
  /** The expected value after template rendering, when it differs from the spec's. */
  renderedValue?: unknown;
  /** Metrics reported by the scorer itself (e.g. a script's `namedScores`). */
  namedScores?: Record<string, number>;
}

/** Everything recorded about one job. One line of results.jsonl. */
export interface JobResult {
  key: string;
  caseId: string;
  caseIndex: number;
  description?: string;
  promptId: string;
  promptLabel: string;
  providerId: string;
  trial: number;
  vars: Record<string, unknown>;
  /** What was sent: the rendered prompt text and the messages. */
  prompt: { text: string; messages: Message[] };
  status: JobStatus;
  /** The model's output(s); `output` is the final text scored by default. */
  output: string | null;
  verdicts: Verdict[];
  score: number;
  /** Why the case failed or errored, in one line. */
  reason: string;
  error?: string;
  latencyMs: number;
  usage?: TokenUsage;
  cost?: number;
  finishReason?: string;
  cached?: boolean;
  metadata?: Record<string, unknown>;
  namedScores?: Record<string, number>;
  startedAt: string;
  attempts?: number;
}

/** A problem in user input. */
export interface Diagnostic {
  file: string;
  line?: number;
  col?: number;
  message: string;
  severity: 'error' | 'warning';
}
