// promptfoo's output rule: what promptfoo 0.123.1's provider for each API makes of an answer (its
// `response.output` and `finishReason`), so a promptfoo suite's assertions judge what they judge
// under promptfoo. One reader per dialect (Answer.api), each following that provider's
// `callApi` in promptfoo's dist; a dialect without a reader is read as its text.
import {
  blockOf,
  type DerivedOutput,
  derived,
  type OutputRule,
  type OutputRuleContext,
  openAiToolCalls,
  textOf,
  toolCallsOf,
} from '../../core/answer.js';
import type { Answer, ToolCallBlock } from '../../core/types.js';

type Reader = (answer: Answer, ctx: OutputRuleContext) => DerivedOutput;

/** What promptfoo's OpenAI chat provider outputs for a refusal-free content filter with no text. */
export const CONTENT_FILTERED = 'Content filtered by provider';
/** What promptfoo's Azure completion provider outputs for a filtered answer with no text. */
export const AZURE_COMPLETION_FILTERED =
  "The generated content was filtered due to triggering Azure OpenAI Service's content filtering system.";

/**
 * The tool calls as the wire gave them: OpenAI's `tool_calls` list, or a legacy `function_call`
 * object (`{name, arguments}`) when the answer came that way.
 */
function wireCalls(calls: readonly ToolCallBlock[]): unknown {
  const legacy = calls.find((c) => c.form === 'function_call');
  if (legacy) return { name: legacy.name, arguments: legacy.arguments };
  return openAiToolCalls(calls);
}

/** The message promptfoo outputs whole when an answer has both text and tool calls (OpenAI's shape, rebuilt from the blocks). */
function wireMessage(text: string, calls: readonly ToolCallBlock[]): Record<string, unknown> {
  const legacy = calls.find((c) => c.form === 'function_call');
  return legacy
    ? { role: 'assistant', content: text, function_call: { name: legacy.name, arguments: legacy.arguments } }
    : { role: 'assistant', content: text, tool_calls: openAiToolCalls(calls) };
}

/** The response format in force: the job's (prompt config) over the provider's, as promptfoo merges them. */
function responseFormatType(ctx: OutputRuleContext): unknown {
  const format = ctx.params.response_format ?? ctx.config.response_format;
  return typeof format === 'object' && format !== null ? (format as { type?: unknown }).type : undefined;
}

/** JSON text parsed, or the text itself when it does not parse (promptfoo logs and keeps it). */
function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Whether the provider shows the model's reasoning before its answer (promptfoo's `showThinking`, default true). */
function showsThinking(ctx: OutputRuleContext): boolean {
  return ctx.config.showThinking !== false;
}

/** The answer's text, finish reason as it is: echo, a plain-text answer, a dialect with no reader. */
const plain: Reader = (answer) => {
  const blocks = answer.blocks;
  if (blocks.length === 1 && blocks[0].type === 'text')
    return { output: blocks[0].text, value: blocks[0].text, finishReason: answer.finishReason };
  return derived(textOf(answer), answer.finishReason);
};

/**
 * OpenAI chat completions (OpenAiChatCompletionProvider, and the presets built on it: Groq, xAI,
 * DeepSeek, Perplexity, Together AI, Fireworks, Cerebras): a refusal is its text; a content filter
 * with no text is "Content filtered by provider"; text with tool calls is the whole message; tool
 * calls alone (no text, or `""`) are the `tool_calls` list; a `response_format` of type
 * `json_schema` parses the text; reasoning (`reasoning_content`) comes before the text as
 * `Thinking: …` unless `showThinking: false`.
 */
const openAiChat: Reader = (answer, ctx) => {
  const finishReason = answer.finishReason;
  const blocks = answer.blocks;
  if (blocks.length === 1 && blocks[0].type === 'text' && finishReason !== 'content_filter') {
    const text = blocks[0].text;
    if (responseFormatType(ctx) !== 'json_schema') return { output: text, value: text, finishReason };
    return derived(parsedOr(text), finishReason);
  }
  const refusal = blockOf(answer, 'refusal');
  if (refusal) return derived(refusal.text, finishReason);
  const text = textOf(answer);
  if (finishReason === 'content_filter') return derived(text || CONTENT_FILTERED, finishReason);
  const calls = toolCallsOf(answer);
  let value: unknown;
  if (text && calls.length > 0) value = wireMessage(text, calls);
  else if (text === undefined || (text === '' && calls.length > 0))
    value = calls.length > 0 ? wireCalls(calls) : undefined;
  else value = text;
  if (responseFormatType(ctx) === 'json_schema' && typeof value === 'string') value = parsedOr(value);
  const reasoning = blockOf(answer, 'reasoning');
  if (reasoning && typeof value === 'string' && showsThinking(ctx))
    value = `Thinking: ${reasoning.text}\n\n${value}`;
  return derived(value, finishReason);
};

