/**
 * `openai:chat:<model>` / `openai:<model>`: chat completions on OpenAI or any OpenAI-compatible
 * server (vLLM, llama.cpp, LM Studio, Ollama's /v1, the test mock).
 * `openai:embedding:<model>` / `openai:embeddings:<model>`: embeddings (`POST {base}/embeddings`),
 * as promptfoo names them; such a provider embeds texts but answers no chat.
 */
import type { Message, ProviderSpec } from '../core/types.js';
import { callPolicyFor, withCallPolicy } from './call-policy.js';
import { createHttpApiProvider, type HttpApi } from './http-api.js';
import {
  type Config,
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
import type { Provider, ProviderContext, ProviderResponse } from './types.js';

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
  const model = spec.id.replace(/^openai:/, '').replace(/^(?:chat|embeddings?):/, '');
  return createHttpApiProvider(spec, ctx, now, openAiApi(spec, model, embeddingModel));
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
    paramKeys: extraParams.length > 0 ? [...PARAM_KEYS, ...extraParams] : PARAM_KEYS,
    body: (request, params) => {
      const body = completion
        ? { model, prompt: request.prompt, ...defaults, ...params }
        : { model, messages: toWireMessages(request.messages), ...defaults, ...params };
      adjust?.(body);
      return body;
    },
    parse: (text, { pricing, redact }) => parseCompletion(text, pricing, redact),
    stream: {
      // Usage comes in a last chunk only when asked for (`stream_options.include_usage`).
      body: (body) => ({ ...body, stream: true, stream_options: { include_usage: true } }),
      parse: (lines, { pricing, redact }) => parseCompletionStream(lines, pricing, redact),
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

function parseCompletion(
  text: string,
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const parsed = reply.value;
  const choices = isRecord(parsed) ? parsed.choices : undefined;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice)) {
    return { output: null, error: redact(`malformed response (no choices): ${excerpt(text)}`) };
  }
  const message = isRecord(choice.message) ? choice.message : {};
  let output: string;
  let nonText: string | undefined;
  if (typeof message.content === 'string') output = message.content;
  // A legacy completions answer (`/completions`): the text is the choice's own.
  else if (!isRecord(choice.message) && typeof choice.text === 'string') output = choice.text;
  else if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    output = JSON.stringify(message.tool_calls);
    nonText = 'tool calls';
  } else if (typeof message.refusal === 'string') {
    output = message.refusal;
    nonText = 'a refusal';
  } else {
    output = '';
    nonText = 'nothing';
  }
  const response: Omit<ProviderResponse, 'latencyMs' | 'attempts'> = { output };
  if (nonText !== undefined) response.nonText = nonText;
  if (typeof choice.finish_reason === 'string') response.finishReason = choice.finish_reason;
  const usage = isRecord(parsed) && isRecord(parsed.usage) ? parsed.usage : {};
  return {
    ...response,
    ...usageOf(
      finite(usage.prompt_tokens),
      finite(usage.completion_tokens),
      finite(usage.total_tokens),
      pricing,
    ),
  };
}

/**
 * A streamed chat completion (server-sent events, `data: {chunk}` … `data: [DONE]`): the content
 * deltas joined, tool-call fragments put together by index, the finish reason, the usage of the
 * last chunk, and when the first token (content or tool call) arrived.
 */
function parseCompletionStream(
  lines: { at: number; line: string }[],
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> & { firstTokenAt?: number } {
  let content = '';
  let firstTokenAt: number | undefined;
  let finishReason: string | undefined;
  let usage: Record<string, unknown> = {};
  let events = 0;
  const tools: { id?: unknown; type?: unknown; function: { name: string; arguments: string } }[] = [];
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
      typeof delta.content === 'string' ? delta.content : typeof choice.text === 'string' ? choice.text : '';
    if (piece !== '') {
      content += piece;
      firstTokenAt ??= at;
    }
    if (Array.isArray(delta.tool_calls)) {
      firstTokenAt ??= at;
      for (const call of delta.tool_calls.filter(isRecord)) {
        const index = typeof call.index === 'number' ? call.index : tools.length;
        const fn = isRecord(call.function) ? call.function : {};
        tools[index] ??= { function: { name: '', arguments: '' } };
        const slot = tools[index];
        if (call.id !== undefined) slot.id = call.id;
        if (call.type !== undefined) slot.type = call.type;
        if (typeof fn.name === 'string') slot.function.name += fn.name;
        if (typeof fn.arguments === 'string') slot.function.arguments += fn.arguments;
      }
    }
  }
  if (events === 0)
    return {
      output: null,
      error: redact(`malformed response (no stream events): ${excerpt(lines.map((l) => l.line).join(' '))}`),
    };
  const response: Omit<ProviderResponse, 'latencyMs' | 'attempts'> & { firstTokenAt?: number } = {
    output: content,
  };
  if (content === '' && tools.length > 0) {
    response.output = JSON.stringify(tools.filter(Boolean));
    response.nonText = 'tool calls';
  } else if (content === '') response.nonText = 'nothing';
  if (finishReason !== undefined) response.finishReason = finishReason;
  if (firstTokenAt !== undefined) response.firstTokenAt = firstTokenAt;
  return {
    ...response,
    ...usageOf(
      finite(usage.prompt_tokens),
      finite(usage.completion_tokens),
      finite(usage.total_tokens),
      pricing,
    ),
  };
}

/** Chat API messages: the `variable` annotation is assay's, and a trailing hole is what the model fills. */
function toWireMessages(messages: Message[]): { role: string; content: Message['content'] }[] {
  let end = messages.length;
  while (end > 0 && messages[end - 1].role === 'assistant' && messages[end - 1].content === null) end--;
  const wire = new Array<{ role: string; content: Message['content'] }>(end);
  for (let i = 0; i < end; i++) wire[i] = { role: messages[i].role, content: messages[i].content };
  return wire;
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
