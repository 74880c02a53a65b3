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

/**
 * A conversation sent to the model, possibly several times. Its holes (assistant messages with
 * `content: null`) are filled in order, each with everything before it as context; a conversation
 * with no hole has one implied at its end. Each repetition is a separate run of the whole
 * conversation.
 */
export interface Conversation {
  messages: Message[];
  /** How many times the conversation is run (default 1). */
  repetitions?: number;
}

/** One run of one conversation of a case (recorded when a case is more than one hole or run). */
export interface ConversationRun {
  /** Index of the conversation in the case's `conversations`. */
  conversation: number;
  repetition: number;
  /** The completion of every hole, in order; the last is the run's output. */
  completions: string[];
  /** The completions of the holes that have a `variable`, by variable. */
  outputs?: Record<string, string>;
}

/** One run of a case's conversation as scorers see it: every hole filled. */
export interface RunTranscript {
  conversation: number;
  repetition: number;
  /** The conversation with every hole filled by its completion. */
  messages: Message[];
  /** The last hole's completion. */
  output: string;
  /** Completions of the named holes, by variable. */
  outputs: Record<string, string>;
  completions: string[];
}

/**
 * One block of a model's answer, as the API gave it (see {@link Answer}): text; a tool call; the
 * model's reasoning (thinking) where the API returns it; a refusal.
 */
export type AnswerBlock = TextBlock | ToolCallBlock | ReasoningBlock | RefusalBlock;

/** Text the model wrote. An API that said "text, empty" (OpenAI's `content: ""`) gives one with `''`. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A tool (function) the model asks to call. */
export interface ToolCallBlock {
  type: 'tool_call';
  /** The call's id, where the API gives one (OpenAI's `call_…`, Anthropic's `toolu_…`). */
  id?: string;
  name: string;
  /** The arguments as the JSON text the wire gave (an API that sends an object: that object as JSON). */
  arguments: string;
  /** `arguments` parsed, when it parses (absent otherwise: the text is what the model wrote). */
  input?: unknown;
  /** The call came in OpenAI's legacy `function_call` (no id), not in `tool_calls`. */
  form?: 'function_call';
}

/** The model's reasoning, where the API returns it (OpenAI-compatible `reasoning`/`reasoning_content`, Anthropic's thinking). */
export interface ReasoningBlock {
  type: 'reasoning';
  text: string;
  /** The API returned the reasoning encrypted or withheld (Anthropic's `redacted_thinking`): `text` is its data. */
  redacted?: boolean;
  /** The API's signature of the reasoning (Anthropic's thinking blocks), kept to send it back. */
  signature?: string;
}

/** A refusal: the model declined (OpenAI's `message.refusal`), or the service's filter blocked the exchange. */
export interface RefusalBlock {
  type: 'refusal';
  text: string;
  /** `filter`: the service's content filter answered instead of the model (Azure's HTTP 400 `content_filter`); `text` is its message. */
  by?: 'filter';
}

/**
 * A model's answer as it came (ProviderResponse.answer): the content blocks, the wire dialect it
 * came in, and the finish reason. The `output` assertions see is derived from it by the suite's
 * output rule (Suite.answerRule; core/answer.ts), so one answer reads as each format's own tool
 * reads it. Usage and cost stay beside it on the response.
 */
export interface Answer {
  /**
   * The wire dialect the answer came in, as the provider read it: `openai-chat`,
   * `openai-completion`, `azure-chat`, `azure-completion`, `mistral-chat`, `openrouter-chat`,
   * `localai-chat`, `echo`, … (`compat`: a provider still returning plain text). An output rule
   * reproduces, per dialect, what its tool's provider for that API makes of the answer.
   */
  api: string;
  blocks: AnswerBlock[];
  /** For APIs whose answer is any value rather than content (an http provider's transformed response, a script's object). */
  value?: unknown;
  /** The finish reason in promptfoo's vocabulary (`stop`, `length`, `tool_calls`, `content_filter`, …; core/answer.ts normalizeFinishReason). */
  finishReason?: string;
  /** The finish reason as the wire said it, when that differs from `finishReason` (Anthropic's `end_turn`). */
  finishReasonRaw?: string;
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
  /**
   * The variable this template reads the earlier turns of a case's thread from (a list of
   * {@link ThreadTurn}, oldest first); absent, the template sees no thread.
   */
  threadVar?: string;
  /** The prompt is made for each job by a program (see {@link PromptProgram}); `raw` is its source. */
  program?: PromptProgram;
}

