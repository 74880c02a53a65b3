import type { ProviderSpec } from '../core/types.js';
import { callPolicyFor, withCallPolicy } from './call-policy.js';
import { httpSecrets, isHttpProviderId } from './http-secrets.js';
import { scriptProviderRef } from './script-ref.js';
import type { Provider, ProviderContext, ProviderFactory } from './types.js';

interface ProviderEntry {
  /** How the id looks, for error messages. */
  pattern: string;
  matches(id: string): boolean;
  /**
   * Loaded on first use, so start-up pays only for providers a suite names. The factory's provider
   * makes one attempt per call; the registry wraps it in the call policy.
   */
  load(): Promise<ProviderFactory>;
  /** Whether a provider of this id offers embeddings (known without building it). */
  embeds?(id: string): boolean;
  /**
   * The values of the spec's inputs that are credentials beyond the key-named config fields every
   * spec is searched for (core/redact.ts): redacted from results, caches and messages.
   */
  secrets?(spec: ProviderSpec): string[];
}

const entries: ProviderEntry[] = [
  {
    pattern: 'echo',
    matches: (id) => id === 'echo',
    embeds: () => false,
    load: async () => (await import('./echo.js')).createEchoProvider,
  },
  {
    // Also `openai:embedding:<model>` (embeddings only); the pattern text stays short for messages.
    pattern: 'openai:chat:<model> | openai:<model>',
    matches: (id) => /^openai:(?:chat:|embeddings?:)?[^:\s]+$/.test(id),
    embeds: (id) => /^openai:embeddings?:/.test(id),
    load: async () => (await import('./openai.js')).createOpenAiAttempts,
  },
  {
    pattern: 'anthropic:messages:<model> | anthropic:<model>',
    matches: (id) => /^anthropic:(?:messages:)?[^:\s][^\s]*$/.test(id) && !/^anthropic:messages:?$/.test(id),
    embeds: () => false,
    load: async () => (await import('./anthropic.js')).createAnthropicAttempts,
  },
  {
    // Also `ollama:completion:<model>` and `ollama:embeddings:<model>`.
    pattern: 'ollama:chat:<model> | ollama:<model>',
    matches: (id) => /^ollama:(?:(?:chat|completion|embeddings?):)?[^:\s][^\s]*$/.test(id),
    embeds: (id) => /^ollama:embeddings?:/.test(id),
    load: async () => (await import('./ollama.js')).createOllamaAttempts,
  },
  {
    pattern: 'file://<path>.js|.ts|.py | python:<path>.py[:function]',
    matches: (id) => scriptProviderRef(id) !== undefined,
    embeds: () => false,
    load: async () => (await import('./script.js')).createScriptAttempts,
  },
  {
    pattern: 'http | https | http(s)://<url>',
    matches: (id) => isHttpProviderId(id),
    embeds: () => false,
    secrets: (spec) => httpSecrets(spec.config),
    load: async () => (await import('./http.js')).createHttpAttempts,
  },
  {
    pattern: 'exec:<command>',
    matches: (id) => /^exec:\s*\S/.test(id),
    embeds: () => false,
    load: async () => (await import('./exec.js')).createExecAttempts,
  },
];

/** Registers another provider kind (used by plugins and tests). */
export function registerProvider(entry: ProviderEntry): void {
  entries.unshift(entry);
}

/** Whether some provider kind accepts this id. */
export function isKnownProviderId(id: string): boolean {
  return entries.some((e) => e.matches(id));
}

/** Whether the provider of this id offers embeddings; undefined when its kind does not say. */
export function providerOffersEmbeddings(id: string): boolean | undefined {
  return entries.find((e) => e.matches(id))?.embeds?.(id);
}

/** The credential values a spec's provider declares (see ProviderEntry.secrets). */
export function providerSecrets(spec: ProviderSpec): string[] {
  const id = spec.kind ?? spec.id;
  return entries.find((e) => e.matches(id))?.secrets?.(spec) ?? [];
}

/** The id shapes assay understands, for "unknown provider" messages. */
export function providerPatterns(): string[] {
  return entries.map((e) => e.pattern);
}

/**
 * Builds the provider for a spec, under the call policy (timeout, retries, adaptive limiter,
 * redaction). Throws if no provider kind matches (validation catches this earlier).
 */
export async function createProvider(spec: ProviderSpec, ctx: ProviderContext): Promise<Provider> {
  // A spec naming its provider by `kind` is built as that provider; its `id` is only its name.
  const built = spec.kind === undefined ? spec : { ...spec, id: spec.kind };
  const entry = entries.find((e) => e.matches(built.id));
  if (!entry)
    throw new Error(`unknown provider "${built.id}"; expected one of: ${providerPatterns().join(', ')}`);
  const factory = await entry.load();
  return withCallPolicy(factory(built, ctx), callPolicyFor(built, ctx));
}