/**
 * OpenAI's legacy completions (OpenAiCompletionProvider): the choice's text; promptfoo records no
 * finish reason for it.
 */
const openAiCompletion: Reader = (answer) => derived(textOf(answer), undefined);

/**
 * Azure OpenAI chat (AzureChatCompletionProvider): the filter's HTTP 400 is its message with
 * finish reason `content_filter`; otherwise the text, else the tool calls (or function call), else
 * nothing; a `response_format` of `json_schema` or `json_object` parses the text. A refusal field
 * is not read, and text beside tool calls is the text alone.
 */
const azureChat: Reader = (answer, ctx) => {
  const refusal = blockOf(answer, 'refusal');
  if (refusal?.by === 'filter') return derived(refusal.text, answer.finishReason);
  const text = textOf(answer);
  if (text === undefined) {
    const calls = toolCallsOf(answer);
    return derived(calls.length > 0 ? wireCalls(calls) : undefined, answer.finishReason);
  }
  const format = responseFormatType(ctx);
  if (format === 'json_schema' || format === 'json_object')
    return derived(parsedOr(text), answer.finishReason);
  return { output: text, value: text, finishReason: answer.finishReason };
};

/**
 * Azure OpenAI completions (AzureCompletionProvider): the filter's HTTP 400 is its message (and no
 * finish reason); otherwise the text, else Azure's filtered-content sentence when the finish
 * reason is `content_filter`, else `''`.
 */
const azureCompletion: Reader = (answer) => {
  const refusal = blockOf(answer, 'refusal');
  // (This answer of promptfoo's carries no token usage either.)
  if (refusal?.by === 'filter') return withoutUsage(derived(refusal.text, undefined));
  const text = textOf(answer);
  if (text !== undefined) return derived(text, answer.finishReason);
  return derived(
    answer.finishReason === 'content_filter' ? AZURE_COMPLETION_FILTERED : '',
    answer.finishReason,
  );
};

/**
 * Mistral (MistralChatCompletionProvider): text with tool calls is the message, tool calls alone
 * the list, else the text (its thinking chunks left out); promptfoo records no finish reason.
 */
const mistralChat: Reader = (answer) => {
  const text = textOf(answer);
  const calls = toolCallsOf(answer);
  if (text && calls.length > 0) return derived(wireMessage(text, calls), undefined);
  if (calls.length > 0) return derived(openAiToolCalls(calls), undefined);
  return derived(text, undefined);
};

/**
 * OpenRouter (OpenRouterProvider): tool calls win over text; text that is not blank is the
 * output, after `Thinking: …` when the answer has reasoning (unless `showThinking: false`); with no
 * such text, the reasoning itself, else `''`; a `json_schema` response format parses the text.
 */
const openRouterChat: Reader = (answer, ctx) => {
  const calls = toolCallsOf(answer);
  const text = textOf(answer);
  const reasoning = blockOf(answer, 'reasoning');
  let value: unknown = '';
  if (calls.length > 0) value = wireCalls(calls);
  else if (text?.trim()) {
    value = reasoning && showsThinking(ctx) ? `Thinking: ${reasoning.text}\n\n${text}` : text;
  } else if (reasoning && showsThinking(ctx)) value = reasoning.text;
  if (responseFormatType(ctx) === 'json_schema') {
    const candidate = typeof text === 'string' ? text : typeof value === 'string' ? value : null;
    if (candidate) {
      const parsed = parsedOr(candidate);
      if (parsed !== candidate) value = parsed;
    }
  }
  return derived(value, answer.finishReason);
};

/** LocalAI (LocalAiChatProvider): the message's content; promptfoo records no finish reason and no token usage. */
const localAiChat: Reader = (answer) => withoutUsage(derived(textOf(answer), undefined));

/** A derived output whose tool records no token usage for it. */
function withoutUsage(out: DerivedOutput): DerivedOutput {
  out.reportsUsage = false;
  return out;
}

const READERS: Readonly<Record<string, Reader>> = {
  'openai-chat': openAiChat,
  'openai-completion': openAiCompletion,
  'azure-chat': azureChat,
  'azure-completion': azureCompletion,
  'mistral-chat': mistralChat,
  'openrouter-chat': openRouterChat,
  'localai-chat': localAiChat,
};

/** promptfoo's output rule (Suite.answerRule `promptfoo`, registered by the format). */
export const PROMPTFOO_RULE: OutputRule = {
  name: 'promptfoo',
  derive(answer, ctx) {
    if (answer.value !== undefined) return derived(answer.value, answer.finishReason);
    return (READERS[answer.api] ?? plain)(answer, ctx);
  },
};