/**
 * A program that makes a prompt for each job from `{vars, provider: {id, label}, config}` (the
 * prompt's config): a JavaScript function (its result: text, `{prompt, config}` whose config is
 * merged into the prompt's, or any other value as JSON), a Python function (`fn`) or script run
 * with the context as its argument (`python-script`, its printed text), or an executable (`command`
 * and `args`, the context JSON appended; its standard output). What it makes is then rendered
 * with the vars as any prompt is. A failure makes the job an error.
 */
export interface PromptProgram {
  kind: 'javascript' | 'python' | 'python-script' | 'executable';
  /** The module, script or executable (absolute path). */
  path: string;
  fn?: string;
  args?: string[];
  /** The folder the program runs in (the suite's). */
  cwd?: string;
}

/** One earlier turn of a thread, as a template sees it. */
export interface ThreadTurn {
  /** The prompt sent: its value when the text sent was JSON (chat messages), else the text. */
  prompt: unknown;
  /** The last message's content (the prompt text for a plain prompt). */
  input: unknown;
  /** The provider's answer before any transform ('' when it gave none). */
  output: unknown;
}

/**
 * Cases sharing a thread are turns of one conversation: per provider and prompt, each job of the
 * thread runs after the thread's jobs before it in plan order and, when its prompt has a
 * `threadVar`, sees their turns.
 */
export interface CaseThread {
  id: string;
  /** The case's turn is recorded for the turns after it, but it is not shown the earlier ones. */
  hidden?: boolean;
  /**
   * The thread runs in order even where the prompt reads no turns: its turns may keep vars
   * (`storeAs`) for the turns after them.
   */
  ordered?: boolean;
  /**
   * One thread for the whole run rather than one per provider and prompt: its turns run one at a
   * time in plan order, across every provider and prompt.
   */
  across?: boolean;
  /**
   * The var this turn's output (after transforms; only a non-empty one, from a job that got an
   * answer) is kept under for the thread's later turns, whose vars take it over their own.
   */
  storeAs?: string;
}

/** How a suite asks for a provider. Resolved into a Provider by the provider registry. */
export interface ProviderSpec {
  /** Provider id, e.g. `echo`, `openai:chat:gpt-4o-mini`. */
  id: string;
  /**
   * The provider to build when `id` is only the name it runs under (promptfoo's
   * `{echo: {id: my-echo}}`); absent, `id` names the provider.
   */
  kind?: string;
  /** Display label; defaults to the id. Job keys use label ?? id. */
  label?: string;
  config?: Record<string, unknown>;
  /** Restricts which prompts this provider runs (prompt refs). */
  prompts?: string[];
  /** As a grader: a separate provider for embeddings (promptfoo's `{text, embedding}` provider map). */
  embedding?: ProviderSpec;
  /** The first output transform (see {@link OutputTransform}), applied to every answer of this provider. */
  transform?: OutputTransform;
  /** Milliseconds to wait after each call of this provider that was not a cache hit (beats the run's delay). */
  delayMs?: number;
  /** Environment overrides for this provider only (over the process's and the suite's). */
  env?: Record<string, string>;
  source?: SourceRef;
}

/**
 * Code that turns a model output into what assertions judge: a JavaScript expression or function
 * body (given `output` and `context`), or `file://path.js[:fn]` / `file://path.py[:fn]`. Returning
 * null or undefined, or throwing, makes the job an error.
 */
