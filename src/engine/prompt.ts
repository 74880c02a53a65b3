// buildPrompt: what is sent to the model for a case and prompt (the case's own messages, or the
// prompt template rendered with its vars).
import { messageText, promptToMessages } from '../core/messages.js';
import type { Case, Message, PromptTemplate } from '../core/types.js';
import { renderPrompt } from '../template/render.js';

/** Renders what is sent to the model for a case and prompt. */
export function buildPrompt(
  testCase: Case,
  prompt: PromptTemplate,
  env: Record<string, string | undefined>,
): { text: string; messages: Message[] } {
  const conversation = testCase.conversations?.[0];
  if (conversation) {
    // Formats without templates carry their own messages; the trailing hole is what the model fills.
    const messages = conversation.messages.filter((m) => m.content !== null);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    return { text: lastUser ? messageText(lastUser.content) : '', messages };
  }
  const text = renderPrompt(prompt.raw, testCase.vars, {
    prefix: testCase.preparation?.options?.prefix,
    suffix: testCase.preparation?.options?.suffix,
    env,
  });
  return { text, messages: promptToMessages(text) };
}
