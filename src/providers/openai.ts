/**
 * `openai:chat:<model>` / `openai:<model>`: chat completions on OpenAI or any OpenAI-compatible
 * server (vLLM, llama.cpp, LM Studio, Ollama's /v1, the test mock).
 * `openai:embedding:<model>` / `openai:embeddings:<model>`: embeddings (`POST {base}/embeddings`),
 * as promptfoo names them; such a provider embeds texts but answers no chat.
 */
import { performance } from 'node:perf_hooks';
import { InputError } from '../core/errors.js';
import type { Message, ProviderSpec, TokenUsage } from '../core/types.js';
import { callPolicyFor, withCallPolicy } from './call-policy.js';
import {
  attemptFailure,
  describeFailure,
  excerpt,
  type HttpAttempt,
  type HttpFailure,
  type HttpRequest,
  type RetryOptions,
  sendOnce,
} from './http-transport.js';
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

type Config = Record<string, unknown>;

interface Pricing {
  /** USD per prompt token. */
  input: number;
  /** USD per completion token. */
  output: number;
}

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
  // Where the key came from, for the message when it is refused: the user checks that place.
  const keySource = nonEmpty(config.apiKey)
    ? `the provider's config.apiKey${spec.source ? ` (${spec.source.file}${spec.source.line ? `:${spec.source.line}` : ''})` : ''}`
    : keyEnvar;
  const params = pickParams(config);
  const passthrough = isRecord(config.passthrough) ? config.passthrough : undefined;
  // More connections than -j: the limiter bounds healthy requests to -j, and the spare ones serve
  // while stalled (hung) requests, which give their limiter slot back, still hold theirs.
  const sendOptions = { now, connections: Math.max(1, ctx.maxConcurrency) * 2 + 4 };

  // The key, and any credential passed as an extra header, must never reach an error message.
  const secrets = [apiKey, ...credentialHeaderValues(config.headers)].filter(
    (s): s is string => typeof s === 'string' && s.length >= 4,
  );
  const redact = (text: string): string => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    return out;
  };

  // A malformed config is the user's mistake, knowable before anything runs: refuse it now (exit 2).
  // A missing key is not: validation must work without secrets, so it is reported when called.
  const invalid = (message: string): InputError =>
    new InputError({ ...(spec.source ?? { file: '' }), severity: 'error', message });
  if (!model) throw invalid(`provider id "${spec.id}" names no model (expected openai:chat:<model>)`);
  let endpoint: { origin: string; path: string };
  let embeddingsPath: string;
  try {
    const url = new URL(`${baseUrl}/chat/completions`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    endpoint = { origin: url.origin, path: url.pathname + url.search };
    const embeddingsUrl = new URL(`${baseUrl}/embeddings`);
    embeddingsPath = embeddingsUrl.pathname + embeddingsUrl.search;
  } catch {
    throw invalid(
      `invalid base URL "${redact(baseUrl)}" for ${spec.id}: expected http(s)://host[:port]/path`,
    );
  }
  const shownBaseUrl = withoutCredentials(baseUrl);
  let setupError: string | undefined;
  if (!apiKey && new URL(endpoint.origin).hostname === 'api.openai.com') {
    setupError = `no API key for ${shownBaseUrl}: set ${keyEnvar}, or set OPENAI_BASE_URL to use a local OpenAI-compatible server`;
  }

  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (isRecord(config.headers)) {
    for (const [name, value] of Object.entries(config.headers)) {
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
  }
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
  // The headers that shape the answer (not the credentials, which never reach the cache's keys).
  const keyedHeaders = Object.fromEntries(
    Object.entries(headers).filter(([name]) => name !== 'authorization' && !CREDENTIAL_HEADER.test(name)),
  );

  const provider: Provider = {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id, model, baseUrl: shownBaseUrl, params: { ...params } }),
    // One adaptive limiter per origin, shared by every provider that calls it.
    endpoint: { key: endpoint.origin, shown: shownBaseUrl },
    requestKey: (request) => ({
      url: `${withoutCredentials(endpoint.origin)}${endpoint.path}`,
      headers: keyedHeaders,
      body: chatBody(request),
    }),
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      const started = performance.now();
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
      const body = chatBody(request);
      const httpRequest: HttpRequest = {
        origin: endpoint.origin,
        path: endpoint.path,
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: request.signal,
      };
      const outcome = await sendOnce(httpRequest, sendOptions);
      const latencyMs = performance.now() - started;
      if (!outcome.ok) {
        return {
          output: null,
          ...describeAttempt(outcome),
          fatal: isAuthFailure(outcome) || isUnreachable(outcome),
          latencyMs,
        };
      }
      return { ...parseCompletion(outcome.body, pricing, redact), latencyMs };
    },
    async close(): Promise<void> {
      // Pools are shared per origin across providers; closeAllPools() releases them.
    },
  };
  if (embeddingModel) {
    provider.embed = async (request: EmbeddingRequest): Promise<EmbeddingResponse> => {
      if (setupError) return { error: setupError, latencyMs: 0 };
      const started = performance.now();
      const outcome = await sendOnce(
        {
          origin: endpoint.origin,
          path: embeddingsPath,
          method: 'POST',
          headers,
          body: JSON.stringify({ model, input: request.texts, ...passthrough }),
          signal: request.signal,
        },
        sendOptions,
      );
      const latencyMs = performance.now() - started;
      if (!outcome.ok) return { ...describeAttempt(outcome), latencyMs };
      return { ...parseEmbeddings(outcome.body, request.texts.length, redact), latencyMs };
    };
  }
  return provider;

  /** A failed attempt as the call policy reads it, with the error worded once the attempts are known. */
  function describeAttempt(attempt: Exclude<HttpAttempt, { ok: true }>) {
    const { retryAfterMs: _ignored, ...failure } = attempt;
    const explain = (attempts: number): string => redact(failureMessage({ ...failure, attempts }));
    return { error: explain(1), failure: { ...attemptFailure(attempt)!, explain } };
  }

  function failureMessage(f: HttpFailure): string {
    if (isAuthFailure(f)) {
      return `authentication failed (${f.status}) at ${shownBaseUrl}: ${f.message || 'no message'}; check ${keySource}`;
    }
    const text = describeFailure(f);
    return f.kind === 'network' || f.kind === 'timeout' ? `${text} (${shownBaseUrl})` : text;
  }
}