export type OutputTransform = string;

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
  /** Grader provider for model-graded assertions (`{ id: SELF_GRADER }`: the provider under test). */
  grader?: ProviderSpec;
  /** Scorer-specific options. */
  options?: Record<string, unknown>;
  /** Applied to the output before this assertion judges it (after the case's own transform). */
  transform?: OutputTransform;
  /**
   * The assertions of a group (a scorer marked `group`): the engine scores them first, with the same
   * rules as a case's assertions, and the group's scorer combines their verdicts into its own.
   */
  children?: AssertionSpec[];
  /** The value is used as written, never rendered as a template (formats whose values are plain text). */
  literal?: boolean;
  /**
   * The expected value is computed for each output by this script (`file://x.js[:fn]`,
   * `file://x.py[:fn]`, Python's default function `get_assert`), called as a script assertion is
   * (output, context); what it returns is the value.
   */
  valueScript?: string;
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
  /** Applied to the output (after the provider's transform) before any assertion judges it. */
  transform?: OutputTransform;
  /**
   * Answers this case instead of the provider under test; jobs keep the provider's key (the
   * column), only the call goes elsewhere.
   */
  provider?: ProviderSpec;
}

/**
 * Cases read again from their files on each pass, in the same order with the same ids: memory
 * depends on one case, not on the suite's size. `length` is known (the loader made a first pass).
 */
export interface CaseStream extends Iterable<Case> {
  readonly length: number;
}

/** One test case: inputs plus what to check. */
export interface Case {
  /**
   * A hash of the case's content (assertions included), unique within the suite; used in job keys,
   * so resume and the cache treat a changed case as new.
   */
  id: string;
  /**
   * The case's stable identity, for pairing it across runs (baselines, compare, rescore): the
   * format's own id where it has one, else a hash of what the model is asked (description, vars,
   * conversations) — not of the assertions, so editing a check keeps the pairing. Unique within the
   * suite (`core/ids.ts` sets it when a loader does not).
   */
  ref?: string;
  description?: string;
  vars: Record<string, unknown>;
  /** Conversations of their own (formats without prompt templates). */
  conversations?: Conversation[];
  /** The thread this case is a turn of (see {@link CaseThread}). */
  thread?: CaseThread;
  asserts: AssertionSpec[];
  metadata: Record<string, unknown>;
  /** Restricts which providers / prompts run this case (refs, as in promptfoo). */
  only?: { providers?: string[]; prompts?: string[] };
  /** How the prompt and vars are made ready for each job (see {@link CasePreparation}). */
  preparation?: CasePreparation;
  /** How the case's verdicts make its result, when not the weighted average against the default rules. */
  scoring?: CaseScoring;
  /** A recorded answer replayed instead of calling a provider (see {@link CaseReplay}). */
  replay?: CaseReplay;
  /** Where the case came from in the suite's files. */
  provenance?: CaseProvenance;
  /**
   * The case cannot be run as written (its format's own tool would stop here): the engine records
   * an error result with this reason and calls no provider.
   */
  error?: string;
}

/** How a case's prompt and vars are made ready for each job. */
export interface CasePreparation {
  /** Prefix, suffix, parameters, output transform and answering provider (part of the case's id). */
  options?: CaseOptions;
  /**
   * Vars computed for each job by a script, name → `file://x.js` / `file://x.py`, in order: a
   * JavaScript module's default export is called with (name, prompt template, vars, provider), a
   * Python file's `get_var(name, prompt, vars)`; either returns `{output}` (the var's value) or
   * `{error}`. Each script sees the vars computed before it. A failure makes the job an error.
   */
  varScripts?: Record<string, string>;
}

/** How a case's verdicts make its result. */
export interface CaseScoring {
  /** The case passes iff its weighted score ≥ threshold (when set). */
  threshold?: number;
  /**
   * Compare the score with `threshold` after rounding it to this many decimals, half to even as
   * Python's `round` does (a tool that passes a test on its rounded score). The recorded score
   * stays unrounded.
   */
  thresholdDigits?: number;
  /**
   * A scoring function that replaces the weighted average (`file://x.js[:fn]`, `file://x.py[:fn]`;
   * default function: the module's default, else `func`): called with the named scores and
   * `{threshold, componentResults, tokensUsed}`, it returns `{pass, score, reason, namedScores?}`.
   * Anything else, or a throw, fails the case with score 0 ("Scoring function error: …").
   */
  scoreScript?: string;
}

