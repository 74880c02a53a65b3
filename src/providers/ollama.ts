/**
 * Ollama's native API, as promptfoo names it: `ollama:chat:<model>` (`POST /api/chat`),
 * `ollama:completion:<model>` and `ollama:<model>` (`POST /api/generate`, the prompt text), and
 * `ollama:embeddings:<model>` (`POST /api/embed`). Base URL: `apiBaseUrl`, else `OLLAMA_BASE_URL`,
 * else http://localhost:11434. Generation options go in Ollama's nested `options` object; the
 * API's own top-level fields (`format`, `think`, `keep_alive`, `tools`, …) stay at the top, and
 * `passthrough` is merged in last (its `options` merged into the computed ones).
 */
import type { ProviderSpec } from '../core/types.js';
import { ollamaMessages } from './content-parts.js';
import { createHttpApiProvider } from './http-api.js';
import { type Config, finite, isRecord, jsonReply, type Pricing, usageOf } from './http-kit.js';
import { excerpt } from './http-transport.js';
import type { EmbeddingResponse, Provider, ProviderContext, ProviderResponse } from './types.js';

const DEFAULT_BASE_URL = 'http://localhost:11434';

/** Keys that go in the nested `options` object (Ollama's model parameters). */
const OPTION_KEYS = new Set([
  'num_predict',
  'num_keep',
  'seed',
  'top_k',
  'top_p',
  'min_p',
  'typical_p',
  'repeat_last_n',
  'temperature',
  'repeat_penalty',
  'presence_penalty',
  'frequency_penalty',
  'stop',
  'num_ctx',
  'num_batch',
  'num_gpu',
  'main_gpu',
  'use_mmap',
  'num_thread',
]);

/** Top-level request fields each route accepts. */
const TOP_LEVEL = {
  chat: ['think', 'keep_alive', 'format', 'tools'],
  generate: ['think', 'keep_alive', 'format', 'suffix', 'system', 'template', 'raw'],
  embed: ['keep_alive', 'truncate', 'dimensions'],
} as const;

type Route = keyof typeof TOP_LEVEL;

/** The Ollama provider making one attempt per call (the registry wraps it in the call policy). */
export function createOllamaAttempts(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  const config: Config = spec.config ?? {};
  const kind = /^ollama:(chat|completion|embeddings?):/.exec(spec.id)?.[1];
  const route: Route = kind === 'chat' ? 'chat' : kind?.startsWith('embedding') ? 'embed' : 'generate';
  const model = spec.id.replace(/^ollama:(?:(?:chat|completion|embeddings?):)?/, '');

  /** A request body for a route: model, the route's own fields, options, then passthrough. */
  const bodyFor = (r: Route, params: Record<string, unknown>, fields: Record<string, unknown>) => {
    const merged = { ...config, ...params };
    const options: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(merged))
      if (OPTION_KEYS.has(key) && value !== undefined) options[key] = value;
    const body: Record<string, unknown> = { model, ...fields };
    for (const key of TOP_LEVEL[r]) if (merged[key] !== undefined) body[key] = merged[key];
    const passthrough = isRecord(config.passthrough) ? config.passthrough : {};
    const { options: extraOptions, ...extra } = passthrough;
    const allOptions = { ...options, ...(isRecord(extraOptions) ? extraOptions : {}) };
    if (r !== 'embed' && Object.keys(allOptions).length > 0) body.options = allOptions;
    return { ...body, ...extra };
  };

  return createHttpApiProvider(spec, ctx, now, {
    service: 'Ollama',
    model,
    idForm: 'ollama:chat:<model>',
    baseUrl: { env: ['OLLAMA_BASE_URL'], default: DEFAULT_BASE_URL },
    route: route === 'chat' ? '/api/chat' : '/api/generate',
    // Ollama itself takes no key; a proxy in front of it may (OLLAMA_API_KEY, as promptfoo sends it).
    key: { env: ['OLLAMA_API_KEY'], send: { kind: 'bearer' } },
    // Every request field is chosen by the route (options nest); the prompt's params are all read.
    paramKeys: [],
    ownPassthrough: true,
    body: (request) =>
      route === 'chat'
        ? bodyFor('chat', request.params, { messages: ollamaMessages(request.messages), stream: false })
        : bodyFor('generate', request.params, { prompt: request.prompt, stream: false }),
    parse: (text, { pricing, redact }) => parseGeneration(text, route, pricing, redact),
    stream: {
      body: (body) => ({ ...body, stream: true }),
      parse: (lines, { pricing, redact }) => parseGenerationStream(lines, route, pricing, redact),
    },
    describe: { route },
    refuseCalls:
      route === 'embed'
        ? `${spec.id} is an embeddings model: it cannot answer a prompt (use ollama:chat:<model> for that)`
        : undefined,
    embed:
      route === 'embed'
        ? {
            route: '/api/embed',
            body: (texts) => bodyFor('embed', {}, { input: texts }),
            parse: parseEmbeddings,
          }
        : undefined,
  });
}

