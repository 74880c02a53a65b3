/**
 * `openai:chat:<model>` / `openai:<model>`: chat completions on OpenAI or any OpenAI-compatible
 * server (vLLM, llama.cpp, LM Studio, Ollama's /v1, the test mock).
 * `openai:embedding:<model>` / `openai:embeddings:<model>`: embeddings (`POST {base}/embeddings`),
 * as promptfoo names them; such a provider embeds texts but answers no chat.
 */
import type { Message, ProviderSpec } from '../core/types.js';
import { callPolicyFor, withCallPolicy } from './call-policy.js';
import {
  attemptDescriber,
  type Config,
  configError,
  configHeaders,
  configuredPricing,
  credentialHeaderValues,
  endpointAt,
  finite,
  isRecord,
  jsonReply,
  keyedHeaders,
  keySourceOf,
  nonEmpty,
  type Pricing,
  poolSize,
  postJson,
  redactor,
  routePath,
  usageOf,
} from './http-kit.js';
import { excerpt, type RetryOptions } from './http-transport.js';
import { parseEmbeddings } from './openai-embed.js';
import { costOf, priceFor } from './prices.js';
import type {
  EmbeddingRequest,
  EmbeddingResponse,
  Provider,
  ProviderContext,
  ProviderRequest,
  ProviderResponse,
} from './types.js';

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
  const config: Config = spec.config ?? {};
  const embeddingModel = /^openai:embeddings?:/.exec(spec.id);
  const model = spec.id.replace(/^openai:/, '').replace(/^(?:chat|embeddings?):/, '');
  const baseUrl = resolveBaseUrl(config, ctx.env);
  const keyEnvar = nonEmpty(config.apiKeyEnvar) ?? 'OPENAI_API_KEY';
  const apiKey =
    nonEmpty(config.apiKey) ??
    (typeof config.apiKeyEnvar === 'string' ? nonEmpty(ctx.env[config.apiKeyEnvar]) : undefined) ??
    nonEmpty(ctx.env.OPENAI_API_KEY);
  const keySource = keySourceOf(spec, nonEmpty(config.apiKey) !== undefined, keyEnvar);
  const params = pickParams(config);
  const passthrough = isRecord(config.passthrough) ? config.passthrough : undefined;
  const sendOptions = { now, connections: poolSize(ctx.maxConcurrency) };

  // The key, and any credential passed as an extra header, must never reach an error message.
  const redact = redactor([apiKey, ...credentialHeaderValues(config.headers)]);

  // A malformed config is the user's mistake, knowable before anything runs: refuse it now (exit 2).
  // A missing key is not: validation must work without secrets, so it is reported when called.
  if (!model)
    throw configError(spec, `provider id "${spec.id}" names no model (expected openai:chat:<model>)`);
  const endpoint = endpointAt(spec, baseUrl, '/chat/completions', redact);
  const embeddingsPath = routePath(baseUrl, '/embeddings');
  const shownBaseUrl = endpoint.shown;
  let setupError: string | undefined;
  if (!apiKey && new URL(endpoint.origin).hostname === 'api.openai.com') {
    setupError = `no API key for ${shownBaseUrl}: set ${keyEnvar}, or set OPENAI_BASE_URL to use a local OpenAI-compatible server`;
  }

  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  Object.assign(headers, configHeaders(config));
  const pricing = resolvePricing(config, model, endpoint.origin);

  /** The body of a chat request, exactly as sent. */
  const chatBody = (request: ProviderRequest): Record<string, unknown> => {
    const body: Record<string, unknown> = { model, messages: toWireMessages(request.messages), ...params };
    for (const key of PARAM_KEYS) {
      const value = request.params[key];
      if (value !== undefined) body[key] = value;
    }
    if (passthrough) Object.assign(body, passthrough);
    return body;
  };
  const describeAttempt = attemptDescriber(shownBaseUrl, keySource, redact);

  const provider: Provider = {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id, model, baseUrl: shownBaseUrl, params: { ...params } }),
    // One adaptive limiter per origin, shared by every provider that calls it.
    endpoint: { key: endpoint.origin, shown: shownBaseUrl },
    requestKey: (request) => ({
      url: `${endpoint.origin}${endpoint.path}`,
      headers: keyedHeaders(headers),
      body: chatBody(request),
    }),
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      if (embeddingModel) {
        return {
          output: null,
          error: `${spec.id} is an embeddings model: it cannot answer a chat (use openai:chat:<model> for that)`,
          latencyMs: 0,
          attempts: 0,
        };
      }
      if (setupError) {
        return {
          output: null,
          error: setupError,
          fatal: true,
          latencyMs: 0,
          attempts: 0,
        };
      }
      const sent = await postJson(
        endpoint,
        headers,
        chatBody(request),
        request.signal,
        sendOptions,
        describeAttempt,
      );
      if ('failed' in sent) return { output: null, ...sent.failed, fatal: sent.fatal };
      return { ...parseCompletion(sent.text, pricing, redact), latencyMs: sent.latencyMs };
    },
    async close(): Promise<void> {
      // Pools are shared per origin across providers; closeAllPools() releases them.
    },
  };
  if (embeddingModel) {
    provider.embed = async (request: EmbeddingRequest): Promise<EmbeddingResponse> => {
      if (setupError) return { error: setupError, latencyMs: 0 };
      const target = { origin: endpoint.origin, path: embeddingsPath };
      const body = { model, input: request.texts, ...passthrough };
      const sent = await postJson(target, headers, body, request.signal, sendOptions, describeAttempt);
      if ('failed' in sent) return sent.failed;
      return { ...parseEmbeddings(sent.text, request.texts.length, redact), latencyMs: sent.latencyMs };
    };
  }
  return provider;
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

/** Chat API messages: the `variable` annotation is assay's, and a trailing hole is what the model fills. */
function toWireMessages(messages: Message[]): { role: string; content: Message['content'] }[] {
  let end = messages.length;
  while (end > 0 && messages[end - 1].role === 'assistant' && messages[end - 1].content === null) end--;
  const wire = new Array<{ role: string; content: Message['content'] }>(end);
  for (let i = 0; i < end; i++) wire[i] = { role: messages[i].role, content: messages[i].content };
  return wire;
}

function resolveBaseUrl(config: Config, env: Record<string, string | undefined>): string {
  const apiHost = nonEmpty(config.apiHost);
  const fromHost = apiHost
    ? /^https?:\/\//.test(apiHost)
      ? `${apiHost}/v1`
      : `https://${apiHost}/v1`
    : undefined;
  const base =
    nonEmpty(config.apiBaseUrl) ??
    fromHost ??
    nonEmpty(env.OPENAI_BASE_URL) ??
    nonEmpty(env.OPENAI_API_BASE_URL) ??
    DEFAULT_BASE_URL;
  return base.replace(/\/+$/, '');
}

function pickParams(config: Config): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of PARAM_KEYS) if (config[key] !== undefined) params[key] = config[key];
  return params;
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