/** A recorded answer: no provider is called. */
export interface CaseReplay {
  /** A fixed output for a plain case. */
  output?: unknown;
  /**
   * Fixed completions for a case of several holes or runs: for each run of `conversations` in
   * order (conversation × repetition), the completion of each hole in order. Scorers see the
   * conversations filled with them, as after a live run.
   */
  runs?: string[][];
}

/** Where a case came from. */
export interface CaseProvenance {
  source?: SourceRef;
  /**
   * The vars as the suite wrote them, when loading changed them (file references read into their
   * contents): outputs that echo the test as its own tool does (promptfoo's JSON keeps
   * `file://doc.txt`) show these; everything else uses `vars`.
   */
  varsAsWritten?: Record<string, unknown>;
  /**
   * Index of the suite entry this case was expanded from (a promptfoo test whose list vars made
   * several cases). Filters that count tests (`--filter-first-n`, `--filter-sample`) count entries.
   * Absent: the case is an entry of its own.
   */
  expandedFrom?: number;
}

export interface SuiteSource {
  /** The suite's main file or folder. */
  path: string;
  /** sha256 of every file read to build the suite. */
  contentHash: string;
  /** The format's own identity hash, when it defines one. */
  nativeHash?: string;
  /** When a suite joins several parts with hashes of their own (pramana tiers): each part's hash, by name. */
  nativeHashes?: Record<string, string>;
  files: string[];
  /** Of `files`, those outside the suite's folder (a `file://` reference may name any path). */
  outside?: string[];
}

/**
 * A weighted aggregate of group mean scores (ÈwéBench's ÈwéScore): each group's mean case score,
 * weighted, re-normalised over the groups that have results.
 */
export interface WeightedScoreSpec {
  /** Shown in reports, e.g. `ÈwéScore`. */
  name: string;
  /** The case metadata key whose values are the groups. */
  groupBy: string;
  /** Weight per group value; groups not listed weigh `defaultWeight` (default 0: left out). */
  weights: Record<string, number>;
  defaultWeight?: number;
  /** Reports multiply the [0, 1] figure by this (ÈwéBench reports out of 100). Default 1. */
  scale?: number;
  /**
   * Reproduce a tool that rounds: each group's scaled mean is rounded (Python's half-to-even) to
   * this many decimals, and the total is the weighted mean of those rounded figures. Group sums
   * are then taken in plan order (case, trial), so the last bit matches a tool summing test by
   * test. Unset: no rounding, the total weighs the exact group means.
   */
  roundGroup?: number;
  /** Decimals the scaled total is rounded to (Python's half-to-even). */
  roundTotal?: number;
  /**
   * Error results with no score at all (no verdicts: the case could not be scored, or the
   * provider failed and nothing was scored): `zero` counts them as 0 in their group (default),
   * `exclude` leaves them out of the group's mean and total, as a tool that skips them would.
   * Either way they are counted as errors.
   */
  unscoredErrors?: 'zero' | 'exclude';
  /**
   * Error results that carry a score (their error text was scored: SuiteScoring.scoreErrorsAs)
   * count as passed in their group when that score, rounded half to even to `digits` decimals,
   * reaches `threshold`, as a tool that scores error text like any answer counts them. Unset: only
   * passing results count. They stay errors in every other count.
   */
  scoredErrorsPassAt?: { threshold: number; digits?: number };
}

/**
 * A metric computed from a prompt × provider column's named scores after each of its results
 * (promptfoo's `derivedMetrics`): `expression` (see core/expression.ts) over the column's named
 * score totals (each result's named score times its weight, summed), `__count` (results so far)
 * and the derived metrics listed before it.
 */
export interface DerivedMetricSpec {
  name: string;
  expression: string;
}