/**
 * Nothing listens at the endpoint, or its name does not resolve, even after every retry: every
 * other job would fail the same way, so the run stops instead of collecting identical errors.
 */
function isUnreachable(f: Pick<HttpFailure, 'kind' | 'code'>): boolean {
  return (
    f.kind === 'network' && (f.code === 'ECONNREFUSED' || f.code === 'ENOTFOUND' || f.code === 'EAI_AGAIN')
  );
}

function isAuthFailure(f: Pick<HttpFailure, 'kind' | 'status'>): boolean {
  return f.kind === 'http' && (f.status === 401 || f.status === 403);
}

function parseCompletion(
  text: string,
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { output: null, error: redact(`malformed response (not JSON): ${excerpt(text)}`) };
  }
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
  const usage = readUsage(isRecord(parsed) ? parsed.usage : undefined);
  if (usage) {
    response.usage = usage;
    if (pricing)
      response.cost = (usage.prompt ?? 0) * pricing.input + (usage.completion ?? 0) * pricing.output;
  }
  return response;
}

function readUsage(raw: unknown): TokenUsage | undefined {
  if (!isRecord(raw)) return undefined;
  const prompt = finite(raw.prompt_tokens);
  const completion = finite(raw.completion_tokens);
  const total =
    finite(raw.total_tokens) ??
    (prompt !== undefined || completion !== undefined ? (prompt ?? 0) + (completion ?? 0) : undefined);
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  return { prompt, completion, total };
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

/** Per-token prices from the config (promptfoo's `cost`, or `inputCost`/`outputCost`). */
function configuredPricing(config: Config): Pricing | undefined {
  const both = finite(config.cost);
  const input = finite(config.inputCost) ?? both;
  const output = finite(config.outputCost) ?? both;
  if (input === undefined && output === undefined) return undefined;
  return { input: input ?? 0, output: output ?? 0 };
}

function tablePricing(model: string): Pricing | undefined {
  const price = priceFor(model);
  return price ? { input: costOf(price, 1, 0), output: costOf(price, 0, 1) } : undefined;
}

/** Header names that carry credentials: kept out of error messages and cache keys. */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie/i;

function credentialHeaderValues(headers: unknown): string[] {
  if (!isRecord(headers)) return [];
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADER.test(name) || value === undefined || value === null) continue;
    const text = String(value);
    values.push(text);
    // `Bearer <token>`: the token alone may be echoed too.
    const token = /^\s*\S+\s+(\S{4,})\s*$/.exec(text)?.[1];
    if (token) values.push(token);
  }
  return values;
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url;
  }
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
