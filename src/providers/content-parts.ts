// One mapping of a conversation's content parts to each wire, and of each wire's answer back to
// blocks (core/types.ts AnswerBlock). A message's content is a string or OpenAI-style parts
// (`{type: 'text', text}`, `{type: 'image_url', image_url: {url}}`); each wire takes them its own
// way. A provider builds its request from these and reads its answer with them, so a part or a
// block is mapped in one place. To add a wire: a `<wire>Messages` function (and `<wire>Blocks` for
// its answers), used by that provider's file.
import { toolCallBlock } from '../core/answer.js';
import { isRecord } from '../core/records.js';
import type { AnswerBlock, ContentPart, Message } from '../core/types.js';

/** How many messages are sent: a trailing hole (what the model fills) is not. */
export function sentCount(messages: readonly Message[]): number {
  let end = messages.length;
  while (end > 0 && messages[end - 1].role === 'assistant' && messages[end - 1].content === null) end--;
  return end;
}

/** The text of content parts (images left out). */
export function partsText(parts: readonly ContentPart[]): string {
  let text = '';
  for (const p of parts) if (p.type === 'text') text += p.text;
  return text;
}

/** An image URL split into its media type and base64 data when it is a `data:` URL. */
function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1], data: m[2] } : undefined;
}

// ── OpenAI chat completions (and every service that speaks it) ──────────────────────────────────

/** Chat API messages as OpenAI takes them: content as it is (parts are OpenAI's own), `variable` dropped. */
export function openAiMessages(
  messages: readonly Message[],
): { role: string; content: Message['content'] }[] {
  const end = sentCount(messages);
  const wire = new Array<{ role: string; content: Message['content'] }>(end);
  for (let i = 0; i < end; i++) wire[i] = { role: messages[i].role, content: messages[i].content };
  return wire;
}

/** The message fields an OpenAI-compatible answer's reasoning comes in, the first found wins (DeepSeek's, vLLM's; Groq's). */
export const REASONING_FIELDS: readonly string[] = ['reasoning_content', 'reasoning'];

/** The first of `fields` holding non-empty text in a message (or a stream's delta). */
export function reasoningText(
  message: Record<string, unknown>,
  fields: readonly string[],
): string | undefined {
  for (const field of fields) {
    const value = message[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * An OpenAI chat answer's `message` as blocks: reasoning (the first of `reasoningFields`: the
 * service's own field), text (`content`; `""` is one empty text block, `null` none; Mistral's list
 * of `text` and `thinking` chunks read chunk by chunk), the refusal, then the tool calls (or a
 * legacy `function_call`).
 */
export function openAiBlocks(
  message: Record<string, unknown>,
  reasoningFields: readonly string[] = REASONING_FIELDS,
): AnswerBlock[] {
  const blocks: AnswerBlock[] = [];
  const reasoning = reasoningText(message, reasoningFields);
  if (reasoning !== undefined) blocks.push({ type: 'reasoning', text: reasoning });
  const content = message.content;
  if (typeof content === 'string') blocks.push({ type: 'text', text: content });
  else if (Array.isArray(content)) {
    for (const chunk of content) {
      if (!isRecord(chunk)) continue;
      if (chunk.type === 'text' && typeof chunk.text === 'string')
        blocks.push({ type: 'text', text: chunk.text });
      else if (chunk.type === 'thinking') {
        const parts = Array.isArray(chunk.thinking) ? chunk.thinking : [];
        const text = parts.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
        blocks.push({ type: 'reasoning', text });
      }
    }
  }
  if (typeof message.refusal === 'string' && message.refusal !== '')
    blocks.push({ type: 'refusal', text: message.refusal });
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call.function) ? call.function : {};
      blocks.push(
        toolCallBlock(
          typeof call.id === 'string' ? call.id : undefined,
          typeof fn.name === 'string' ? fn.name : '',
          typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        ),
      );
    }
  } else if (isRecord(message.function_call)) {
    const fn = message.function_call;
    const block = toolCallBlock(
      undefined,
      typeof fn.name === 'string' ? fn.name : '',
      typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    );
    block.form = 'function_call';
    blocks.push(block);
  }
  return blocks;
}

// ── Anthropic Messages ───────────────────────────────────────────────────────────────────────────

/**
 * The conversation as Anthropic's Messages API takes it: system messages joined apart, content
 * parts as Anthropic content blocks, a tool message as the user's, the trailing hole left out.
 */
