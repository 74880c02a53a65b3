// Reading an OpenAI-compatible `/embeddings` reply: one vector per input, put back in input order
// by each item's `index` (servers may answer out of order).
import { isRecord } from '../core/records.js';
import type { TokenUsage } from '../core/types.js';
import { jsonReply } from './http-kit.js';
import { excerpt } from './http-transport.js';
import type { EmbeddingResponse } from './types.js';

/** The vectors of an `/embeddings` reply for `count` inputs, or an error saying what was wrong. */
export function parseEmbeddings(
  text: string,
  count: number,
  redact: (s: string) => string,
): Omit<EmbeddingResponse, 'latencyMs'> {
  const reply = jsonReply(text, redact, 'embeddings response');
  if ('error' in reply) return reply;
  const parsed = reply.value;
  const data = isRecord(parsed) ? parsed.data : undefined;
  if (!Array.isArray(data))
    return { error: redact(`malformed embeddings response (no data): ${excerpt(text)}`) };
  const vectors = new Array<number[] | undefined>(count).fill(undefined);
  for (let i = 0; i < data.length; i++) {
    const item = data[i];
    const index = isRecord(item) && typeof item.index === 'number' ? item.index : i;
    const vector = isRecord(item) ? item.embedding : undefined;
    if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return { error: redact(`malformed embeddings response (item ${i} has no numeric embedding)`) };
    if (index < 0 || index >= count || vectors[index])
      return { error: `malformed embeddings response (item ${i} has index ${index} for ${count} inputs)` };
    vectors[index] = vector;
  }
  const missing = vectors.indexOf(undefined);
  if (missing >= 0 || data.length !== count)
    return { error: `embeddings response has ${data.length} vectors for ${count} inputs` };
  const response: Omit<EmbeddingResponse, 'latencyMs'> = { embeddings: vectors as number[][] };
  const usage = readUsage(isRecord(parsed) ? parsed.usage : undefined);
  if (usage) response.usage = usage;
  return response;
}

function readUsage(raw: unknown): TokenUsage | undefined {
  if (!isRecord(raw)) return undefined;
  const prompt = typeof raw.prompt_tokens === 'number' ? raw.prompt_tokens : undefined;
  const total = typeof raw.total_tokens === 'number' ? raw.total_tokens : prompt;
  return prompt === undefined && total === undefined ? undefined : { prompt, total };
}
