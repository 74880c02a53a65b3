/**
 * `anthropic:messages:<model>` / `anthropic:<model>`: Anthropic's Messages API
 * (`POST {base}/v1/messages`), as promptfoo names it. System messages go in the top-level `system`
 * parameter; the answer's text blocks are joined; tool-use blocks, when there is no text, are the
 * output as JSON. `max_tokens` is required by the API: 1024 unless the config or the prompt says.
 */
import type { ProviderSpec } from '../core/types.js';
import { anthropicMessages } from './content-parts.js';
import { createHttpApiProvider } from './http-api.js';
import { finite, isRecord, jsonReply, nonEmpty, type Pricing, usageOf } from './http-kit.js';
import { excerpt } from './http-transport.js';
import type { Provider, ProviderContext, ProviderResponse } from './types.js';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';
const DEFAULT_VERSION = '2023-06-01';
const DEFAULT_MAX_TOKENS = 1024;

/** Request fields the Messages API takes, from the config or the prompt's own config. */
const PARAM_KEYS = [
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'thinking',
  'metadata',
  'system',
] as const;

/** The Anthropic provider making one attempt per call (the registry wraps it in the call policy). */
export function createAnthropicAttempts(
  spec: ProviderSpec,
  ctx: ProviderContext,
  now?: () => number,
): Provider {
  const config = spec.config ?? {};
  const model = spec.id.replace(/^anthropic:(?:messages:)?/, '');
  return createHttpApiProvider(spec, ctx, now, {
    service: 'Anthropic',
    model: model === spec.id ? '' : model,
    idForm: 'anthropic:messages:<model>',
    baseUrl: {
      config: nonEmpty(config.apiBaseUrl) ?? nonEmpty(config.apiHost),
      env: ['ANTHROPIC_BASE_URL'],
      default: DEFAULT_BASE_URL,
    },
    // A base that already ends in /v1 (as some proxies are written) is not given a second one.
    route: (base) => (/\/v1$/.test(base) ? '/messages' : '/v1/messages'),
    key: {
      env: ['ANTHROPIC_API_KEY'],
      send: { kind: 'header', name: 'x-api-key' },
      required: ['api.anthropic.com'],
      hint: 'or set ANTHROPIC_BASE_URL to use another Messages API server',
    },
    headers: { 'anthropic-version': nonEmpty(config.anthropicVersion) ?? DEFAULT_VERSION },
    paramKeys: PARAM_KEYS,
    body: (request, params) => {
      const merged: Record<string, unknown> = { ...params };
      const { system, messages } = anthropicMessages(request.messages);
      const systemText = [typeof merged.system === 'string' ? merged.system : undefined, system]
        .filter((s): s is string => s !== undefined && s !== '')
        .join('\n\n');
      delete merged.system;
      const body: Record<string, unknown> = { model, max_tokens: DEFAULT_MAX_TOKENS, ...merged, messages };
      if (systemText !== '') body.system = systemText;
      return body;
    },
    parse: (text, { pricing, redact }) => parseMessage(text, pricing, redact),
    stream: {
      body: (body) => ({ ...body, stream: true }),
      parse: (lines, { pricing, redact }) => parseMessageStream(lines, pricing, redact),
    },
  });
}

function parseMessage(
  text: string,
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const parsed = reply.value;
  if (!isRecord(parsed) || !Array.isArray(parsed.content)) {
    return { output: null, error: redact(`malformed response (no content): ${excerpt(text)}`) };
  }
  const blocks = parsed.content.filter(isRecord);
  const texts = blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string);
  const toolUses = blocks.filter((b) => b.type === 'tool_use');
  const response: Omit<ProviderResponse, 'latencyMs' | 'attempts'> = { output: texts.join('') };
  if (texts.length === 0) {
    if (toolUses.length > 0) {
      response.output = JSON.stringify(toolUses);
      response.nonText = 'tool calls';
    } else response.nonText = 'nothing';
  }
  if (typeof parsed.stop_reason === 'string') response.finishReason = parsed.stop_reason;
  const usage = isRecord(parsed.usage) ? parsed.usage : {};
  return {
    ...response,
    ...usageOf(finite(usage.input_tokens), finite(usage.output_tokens), undefined, pricing),
  };
}

/**
 * A streamed message (server-sent events: `message_start`, `content_block_start`/`_delta`/`_stop`,
 * `message_delta`, `message_stop`; `error` on failure), put back together into the message the
 * plain answer would be and read as one; the first text or tool-input delta is the first token.
 */
function parseMessageStream(
  lines: { at: number; line: string }[],
  pricing: Pricing | undefined,
  redact: (s: string) => string,
): Omit<ProviderResponse, 'latencyMs' | 'attempts'> & { firstTokenAt?: number } {
  let message: Record<string, unknown> | undefined;
  const blocks: Record<string, unknown>[] = [];
  const partialJson: string[] = [];
  let firstTokenAt: number | undefined;
  for (const { at, line } of lines) {
    if (!line.startsWith('data:')) continue;
    const reply = jsonReply(line.slice(5).trim(), redact, 'stream event');
    if ('error' in reply) return { output: null, error: reply.error };
    const event = reply.value;
    if (!isRecord(event)) continue;
    if (event.type === 'error') {
      const e = isRecord(event.error) ? event.error : {};
      return { output: null, error: redact(`stream error: ${String(e.message ?? e.type ?? 'unknown')}`) };
    }
    const index = typeof event.index === 'number' ? event.index : 0;
    if (event.type === 'message_start' && isRecord(event.message))
      message = { ...event.message, content: [] };
    else if (event.type === 'content_block_start' && isRecord(event.content_block))
      blocks[index] = { ...event.content_block };
    else if (event.type === 'content_block_delta' && isRecord(event.delta)) {
      blocks[index] ??= { type: 'text', text: '' };
      const block = blocks[index];
      if (
        event.delta.type === 'text_delta' &&
        typeof event.delta.text === 'string' &&
        event.delta.text !== ''
      ) {
        block.text = `${typeof block.text === 'string' ? block.text : ''}${event.delta.text}`;
        firstTokenAt ??= at;
      } else if (event.delta.type === 'input_json_delta' && typeof event.delta.partial_json === 'string') {
        partialJson[index] = (partialJson[index] ?? '') + event.delta.partial_json;
        firstTokenAt ??= at;
      }
    } else if (event.type === 'message_delta' && message) {
      if (isRecord(event.delta) && typeof event.delta.stop_reason === 'string')
        message.stop_reason = event.delta.stop_reason;
      if (isRecord(event.usage))
        message.usage = { ...(isRecord(message.usage) ? message.usage : {}), ...event.usage };
    }
  }
  if (!message) return { output: null, error: redact('malformed response (no message_start event)') };
  partialJson.forEach((json, i) => {
    if (json !== undefined && blocks[i]) {
      try {
        blocks[i].input = JSON.parse(json);
      } catch {
        blocks[i].input = json;
      }
    }
  });
  message.content = blocks.filter(Boolean);
  const parsed = parseMessage(JSON.stringify(message), pricing, redact);
  return firstTokenAt === undefined ? parsed : { ...parsed, firstTokenAt };
}
