/**
 * Matching a reference written in a suite (a case's `providers`/`prompts` list, a provider's
 * `prompts`) against a provider or prompt: exact label, exact id, `prefix*` wildcard, or the
 * legacy `ref:` prefix (`openai` matches `openai:gpt-4o`).
 */
export function refMatches(ref: string, target: { id: string; label?: string }): boolean {
  const names =
    target.label !== undefined && target.label !== target.id ? [target.label, target.id] : [target.id];
  if (names.includes(ref)) return true;
  if (ref.endsWith('*')) {
    const prefix = ref.slice(0, -1);
    return names.some((n) => n.startsWith(prefix));
  }
  return names.some((n) => n.startsWith(`${ref}:`));
}

/** Whether a target is allowed by an optional list of refs (undefined: all; empty list: none). */
export function allowedBy(refs: string[] | undefined, target: { id: string; label?: string }): boolean {
  return refs === undefined || refs.some((r) => refMatches(r, target));
}
