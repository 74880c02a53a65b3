/**
 * Hugging Face inference, as promptfoo 0.123.1 names and configures it:
 *
 * - `huggingface:chat:<model>` (or `hf:`): the OpenAI-compatible router,
 *   `POST {apiBaseUrl|apiEndpoint|https://router.huggingface.co/v1}/chat/completions`, bearer
 *   `config.apiKey`/`HF_TOKEN`/`HF_API_TOKEN`; `config.inferenceProvider` is appended to the model
 *   (`org/model:provider`) when the model names none; `max_new_tokens` stands for `max_tokens`;
 *   promptfoo's OpenAI defaults are sent (`max_tokens` 1024, `temperature` 0) unless `omitDefaults`.
 * - `huggingface:text-generation:<model>`: `POST {apiEndpoint|https://router.huggingface.co/hf-inference/models/<model>}`
 *   with `{inputs: <prompt>, parameters: {return_full_text: false, …}}` (the parameters promptfoo
 *   copies: top_k, top_p, temperature, repetition_penalty, max_new_tokens, max_time,
 *   return_full_text, num_return_sequences, do_sample, use_cache, wait_for_model), answering
 *   `[{generated_text}]`. With `config.chatCompletion: true`, or an `apiEndpoint` containing
 *   `/v1/chat`, it is the chat provider instead, as in promptfoo.
 *
 * promptfoo's other tasks (feature-extraction, sentence-similarity, text-classification,
 * token-classification) are refused with that reason.
 */
import type { ProviderSpec } from '../core/types.js';
import { cloudConfigError, namedCloudProvider } from './cloud-kit.js';
import { createHttpApiProvider, type Parsed } from './http-api.js';
import { type Config, isRecord, jsonReply, nonEmpty } from './http-kit.js';
import { excerpt } from './http-transport.js';
import { openAiApi } from './openai.js';
import type { Provider, ProviderContext } from './types.js';

const SERVICE = 'Hugging Face';
const INFERENCE_URL = 'https://router.huggingface.co/hf-inference';
const CHAT_URL = 'https://router.huggingface.co/v1';
const KEY_ENV = ['HF_TOKEN', 'HF_API_TOKEN'];
const TEXT_GENERATION_KEYS = [
  'top_k',
  'top_p',
  'temperature',
  'repetition_penalty',
  'max_new_tokens',
  'max_time',
  'return_full_text',
  'num_return_sequences',
  'do_sample',
  'use_cache',
  'wait_for_model',
] as const;

export function createHuggingFaceAttempts(
  spec: ProviderSpec,
  ctx: ProviderContext,
  now?: () => number,
): Provider {
  const parts = spec.id.split(':');
  const task = parts[1];
  const model = parts.slice(2).join(':');
  const config: Config = spec.config ?? {};
  if (task === 'chat') return chat(spec, ctx, now, model);
  if (task === 'text-generation') {
    const endpoint = nonEmpty(config.apiEndpoint);
    const chatFormat =
      typeof config.chatCompletion === 'boolean'
        ? config.chatCompletion
        : (endpoint?.includes('/v1/chat') ?? false);
    return chatFormat ? chat(spec, ctx, now, model) : textGeneration(spec, ctx, now, model);
  }
  throw cloudConfigError(
    spec,
    SERVICE,
    `"${spec.id}": huggingface:${task}: is not supported by assay (huggingface:chat:<model> and huggingface:text-generation:<model> are)`,
  );
}

function chat(
  spec: ProviderSpec,
  ctx: ProviderContext,
  now: (() => number) | undefined,
  name: string,
): Provider {
  const config: Config = spec.config ?? {};
  const provider = nonEmpty(config.inferenceProvider);
  const model = provider && !name.includes(':') ? `${name}:${provider}` : name;
  const base = (nonEmpty(config.apiBaseUrl) ?? nonEmpty(config.apiEndpoint))?.replace(
    /\/chat\/completions\/?$/,
    '',
  );
  // promptfoo's OpenAI chat defaults (max_tokens 1024, temperature 0, or OPENAI_MAX_TOKENS and
  // OPENAI_TEMPERATURE), unless `omitDefaults`; `max_new_tokens` stands for `max_tokens`.
  const env = ctx.env;
  const defaults: Record<string, unknown> = {};
  if (config.omitDefaults !== true || env.OPENAI_MAX_TOKENS !== undefined)
    defaults.max_tokens = Number.parseInt(env.OPENAI_MAX_TOKENS ?? '1024', 10);
  if (config.omitDefaults !== true || env.OPENAI_TEMPERATURE !== undefined)
    defaults.temperature = Number.parseFloat(env.OPENAI_TEMPERATURE ?? '0');
  const withTokens: ProviderSpec = {
    ...spec,
    config: {
      ...defaults,
      ...config,
      ...(config.max_new_tokens !== undefined && config.max_tokens === undefined
        ? { max_tokens: config.max_new_tokens }
        : {}),
    },
  };
  const inner = createHttpApiProvider(
    withTokens,
    ctx,
    now,
    openAiApi(withTokens, model, false, {
      service: SERVICE,
      idForm: 'huggingface:chat:<model>',
      baseUrl: { config: base ?? CHAT_URL, env: [], default: CHAT_URL },
      key: { env: KEY_ENV, send: { kind: 'bearer' } },
    }),
  );
  return namedCloudProvider(inner, { service: SERVICE, credentials: [] });
}

function textGeneration(
  spec: ProviderSpec,
  ctx: ProviderContext,
  now: (() => number) | undefined,
  model: string,
): Provider {
  const config: Config = spec.config ?? {};
  const url = nonEmpty(config.apiEndpoint) ?? `${INFERENCE_URL}/models/${model}`;
  const inner = createHttpApiProvider(spec, ctx, now, {
    service: SERVICE,
    model,
    idForm: 'huggingface:text-generation:<model>',
    baseUrl: { config: url, env: [], default: url },
    route: '',
    key: { env: KEY_ENV, send: { kind: 'bearer' } },
    headers: { accept: 'application/json' },
    paramKeys: TEXT_GENERATION_KEYS,
    body: (request, params) => ({
      inputs: request.prompt,
      parameters: { return_full_text: params.return_full_text ?? false, ...params },
    }),
    parse: (text, { redact }) => parseGenerated(text, redact),
  });
  return namedCloudProvider(inner, { service: SERVICE, credentials: [] });
}

/** `[{generated_text}]` (or one object); an `error` field is the service's refusal. */
function parseGenerated(text: string, redact: (s: string) => string): Parsed {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const data = reply.value;
  if (isRecord(data) && data.error !== undefined)
    return {
      output: null,
      error: redact(`API error: ${typeof data.error === 'string' ? data.error : JSON.stringify(data.error)}`),
    };
  const first = Array.isArray(data) ? data[0] : data;
  if (!isRecord(first) || typeof first.generated_text !== 'string')
    return { output: null, error: redact(`malformed response (no generated_text): ${excerpt(text)}`) };
  return { output: first.generated_text };
}
