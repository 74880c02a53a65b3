// A model's answer as it came (core/types.ts Answer: content blocks, the wire dialect, the finish
// reason) and the output rules that derive from it what assertions see. A provider returns the
// structure; the suite's rule (Suite.answerRule) makes the `output` string and value, so scorers
// and a format's parity with its own tool rest on one rule. See docs/architecture.md, "The
// structured answer".
import type { Answer, AnswerBlock, AnswerRecord, ToolCallBlock } from './types.js';

/**
 * promptfoo's finish-reason vocabulary (its util/finishReason.ts, 0.123.1): each provider's own
 * stop reasons folded onto OpenAI's names. Anything else passes through, lower-cased.
 */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'pause_turn',
};

/**
 * A wire's finish reason in promptfoo's vocabulary (`end_turn` → `stop`, `max_tokens` → `length`,
 * `tool_use` → `tool_calls`, `refusal` → `content_filter`; others trimmed and lower-cased), or
 * undefined when there is none (not a string, or blank).
 */
export function normalizeFinishReason(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const key = raw.trim().toLowerCase();
  if (key === '') return undefined;
  return FINISH_REASONS[key] ?? key;
}

/**
 * Sets an answer's finish reason from the wire's: normalised, and the raw value kept beside it
 * when it differs. Returns the answer.
 */
export function withFinishReason(answer: Answer, raw: unknown): Answer {
  const normal = normalizeFinishReason(raw);
  if (normal !== undefined) {
    answer.finishReason = normal;
    if (raw !== normal) answer.finishReasonRaw = raw as string;
  }
  return answer;
}

/** An answer that is one text block (echo, a completion): built as one literal shape. */
export function textAnswer(api: string, text: string): Answer {
  return { api, blocks: [{ type: 'text', text }] };
}

/** A tool call block from the wire's name and argument text (`input` set when the text parses). */
export function toolCallBlock(id: string | undefined, name: string, args: string): ToolCallBlock {
  const block: ToolCallBlock = { type: 'tool_call', name, arguments: args };
  if (id !== undefined) block.id = id;
  try {
    block.input = JSON.parse(args);
  } catch {
    // Not JSON: the model's text stands as written.
  }
  return block;
}

/**
 * The compatibility path, for a provider not yet on the structured answer: its plain `output`
 * read as one text block (api `compat`), its finish reason as it gave it. Each provider moved onto
 * the structure leaves this path (docs/architecture.md lists those still on it).
 */
export function compatAnswer(output: string, finishReason: string | undefined): Answer {
  const answer: Answer = { api: COMPAT_API, blocks: [{ type: 'text', text: output }] };
  if (finishReason !== undefined) answer.finishReason = finishReason;
  return answer;
}

/** The dialect of a compatibility-path answer (a provider still returning plain text). */
export const COMPAT_API = 'compat';

/** Whether an answer is exactly one text block holding `text` (the run log then leaves its blocks implied). */
export function isPlainText(answer: Answer, text: string | null | undefined): boolean {
  const blocks = answer.blocks;
  return (
    answer.value === undefined &&
    blocks.length === 1 &&
    blocks[0].type === 'text' &&
    (blocks[0] as { text: string }).text === text
  );
}

/** The text blocks joined, or undefined when the answer has no text block at all. */
export function textOf(answer: Answer): string | undefined {
  let text: string | undefined;
  for (const b of answer.blocks) if (b.type === 'text') text = text === undefined ? b.text : text + b.text;
  return text;
}

/** The answer's tool calls, in order. */
export function toolCallsOf(answer: Answer): ToolCallBlock[] {
  const calls: ToolCallBlock[] = [];
  for (const b of answer.blocks) if (b.type === 'tool_call') calls.push(b);
  return calls;
}

/** The first block of a type, if any. */
export function blockOf<T extends AnswerBlock['type']>(
  answer: Answer,
  type: T,
): Extract<AnswerBlock, { type: T }> | undefined {
  for (const b of answer.blocks) if (b.type === type) return b as Extract<AnswerBlock, { type: T }>;
  return undefined;
}

/** Tool calls in OpenAI's wire shape (`{id, type: 'function', function: {name, arguments}}`). */
export function openAiToolCalls(calls: readonly ToolCallBlock[]): Record<string, unknown>[] {
  return calls.map((c) => {
    const fn = { name: c.name, arguments: c.arguments };
    return c.id !== undefined
      ? { id: c.id, type: 'function', function: fn }
      : { type: 'function', function: fn };
  });
}

/**
 * What an answer has instead of text, when it has no text block: `tool calls`, `a refusal` or
 * `nothing` (SuiteScoring.textOnly names it); undefined when it has text (or a value).
 */
export function nonTextOf(answer: Answer): string | undefined {
  if (answer.value !== undefined) return answer.value === null ? 'nothing' : undefined;
  let calls = false;
  let refusal = false;
  for (const b of answer.blocks) {
    if (b.type === 'text') return undefined;
    if (b.type === 'tool_call') calls = true;
    else if (b.type === 'refusal') refusal = true;
  }
  return calls ? 'tool calls' : refusal ? 'a refusal' : 'nothing';
}