/** How a suite's results are summarised beyond pass/fail counts. Parameters, never format branches. */
export interface SuiteScoring {
  /** Case metadata keys to break results down by (e.g. `category`, `difficulty`), each with CIs. */
  breakdowns?: string[];
  weightedScore?: WeightedScoreSpec;
  /**
   * When a provider call fails, the job is an `error`; if this is set, the engine also scores this
   * text (`{error}` replaced by the message) against the case's assertions and records that score,
   * so a format whose own tool scores error text (ÈwéBench's `[ERROR] …`) reproduces its numbers.
   */
  scoreErrorsAs?: string;
  /**
   * When set, an answer with no text content (ProviderResponse.nonText: tool calls only, a refusal)
   * makes the job an error with this reason (`{what}` replaced by what the answer had), instead of
   * scoring the stand-in output: for formats whose own tool reads text only and stops on anything else.
   */
  textOnly?: string;
  /** Metrics derived per prompt × provider column from its named scores, in order. */
  derivedMetrics?: DerivedMetricSpec[];
}

/** A format's facts about a suite (Suite.native): JSON data of the format's own type, read through its view (core/view.ts). */
export type NativeFacts = object;

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
  /**
   * The cases, in memory. A streamed suite (see `stream`) builds this array only when it is read,
   * so code that must not hold every case iterates `suiteCases(suite)` instead.
   */
  cases: Case[];
  /**
   * A suite too large to hold (a million-row CSV) reads its cases again from its files on every
   * pass instead: `cases` is then built only if something reads it. See core/cases.ts.
   */
  stream?: CaseStream;
  scoring: SuiteScoring;
  /** Default grader for model-graded assertions; `{ id: SELF_GRADER }` means the provider under test. */
  grader?: ProviderSpec;
  /**
   * Why `grader` is the one it is, when the suite did not name it (promptfoo: chosen from the keys
   * in the environment): shown in the summary, the manifest and the reports.
   */
  graderReason?: string;
  /** With no grader: what would have chosen one (the refusal of a graded assertion says it). */
  graderHint?: string;
  /**
   * Format-specific facts recorded in the run manifest for native outputs (e.g. a suite version):
   * plain JSON data the format reads back only through its own checked view (core/view.ts).
   */
  native?: NativeFacts;
  /** Environment overrides declared by the suite (visible to templates and providers). */
  env?: Record<string, string>;
  /** Run settings the suite declares for itself; each command-line flag overrides its own. */
  runDefaults?: RunDefaults;
  /**
   * The output rule that makes the `output` assertions see from a provider's structured answer
   * (core/answer.ts: `default`, the answer's text; `promptfoo`, as promptfoo's provider for each API
   * builds it). A format parameter: the promptfoo format names `promptfoo`. Absent: `default`.
   */
  answerRule?: string;
  /** Warnings found while loading; the suite is still runnable. */
  warnings: Diagnostic[];
}

/**
 * Run settings a suite file declares (promptfoo's `evaluateOptions`, `commandLineOptions`,
 * `outputPath`). They are defaults: a command-line flag replaces the value it names.
 */
export interface RunDefaults {
  maxConcurrency?: number;
  repeat?: number;
  /** Milliseconds to wait after each provider call that was not a cache hit. */
  delayMs?: number;
  /** The wait when neither the provider nor the run sets one; unlike `delayMs` it keeps the concurrency. */
  fallbackDelayMs?: number;
  /** false: neither read nor fill the response cache. */
  cache?: boolean;
  /** A job that has not finished after this many milliseconds is an error. */
  jobTimeoutMs?: number;
  /** Past this many milliseconds from the start, jobs not yet finished are errors. */
  maxRunMs?: number;
  /** The grader provider id (as `--grader`). */
  grader?: string;
  /** Test filters (as the `--filter-*` flags). */
  filters?: SuiteFilters;
  /** Environment files to read when `--env-file` is not given (relative to the suite's folder). */
  envFiles?: string[];
  /** Results files to write when `-o` is not given: absolute paths, each with an output format name (default: from the extension). */
  outputs?: { path: string; format?: string }[];
  /** false: no progress line. */
  progress?: boolean;
  /**
   * A complete run passes when this percentage of its results pass (errors count against it);
   * below it the exit code is `failedExitCode`. Unset: assay's own exit codes.
   */
  passRatePercent?: number;
  /** The exit code of a complete run below `passRatePercent`. */
  failedExitCode?: number;
}

