/**
 * `openai:chat:<model>` / `openai:<model>`: chat completions on OpenAI or any OpenAI-compatible
 * server (vLLM, llama.cpp, LM Studio, Ollama's /v1, the test mock).
 * `openai:completion:<model>` (and `openai:<model>` for promptfoo's completion models, such as
 * `gpt-3.5-turbo-instruct`): the legacy completions API (`POST {base}/completions`, the prompt text).
 * `openai:embedding:<model>` / `openai:embeddings:<model>`: embeddings (`POST {base}/embeddings`),
 * as promptfoo names them; such a provider embeds texts but answers no chat.
 * Answers are structured (core/types.ts Answer: dialect `openai-chat` or `openai-completion`, or
 * the variant's own): text, reasoning, refusal and tool-call blocks, the finish reason in
 * promptfoo's vocabulary with the wire's beside it.
 */
import { toolCallBlock, withFinishReason } from '../core/answer.js';
import type { Answer, AnswerBlock, ProviderSpec } from '../core/types.js';
import { callPolicyFor, withCallPolicy } from './call-policy.js';
import { openAiBlocks, openAiMessages, REASONING_FIELDS, reasoningText } from './content-parts.js';
import { createHttpApiProvider, type HttpApi, type Parsed } from './http-api.js';
import {
  type Config,
  configError,
  configuredPricing,
  finite,
  isRecord,
  jsonReply,
  nonEmpty,
  type Pricing,
  usageOf,
} from './http-kit.js';
import { excerpt, type RetryOptions } from './http-transport.js';
import { parseEmbeddings } from './openai-embed.js';
import { costOf, priceFor } from './prices.js';
import type { Provider, ProviderContext } from './types.js';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Generation parameters sent to the API; anything else in a config is assay's own. */
const PARAM_KEYS = [
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'top_p',
  'seed',
  'stop',
  'response_format',
  'frequency_penalty',
  'presence_penalty',
  'tools',
  'tool_choice',
  'reasoning_effort',
  'logprobs',
  'top_logprobs',
  'logit_bias',
  'parallel_tool_calls',
  'user',
] as const;

/** Builds an OpenAI-compatible provider under the call policy; `hooks` lets tests observe retry waits. */
export function createOpenAiProvider(
  spec: ProviderSpec,
  ctx: ProviderContext,
  hooks: Omit<RetryOptions, 'connections'> = {},
): Provider {
  const { now, ...waits } = hooks;
  return withCallPolicy(createOpenAiAttempts(spec, ctx, now), callPolicyFor(spec, ctx, waits));
}

/**
 * The OpenAI-compatible provider making one attempt per call (the registry wraps it in the call
 * policy); `now` is the clock for Retry-After dates.
 */
export function createOpenAiAttempts(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  const embeddingModel = /^openai:embeddings?:/.test(spec.id);
  const kind = /^openai:(chat|completion|embeddings?):/.exec(spec.id)?.[1];
  const model = spec.id.replace(/^openai:/, '').replace(/^(?:chat|completion|embeddings?):/, '');
  const completion = kind === 'completion' || (kind === undefined && COMPLETION_MODELS.has(model));
  if (!completion) return createHttpApiProvider(spec, ctx, now, openAiApi(spec, model, embeddingModel));
  return createHttpApiProvider(
    spec,
    ctx,
    now,
    openAiApi(spec, model, false, {
      idForm: 'openai:completion:<model>',
      route: '/completions',
      completion: true,
      paramKeys: COMPLETION_PARAM_KEYS,
      defaults: completionDefaults(spec, ctx.env),
    }),
  );
}

/** The models promptfoo reads as completion models when the id names no kind (`openai:gpt-3.5-turbo-instruct`). */
const COMPLETION_MODELS = new Set([
  'gpt-3.5-turbo-instruct',
  'gpt-3.5-turbo-instruct-0914',
  'babbage-002',
  'davinci-002',
]);

/** The config fields promptfoo's completion provider sends (everything else only through `passthrough`). */
const COMPLETION_PARAM_KEYS = [
  'seed',
  'max_tokens',
  'temperature',
  'top_p',
  'presence_penalty',
  'frequency_penalty',
  'best_of',
] as const;