function parseGeneration(
  text: string,
  route: Route,
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const parsed = reply.value;
  if (!isRecord(parsed)) return { output: null, error: redact(`malformed response: ${excerpt(text)}`) };
  // Ollama may answer 200 with {"error": …} (a model that failed while loading, say).
  if (typeof parsed.error === 'string')
    return { output: null, error: redact(`Ollama error: ${parsed.error}`) };
  const response: Omit<ProviderResponse, 'latencyMs' | 'attempts'> = { output: '' };
  if (route === 'chat') {
    const message = isRecord(parsed.message) ? parsed.message : undefined;
    if (!message) return { output: null, error: redact(`malformed response (no message): ${excerpt(text)}`) };
    const content = typeof message.content === 'string' ? message.content : '';
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    if (content === '' && calls.length > 0) {
      // As OpenAI shapes them (arguments a JSON string), so tool-call assertions read them alike.
      response.output = JSON.stringify(
        calls.filter(isRecord).map((c) => {
          const fn = isRecord(c.function) ? c.function : {};
          const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
          return { type: 'function', function: { name: fn.name, arguments: args } };
        }),
      );
      response.nonText = 'tool calls';
    } else response.output = content;
  } else {
    if (typeof parsed.response !== 'string')
      return { output: null, error: redact(`malformed response (no response text): ${excerpt(text)}`) };
    response.output = parsed.response;
  }
  if (typeof parsed.done_reason === 'string') response.finishReason = parsed.done_reason;
  return {
    ...response,
    ...usageOf(finite(parsed.prompt_eval_count), finite(parsed.eval_count), undefined, pricing),
  };
}

/**
 * A streamed answer (`stream: true`: one JSON object a line, the last with `done: true`, the
 * counts and the done reason): the pieces joined, and when the first non-empty one arrived.
 */
function parseGenerationStream(
  lines: { at: number; line: string }[],
  route: Route,
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> & { firstTokenAt?: number } {
  let text = '';
  let firstTokenAt: number | undefined;
  let last: Record<string, unknown> | undefined;
  const calls: unknown[] = [];
  for (const { at, line } of lines) {
    const reply = jsonReply(line, redact, 'stream line');
    if ('error' in reply) return { output: null, error: reply.error };
    const part = reply.value;
    if (!isRecord(part)) continue;
    if (typeof part.error === 'string') return { output: null, error: redact(`Ollama error: ${part.error}`) };
    last = part;
    const message = isRecord(part.message) ? part.message : undefined;
    const piece = route === 'chat' ? message?.content : part.response;
    if (typeof piece === 'string' && piece !== '') {
      text += piece;
      firstTokenAt ??= at;
    }
    if (message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      calls.push(...message.tool_calls);
      firstTokenAt ??= at;
    }
  }
  if (!last) return { output: null, error: redact('malformed response (an empty stream)') };
  // The whole answer read as one, so tool calls and usage are parsed exactly as a plain answer is.
  const whole = {
    ...last,
    ...(route === 'chat'
      ? { message: { role: 'assistant', content: text, tool_calls: calls } }
      : { response: text }),
  };
  const response = parseGeneration(JSON.stringify(whole), route, pricing, redact);
  return firstTokenAt === undefined ? response : { ...response, firstTokenAt };
}

function parseEmbeddings(
  text: string,
  count: number,
  redact: (s: string) => string,
): Omit<EmbeddingResponse, 'latencyMs'> {
  const reply = jsonReply(text, redact, 'embeddings response');
  if ('error' in reply) return reply;
  const parsed = reply.value;
  const vectors = isRecord(parsed) ? parsed.embeddings : undefined;
  if (
    !Array.isArray(vectors) ||
    vectors.length !== count ||
    !vectors.every((v) => Array.isArray(v) && v.every((x) => typeof x === 'number'))
  ) {
    return { error: redact(`malformed embeddings response (expected ${count} vectors): ${excerpt(text)}`) };
  }
  return { embeddings: vectors as number[][] };
}