/** What the `--filter-*` flags ask for. Recorded in the run manifest: it decides what ran. */
export interface SuiteFilters {
  /** `key=value` conditions, all of which must hold; `value` may list alternatives `a,b` (`\,` is a comma). */
  metadata?: string[];
  /** Regular expression a case's description must match; cases without one are dropped. */
  pattern?: string;
  /** Keep the first N tests, counted as the suite wrote them (before list vars expanded them). */
  firstN?: number;
  /** Keep N tests drawn at random (with `seed`), counted like `firstN`. */
  sample?: number;
  /** Seed of the `sample` draw; the same seed draws the same tests from the same suite. */
  seed?: number;
  /** Regular expression a provider's id or label must match. */
  providers?: string;
  /** Regular expression a prompt's label or id must match. */
  prompts?: string;
  /** The earlier run (directory, or promptfoo results JSON) whose failed and errored tests to run again. */
  failing?: string;
  /** The earlier run whose assertion failures (not errors) to run again (`--filter-failing-only`). */
  failingOnly?: string;
  /** The earlier run whose errors to run again (`--filter-errors-only`). */
  errorsOnly?: string;
  /** Keep the tests at these zero-based positions, end excluded, counted like `firstN`. */
  range?: TestRange;
}

/** `--filter-range START:END`: zero-based, END excluded; an absent END runs to the last test. */
export interface TestRange {
  start: number;
  end?: number;
}

/** Provider id meaning "the provider under test" where a grader is expected (a model judging itself). */
export const SELF_GRADER = 'assay:self';

/** A unit of work: one case × prompt × provider × trial. */
export interface Job {
  key: string;
  caseId: string;
  caseIndex: number;
  promptId: string;
  providerId: string;
  trial: number;
  /**
   * Set when the case has cross-row assertions: the jobs of one case and trial share this key, are
   * judged together once all have finished, and always land in the same shard.
   */
  group?: string;
}

export interface TokenUsage {
  prompt?: number;
  completion?: number;
  total?: number;
}

export type JobStatus = 'pass' | 'fail' | 'error' | 'skip';

/**
 * What a job's graders cost: the model-graded assertions' calls, kept apart from the answer's own
 * `usage` and `cost` (promptfoo reports them apart too, as the assertions' token usage).
 */
export interface GradingUsage {
  /** Grader completions asked (cache hits included). */
  calls: number;
  /** Of `calls`, how many the response cache answered. */
  cached: number;
  prompt: number;
  completion: number;
  total: number;
  /** Tokens of the cached answers (included in `total`). */
  cachedTokens: number;
  cost: number;
}

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
  /** The scorer could not judge and says so (e.g. no embeddings available): left out of the case score. */
  skipped?: boolean;
  /** Scorer-specific facts (a matched term, a judge's raw reply) that native outputs reproduce. */
  details?: Record<string, unknown>;
  /** The weight behind each of `namedScores` (a group's metrics carry their children's weights). Default 1. */
  namedScoreWeights?: Record<string, number>;
  /** The verdicts of a group's assertions (AssertionSpec.children), in order. */
  children?: Verdict[];
  /** The assertion judged (without its source position; secrets redacted), for outputs that echo it. */
  assertion?: AssertionSpec;
}

/**
 * Everything recorded about one job. One line of results.jsonl (run-log version 2; older lines are
 * read into this shape by runlog/upgrade.ts).
 */