/**
 * What promptfoo's completion provider sends when the config says nothing, in its order: its
 * OPENAI_* variables, else `max_tokens` 1024, `temperature` 0, `top_p` 1, both penalties 0,
 * `best_of` 1, and the chat-template stops `<|im_end|>` and `<|endoftext|>` (OPENAI_STOP, JSON,
 * before the config's `stop`). The config's fields replace these in place.
 */
function completionDefaults(
  spec: ProviderSpec,
  env: Record<string, string | undefined>,
): Record<string, unknown> {
  const config: Config = spec.config ?? {};
  const number = (name: string, fallback: number, int: boolean): number => {
    const raw = env[name];
    const n =
      raw === undefined || raw.trim() === ''
        ? Number.NaN
        : int
          ? Number.parseInt(raw, 10)
          : Number.parseFloat(raw);
    return Number.isFinite(n) ? n : fallback;
  };
  let stop: unknown = ['<|im_end|>', '<|endoftext|>'];
  const stopVariable = nonEmpty(env.OPENAI_STOP);
  if (stopVariable !== undefined) {
    try {
      stop = JSON.parse(stopVariable);
    } catch {
      throw configError(spec, `${spec.id}: OPENAI_STOP is not valid JSON: ${stopVariable}`);
    }
  } else if (config.stop) stop = config.stop;
  return {
    seed: config.seed,
    max_tokens: number('OPENAI_MAX_TOKENS', 1024, true),
    temperature: number('OPENAI_TEMPERATURE', 0, false),
    top_p: number('OPENAI_TOP_P', 1, false),
    presence_penalty: number('OPENAI_PRESENCE_PENALTY', 0, false),
    frequency_penalty: number('OPENAI_FREQUENCY_PENALTY', 0, false),
    best_of: number('OPENAI_BEST_OF', 1, true),
    stop,
  };
}

/** How a service that speaks OpenAI's API differs from OpenAI: its name, places, and request fields. */
export interface OpenAiVariant
  extends Partial<
    Pick<
      HttpApi,
      | 'service'
      | 'idForm'
      | 'baseUrl'
      | 'key'
      | 'route'
      | 'headers'
      | 'describe'
      | 'bearerToken'
      | 'extraCredentials'
      | 'paramKeys'
      | 'refusals'
    >
  > {
  /** Request fields of its own, taken from the config (and the prompt's params) like OpenAI's. */
  extraParams?: readonly string[];
  /** Fields always sent unless the config gives them (Mistral's `max_tokens: 1024`). */
  defaults?: Record<string, unknown>;
  /** A last change to the body (Cerebras drops `max_tokens` when `max_completion_tokens` is set). */
  adjust?(body: Record<string, unknown>): void;
  /** The embeddings route after the base (default `/embeddings`). */
  embedRoute?: string;
  /** The legacy completions API: the prompt text is sent as `prompt`, not as messages. */
  completion?: boolean;
  /**
   * The dialect its answers are read as (Answer.api): default `openai-chat` (`openai-completion`
   * with `completion`); a service whose answers its tools read their own way names its own
   * (`azure-chat`, `mistral-chat`, `openrouter-chat`, `localai-chat`).
   */
  dialect?: string;
  /** The message fields its reasoning comes in (default `reasoning_content`, then `reasoning`; OpenRouter: `reasoning`). */
  reasoningFields?: readonly string[];
}

/**
 * OpenAI's chat-completions wire mapping, for any service that speaks it: OpenAI itself, and the
 * compatible services of presets.ts (which give their own name, base URL and key variables).
 */
