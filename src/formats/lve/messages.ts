// LVE's chat message (lve/prompt.py `Message`): content, role (default user), variable, image_url.

/** One message of an LVE prompt, as the pydantic model holds it. */
export interface LveMessage {
  role: 'user' | 'system' | 'assistant';
  content: string | null;
  variable: string | null;
  image_url: string | null;
}

const ROLES = ['user', 'system', 'assistant'];

/** Checks one message as pydantic would; returns the message or why it is not one. */
export function checkMessage(raw: unknown): LveMessage | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'expected a message object {"content", "role", "variable", "image_url"}';
  const m = raw as Record<string, unknown>;
  const role = m.role ?? 'user';
  if (typeof role !== 'string' || !ROLES.includes(role))
    return `message role ${JSON.stringify(role)}: expected one of user, system, assistant`;
  const content = m.content ?? null;
  if (content !== null && typeof content !== 'string') return 'message content: expected a string or null';
  for (const k of ['variable', 'image_url'] as const)
    if (m[k] !== undefined && m[k] !== null && typeof m[k] !== 'string')
      return `message ${k}: expected a string or null`;
  if (content === null && role !== 'assistant')
    return `a ${role} message with no content: only assistant messages may be left to the model (content null)`;
  return {
    role: role as LveMessage['role'],
    content,
    variable: (m.variable as string | null | undefined) ?? null,
    image_url: (m.image_url as string | null | undefined) ?? null,
  };
}