export function anthropicMessages(messages: readonly Message[]): {
  system: string;
  messages: { role: string; content: unknown }[];
} {
  const end = sentCount(messages);
  const system: string[] = [];
  const wire: { role: string; content: unknown }[] = [];
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    if (m.role === 'system') {
      system.push(typeof m.content === 'string' ? m.content : partsText(m.content ?? []));
      continue;
    }
    const content =
      typeof m.content === 'string' || m.content === null ? (m.content ?? '') : m.content.map(anthropicPart);
    wire.push({ role: m.role === 'tool' ? 'user' : m.role, content });
  }
  return { system: system.join('\n\n'), messages: wire };
}

/** A content part as an Anthropic block (`text`; an image URL or data URL as `image`). */
export function anthropicPart(part: ContentPart): unknown {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const url = part.image_url.url;
  const data = dataUrl(url);
  return data
    ? { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } }
    : { type: 'image', source: { type: 'url', url } };
}

// ── Ollama's native chat ────────────────────────────────────────────────────────────────────────

/** Chat messages as Ollama takes them: the parts' text as content, images apart (base64); the trailing hole left out. */
export function ollamaMessages(
  messages: readonly Message[],
): { role: string; content: string; images?: string[] }[] {
  const end = sentCount(messages);
  const wire: { role: string; content: string; images?: string[] }[] = [];
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    if (typeof m.content === 'string' || m.content === null) {
      wire.push({ role: m.role, content: m.content ?? '' });
      continue;
    }
    let text = '';
    const images: string[] = [];
    for (const part of m.content) {
      if (part.type === 'text') text += part.text;
      else {
        const url = part.image_url.url;
        images.push(dataUrl(url)?.data ?? url);
      }
    }
    wire.push(images.length > 0 ? { role: m.role, content: text, images } : { role: m.role, content: text });
  }
  return wire;
}

// ── Google Gemini (AI Studio, Vertex) ───────────────────────────────────────────────────────────

/** A Gemini content part (`text`, `inline_data`, `file_data`, …). */
export interface GeminiPart {
  text?: string;
  [key: string]: unknown;
}

/** The conversation as Gemini's `contents` (assistant turns are `model`'s), its system messages' parts apart. */
export function geminiContents(messages: readonly Message[]): {
  contents: { role: string; parts: GeminiPart[] }[];
  systemParts: GeminiPart[];
} {
  const end = sentCount(messages);
  const contents: { role: string; parts: GeminiPart[] }[] = [];
  const systemParts: GeminiPart[] = [];
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    const parts: GeminiPart[] =
      typeof m.content === 'string' || m.content === null
        ? [{ text: m.content ?? '' }]
        : m.content.map(geminiPart);
    if (m.role === 'system') systemParts.push(...parts.filter((p) => typeof p.text === 'string'));
    else contents.push({ role: m.role === 'assistant' ? 'model' : 'user', parts });
  }
  return { contents, systemParts };
}

/** A content part as a Gemini part: text, or an image (a data URL inline, else by URI). */
export function geminiPart(part: ContentPart): GeminiPart {
  if (part.type === 'text') return { text: part.text };
  const url = part.image_url.url;
  const data = dataUrl(url);
  return data
    ? { inline_data: { mime_type: data.mediaType, data: data.data } }
    : { file_data: { file_uri: url, mime_type: 'image/*' } };
}

// ── Bedrock Converse ────────────────────────────────────────────────────────────────────────────

/** The conversation as Converse takes it: system messages apart, content blocks, the trailing hole left out. */
export function converseMessages(messages: readonly Message[]): {
  system: { text: string }[];
  wire: { role: string; content: Record<string, unknown>[] }[];
} {
  const end = sentCount(messages);
  const system: { text: string }[] = [];
  const wire: { role: string; content: Record<string, unknown>[] }[] = [];
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    if (m.role === 'system') {
      system.push({ text: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) });
      continue;
    }
    const content =
      typeof m.content === 'string' || m.content === null
        ? [{ text: m.content ?? '' }]
        : m.content.map(conversePart);
    wire.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content });
  }
  return { system, wire };
}

/** A content part as a Converse block: text, or an image from a data URL (its bytes, base64 in JSON). */
export function conversePart(part: ContentPart): Record<string, unknown> {
  if (part.type === 'text') return { text: part.text };
  const data = /^data:image\/([^;]+);base64,(.+)$/s.exec(part.image_url.url);
  if (!data) return { text: JSON.stringify(part) };
  return { image: { format: data[1] === 'jpg' ? 'jpeg' : data[1], source: { bytes: data[2] } } };
}