export function openAiApi(
  spec: ProviderSpec,
  model: string,
  embeddingModel: boolean,
  variant: OpenAiVariant = {},
): HttpApi {
  const config: Config = spec.config ?? {};
  const {
    extraParams = [],
    defaults = {},
    adjust,
    embedRoute = '/embeddings',
    completion,
    paramKeys,
    dialect = completion ? 'openai-completion' : 'openai-chat',
    reasoningFields = REASONING_FIELDS,
    ...service
  } = variant;
  return {
    service: 'OpenAI',
    model,
    idForm: 'openai:chat:<model>',
    baseUrl: {
      config: configBaseUrl(config),
      env: ['OPENAI_BASE_URL', 'OPENAI_API_BASE_URL'],
      default: DEFAULT_BASE_URL,
    },
    route: '/chat/completions',
    key: {
      env: ['OPENAI_API_KEY'],
      send: { kind: 'bearer' },
      required: ['api.openai.com'],
      hint: 'or set OPENAI_BASE_URL to use a local OpenAI-compatible server',
    },
    ...service,
    paramKeys: paramKeys ?? (extraParams.length > 0 ? [...PARAM_KEYS, ...extraParams] : PARAM_KEYS),
    body: (request, params) => {
      const body = completion
        ? { model, prompt: request.prompt, ...defaults, ...params }
        : { model, messages: openAiMessages(request.messages), ...defaults, ...params };
      adjust?.(body);
      return body;
    },
    parse: (text, { pricing, redact }) => parseAnswer(text, dialect, reasoningFields, pricing, redact),
    stream: {
      // Usage comes in a last chunk only when asked for (`stream_options.include_usage`).
      body: (body) => ({ ...body, stream: true, stream_options: { include_usage: true } }),
      parse: (lines, { pricing, redact }) =>
        parseAnswerStream(lines, dialect, reasoningFields, pricing, redact),
    },
    pricing: (origin) => resolvePricing(config, model, origin),
    refuseCalls: embeddingModel
      ? `${spec.id} is an embeddings model: it cannot answer a chat (use ${service.idForm ?? 'openai:chat:<model>'} for that)`
      : undefined,
    embed: embeddingModel
      ? {
          route: embedRoute,
          body: (texts) => ({ model, input: texts }),
          parse: parseEmbeddings,
        }
      : undefined,
  };
}

/**
 * A chat or completions answer (its first choice) as the structured answer: the message's blocks
 * (content-parts.ts `openAiBlocks`), or a completion's text; the finish reason normalised, the
 * wire's kept; usage and cost.
 */
function parseAnswer(
  text: string,
  dialect: string,
  reasoningFields: readonly string[],
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Parsed {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const parsed = reply.value;
  const choices = isRecord(parsed) ? parsed.choices : undefined;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice)) {
    return { output: null, error: redact(`malformed response (no choices): ${excerpt(text)}`) };
  }
  let blocks: AnswerBlock[];
  if (isRecord(choice.message)) blocks = openAiBlocks(choice.message, reasoningFields);
  // A legacy completions answer (`/completions`): the text is the choice's own.
  else if (typeof choice.text === 'string') blocks = [{ type: 'text', text: choice.text }];
  else blocks = [];
  const answer = withFinishReason({ api: dialect, blocks }, choice.finish_reason);
  const usage = isRecord(parsed) && isRecord(parsed.usage) ? parsed.usage : {};
  const costed = usageOf(
    finite(usage.prompt_tokens),
    finite(usage.completion_tokens),
    finite(usage.total_tokens),
    pricing,
  );
  const response: Parsed = { answer };
  if (costed.usage) response.usage = costed.usage;
  if (costed.cost !== undefined) response.cost = costed.cost;
  return response;
}

/** A tool call being put together from a stream's fragments (by index). */
interface StreamedCall {
  id?: string;
  name: string;
  arguments: string;
}

/**
 * A streamed chat completion (server-sent events, `data: {chunk}` … `data: [DONE]`) as the
 * structured answer: reasoning, content and refusal deltas joined, tool-call fragments put
 * together by index, the finish reason, the usage of the last chunk, and when the first token
 * (reasoning, content or tool call) arrived.
 */