/** Whether an answer holds nothing at all: no block and no value (likely a passing fault, never cached). */
export function isEmptyAnswer(answer: Answer): boolean {
  return answer.value === undefined && (answer.blocks.length === 0 || nonTextOf(answer) === 'nothing');
}

/** What an output rule makes of an answer: what assertions see. */
export interface DerivedOutput {
  /** The output as text: `value` itself when it is a string, else its JSON; null when there is none. */
  output: string | null;
  /** The output as a value (`outputValue`: an object for tool calls under promptfoo's rule). */
  value: unknown;
  /** The finish reason assertions see: the answer's, unless the rule's tool reports none for this API. */
  finishReason: string | undefined;
  /**
   * False when the rule's tool records no token usage for this answer at all (promptfoo's LocalAI
   * provider): outputs in the tool's shape then show none. Absent: usage as the answer has it.
   */
  reportsUsage?: false;
}

/** What a rule may read besides the answer: the provider's config and the job's parameters (prompt config, case params). */
export interface OutputRuleContext {
  config: Record<string, unknown>;
  params: Record<string, unknown>;
}

/**
 * How a format's tool turns an answer into the output its assertions judge. `derive` is pure and
 * cheap (it runs for every answer, and again on `assay rescore`), never throws, and gives an
 * answer that is one text block (a plain answer) that text.
 */
export interface OutputRule {
  name: string;
  derive(answer: Answer, ctx: OutputRuleContext): DerivedOutput;
}

/** The output a value stands for (a string as is, anything else as JSON; undefined and null: none). */
export function derived(value: unknown, finishReason: string | undefined): DerivedOutput {
  const output =
    value === undefined || value === null
      ? null
      : typeof value === 'string'
        ? value
        : (JSON.stringify(value) ?? null);
  return { output, value: value === undefined ? null : value, finishReason };
}

/**
 * assay's own reading (the `default` rule, for formats whose tools take the message text:
 * pramana, apastra, ÈwéBench and LVE read `choices[0].message.content`, Anthropic's first text):
 * the text blocks joined; an answer with no text block is its tool calls as OpenAI's JSON, else
 * its refusal's text, else `''`. A free value is the output as it is.
 */
export const DEFAULT_RULE: OutputRule = {
  name: 'default',
  derive(answer) {
    if (answer.value !== undefined) return derived(answer.value, answer.finishReason);
    const blocks = answer.blocks;
    // The common answer, one text block: no search, no join.
    if (blocks.length === 1 && blocks[0].type === 'text')
      return { output: blocks[0].text, value: blocks[0].text, finishReason: answer.finishReason };
    const text = textOf(answer);
    if (text !== undefined) return { output: text, value: text, finishReason: answer.finishReason };
    const calls = toolCallsOf(answer);
    if (calls.length > 0) {
      const json = JSON.stringify(openAiToolCalls(calls));
      return { output: json, value: json, finishReason: answer.finishReason };
    }
    const refusal = blockOf(answer, 'refusal')?.text ?? '';
    return { output: refusal, value: refusal, finishReason: answer.finishReason };
  },
};

type RuleLoader = () => OutputRule | Promise<OutputRule>;
const rules = new Map<string, RuleLoader>([['default', () => DEFAULT_RULE]]);

/**
 * Adds an output rule under a name a suite can give (Suite.answerRule). `load` is called once,
 * before a run that needs it (so the rule's module can load on demand). A name registered twice
 * takes the later rule.
 */
export function registerOutputRule(name: string, load: RuleLoader): void {
  rules.set(name, load);
}

/** The names of the registered output rules. */
export function outputRuleNames(): string[] {
  return [...rules.keys()];
}

/** The rule of a name (`default` when none is given); throws naming the known ones when it is unknown. */
export async function outputRule(name: string | undefined): Promise<OutputRule> {
  const load = rules.get(name ?? 'default');
  if (!load) throw new Error(`unknown output rule "${name}" (known: ${outputRuleNames().join(', ')})`);
  return load();
}

/**
 * The text of a reply that is read as text whatever the suite (a grader's verdict): a structured
 * answer by the `default` rule, a plain-text one as it is; null when there is none.
 */
export function replyText(reply: { answer?: Answer; output?: string | null }): string | null {
  if (reply.answer !== undefined) return DEFAULT_RULE.derive(reply.answer, NO_CONTEXT).output;
  return reply.output ?? null;
}

const NO_CONTEXT: OutputRuleContext = { config: {}, params: {} };

/**
 * The structured answer a result recorded (run-log version 3: `api`, with `blocks` unless they are
 * one text block holding the raw output `output`), or undefined for a plain-text answer and for
 * logs older than version 3.
 */
export function recordedAnswer(record: AnswerRecord, output: string | null): Answer | undefined {
  if (record.api === undefined) return undefined;
  const answer: Answer = {
    api: record.api,
    blocks: record.blocks ?? (output !== null ? [{ type: 'text', text: output }] : []),
  };
  if (record.value !== undefined) answer.value = record.value;
  // The record keeps the reason assertions saw, and the wire's beside it when they differ.
  withFinishReason(answer, record.finishReasonRaw ?? record.finishReason);
  return answer;
}
