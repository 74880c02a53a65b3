// A provider's response read the same way whether its provider returns the structured answer or
// still plain text (the compatibility path): its text by the default rule, its finish reason,
// what it had instead of text.
import { nonTextOf, replyText } from '../../src/core/answer.js';
import type { ProviderResponse } from '../../src/providers/types.js';

export interface ReadResponse {
  text: string | null;
  finishReason: string | undefined;
  nonText: string | undefined;
}

/** A response's text, finish reason and non-text kind, from `answer` or from the compatibility fields. */
export function readResponse(res: ProviderResponse): ReadResponse {
  if (res.answer !== undefined)
    return { text: replyText(res), finishReason: res.answer.finishReason, nonText: nonTextOf(res.answer) };
  return { text: res.output ?? null, finishReason: res.finishReason, nonText: res.nonText };
}
