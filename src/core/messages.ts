import type { Message, Role } from './types.js';

const ROLES = new Set<Role>(['system', 'user', 'assistant', 'tool']);

/**
 * Turns a rendered prompt into chat messages: a JSON array of `{role, content}` objects (or one
 * such object) is a chat prompt; anything else is a single user message.
 */
export function promptToMessages(text: string): Message[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const list = Array.isArray(parsed) ? parsed : parsed && typeof parsed === 'object' ? [parsed] : undefined;
    if (list && list.length > 0 && list.every(isMessageLike)) {
      return list.map((m) => ({ role: m.role as Role, content: m.content ?? null }));
    }
  }
  return [{ role: 'user', content: text }];
}

function isMessageLike(m: unknown): m is { role: string; content?: Message['content'] } {
  return (
    !!m &&
    typeof m === 'object' &&
    typeof (m as { role?: unknown }).role === 'string' &&
    ROLES.has((m as { role: Role }).role)
  );
}

/** The text of a message's content (parts joined), for display and scoring. */
export function messageText(content: Message['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : `[image]`)).join('');
}