export interface JobResult {
  key: string;
  caseId: string;
  caseIndex: number;
  promptId: string;
  promptLabel: string;
  providerId: string;
  trial: number;
  /** The case the job ran, as outputs echo it (one object shared by the case's results in memory). */
  case: CaseEcho;
  startedAt: string;
  /** What was sent: the rendered prompt text and the messages. */
  prompt: { text: string; messages: Message[] };
  /** What the provider answered, how and at what cost. */
  answer: AnswerRecord;
  status: JobStatus;
  /** The final text scored by default: the last hole's completion (after output transforms). */
  output: string | null;
  /**
   * `json`: the output assertions saw was a value, not text (promptfoo's tool calls, a transform's
   * object), and `output` is its JSON; outputs that keep values (promptfoo's `response.output`)
   * parse it back. Absent: the output is text (run-log version 3).
   */
  outputType?: 'json';
  /** Which stage an error came from: `generation` (no usable answer) or `scoring` (an answer that could not be judged). */
  errorStage?: 'generation' | 'scoring';
  verdicts: Verdict[];
  score: number;
  /** Why the case failed or errored, in one line. */
  reason: string;
  error?: string;
  namedScores?: Record<string, number>;
  /** The total assertion weight behind each named score (absent: 1 each). */
  namedScoreWeights?: Record<string, number>;
  /** Tokens and cost of the grader calls its assertions made (absent when none was made). */
  grading?: GradingUsage;
}

/** A job's case as its results echo it. */
export interface CaseEcho {
  /** The case's stable identity (Case.ref), for pairing results across runs (absent in logs written before refs). */
  ref?: string;
  description?: string;
  vars: Record<string, unknown>;
  /** The case's `varsAsWritten`, when it has them (outputs that echo the test show these). */
  varsAsWritten?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** The case's pass threshold (CaseScoring.threshold), when it has one. */
  threshold?: number;
  /** The case's options (CasePreparation.options; source positions dropped, secrets redacted), when it has any. */
  options?: CaseOptions;
  /** Where the case is written in the suite's files (CaseProvenance.source, without the column). */
  source?: { file: string; line?: number };
  /**
   * The case's assertions (as Verdict.assertion records them), present only when the verdicts do
   * not list them all: the job errored before or while its assertions were scored.
   */
  asserts?: AssertionSpec[];
}

/** What a provider answered for a job, how, and at what cost. */
export interface AnswerRecord {
  /**
   * The model's answer before any output transform, when a transform changed it (re-scoring starts
   * from this, so a fixed transform applies to the recorded answer).
   */
  rawOutput?: string | null;
  /** Completions of the holes that have a `variable`, by variable (of the last run). */
  outputs?: Record<string, string>;
  /** Every conversation × repetition run, when the case has more than one run or hole. */
  runs?: ConversationRun[];
  latencyMs: number;
  /** Time to first token and tokens per second, for a streamed answer. */
  stream?: StreamTiming;
  usage?: TokenUsage;
  cost?: number;
  /**
   * The finish reason assertions saw: for a provider on the structured answer, the answer's
   * (normalised to promptfoo's vocabulary) as the suite's output rule shows it (a rule whose tool
   * reports none for an API hides it).
   */
  finishReason?: string;
  /**
   * The finish reason as the wire said it, when it differs from `finishReason` (Anthropic's
   * `end_turn`; one the rule hid) (run-log version 3).
   */
  finishReasonRaw?: string;
  /**
   * The wire dialect of the final answer (Answer.api), for a provider on the structured answer
   * (run-log version 3); absent for a plain-text answer, and in older logs.
   */
  api?: string;
  /**
   * The final answer's blocks (Answer.blocks), unless they are exactly one text block whose text
   * is the raw output (`rawOutput`, else `output`): that block is then implied, which keeps the
   * common line short (run-log version 3).
   */
  blocks?: AnswerBlock[];
  /** The final answer's free value (Answer.value), for APIs whose answer is a value (run-log version 3). */
  value?: unknown;
  cached?: boolean;
  /** Token log-probabilities of the answer, when the provider returned them. */
  logProbs?: number[];
  attempts?: number;
}

/**
 * How a streamed answer arrived: the time from sending the request to the first token of the
 * answer, and the tokens per second after it (completion tokens over the time from the first
 * token to the end). Set only for answers that were streamed (a provider's `stream: true`).
 */
export interface StreamTiming {
  firstTokenMs: number;
  tokensPerSecond?: number;
}

/** A problem in user input. */
export interface Diagnostic {
  file: string;
  line?: number;
  col?: number;
  message: string;
  severity: 'error' | 'warning';
}