function parseAnswerStream(
  lines: { at: number; line: string }[],
  dialect: string,
  reasoningFields: readonly string[],
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Parsed & { firstTokenAt?: number } {
  let content: string | undefined;
  let reasoning = '';
  let refusal = '';
  let firstTokenAt: number | undefined;
  let finishReason: unknown;
  let usage: Record<string, unknown> = {};
  let events = 0;
  const calls: StreamedCall[] = [];
  for (const { at, line } of lines) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') break;
    const reply = jsonReply(data, redact, 'stream event');
    if ('error' in reply) return { output: null, error: reply.error };
    const event = reply.value;
    if (!isRecord(event)) continue;
    if (isRecord(event.error) || typeof event.error === 'string') {
      const e = event.error;
      return { output: null, error: redact(`stream error: ${isRecord(e) ? String(e.message) : e}`) };
    }
    events++;
    if (isRecord(event.usage)) usage = event.usage;
    const choice = Array.isArray(event.choices) && isRecord(event.choices[0]) ? event.choices[0] : undefined;
    if (!choice) continue;
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    const piece =
      typeof delta.content === 'string'
        ? delta.content
        : typeof choice.text === 'string'
          ? choice.text
          : undefined;
    if (piece !== undefined) {
      content = (content ?? '') + piece;
      if (piece !== '') firstTokenAt ??= at;
    }
    const thought = reasoningText(delta, reasoningFields) ?? '';
    if (thought !== '') {
      reasoning += thought;
      firstTokenAt ??= at;
    }
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      refusal += delta.refusal;
      firstTokenAt ??= at;
    }
    if (Array.isArray(delta.tool_calls)) {
      firstTokenAt ??= at;
      for (const call of delta.tool_calls) {
        if (!isRecord(call)) continue;
        const index = typeof call.index === 'number' ? call.index : calls.length;
        const fn = isRecord(call.function) ? call.function : {};
        calls[index] ??= { name: '', arguments: '' };
        const slot = calls[index];
        if (typeof call.id === 'string') slot.id = call.id;
        if (typeof fn.name === 'string') slot.name += fn.name;
        if (typeof fn.arguments === 'string') slot.arguments += fn.arguments;
      }
    }
  }
  if (events === 0)
    return {
      output: null,
      error: redact(`malformed response (no stream events): ${excerpt(lines.map((l) => l.line).join(' '))}`),
    };
  // The blocks in the order a whole message gives them (content-parts.ts openAiBlocks).
  const blocks: AnswerBlock[] = [];
  if (reasoning !== '') blocks.push({ type: 'reasoning', text: reasoning });
  // A stream whose deltas carried no text (only the first chunk's `content: ""`) is read as a whole
  // message without content (`content: null`): no text block.
  if (content !== undefined && content !== '') blocks.push({ type: 'text', text: content });
  if (refusal !== '') blocks.push({ type: 'refusal', text: refusal });
  for (const call of calls) if (call) blocks.push(toolCallBlock(call.id, call.name, call.arguments));
  const answer: Answer = withFinishReason({ api: dialect, blocks }, finishReason);
  const response: Parsed & { firstTokenAt?: number } = { answer };
  const costed = usageOf(
    finite(usage.prompt_tokens),
    finite(usage.completion_tokens),
    finite(usage.total_tokens),
    pricing,
  );
  if (costed.usage) response.usage = costed.usage;
  if (costed.cost !== undefined) response.cost = costed.cost;
  if (firstTokenAt !== undefined) response.firstTokenAt = firstTokenAt;
  return response;
}

/** The base URL a config gives: `apiBaseUrl`, else `apiHost` (a host name, or a URL) with `/v1`. */
function configBaseUrl(config: Config): string | undefined {
  const apiHost = nonEmpty(config.apiHost);
  const fromHost = apiHost
    ? /^https?:\/\//.test(apiHost)
      ? `${apiHost}/v1`
      : `https://${apiHost}/v1`
    : undefined;
  return nonEmpty(config.apiBaseUrl) ?? fromHost;
}

/**
 * Per-token prices for a provider: the config's, else OpenAI's list price — but only at OpenAI's
 * own endpoint, since a local server serving a model under the same name costs nothing per token.
 */
export function resolvePricing(
  config: Config,
  model: string,
  origin: string | undefined,
): Pricing | undefined {
  return configuredPricing(config) ?? (origin === 'https://api.openai.com' ? tablePricing(model) : undefined);
}

function tablePricing(model: string): Pricing | undefined {
  const price = priceFor(model);
  return price ? { input: costOf(price, 1, 0), output: costOf(price, 0, 1) } : undefined;
}
