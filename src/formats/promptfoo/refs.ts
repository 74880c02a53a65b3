// promptfoo's rules for a test's `providers:` / `prompts:` references (spec §4.1), used to reject
// references that match nothing, with promptfoo's own messages (§4.2).
import { refMatches } from '../../core/refs.js';
import type { PromptTemplate, ProviderSpec } from '../../core/types.js';

/** Whether a provider reference (label, id, `prefix*`, or legacy `prefix`) selects a provider. */
export function providerRefMatches(ref: string, provider: ProviderSpec): boolean {
  return refMatches(ref, provider);
}

/** Whether a prompt reference (label, id, `prefix*`, or legacy `prefix`) selects a prompt. */
export function promptRefMatches(ref: string, prompt: PromptTemplate): boolean {
  return refMatches(ref, prompt);
}

/** `label (id)` or `id`, as promptfoo lists available providers. */
export function describeProvider(provider: ProviderSpec): string {
  return provider.label && provider.label !== provider.id
    ? `${provider.label} (${provider.id})`
    : provider.id;
}

/** promptfoo's message for a provider reference that matches nothing. */
export function missingProviderMessage(owner: string, ref: string, providers: ProviderSpec[]): string {
  return `${owner} references provider "${ref}" which does not exist. Available providers: ${providers.map(describeProvider).join(', ')}`;
}

/** promptfoo's message for a prompt reference that matches nothing. */
export function missingPromptMessage(owner: string, ref: string, prompts: PromptTemplate[]): string {
  const available = [...new Set(prompts.flatMap((p) => [p.label, p.id]))].filter(Boolean).sort();
  return `${owner} references prompt "${ref}" which does not exist.\nAvailable prompts: [${available.join(', ')}]`;
}
