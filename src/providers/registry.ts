import type { ProviderSpec } from '../core/types.js';
import { callPolicyFor, withCallPolicy } from './call-policy.js';
import { isHttpProviderId } from './http-secrets.js';
import { isPresetId, presetEmbeds, presetPatterns } from './presets.js';
import { declareCredentials, declareProviderSecrets } from './provider-secrets.js';
import { scriptProviderRef } from './script-ref.js';
import type { Provider, ProviderContext, ProviderFactory } from './types.js';

/**
 * A kind of provider: the ids it accepts and how to build one. Registered with `registerProvider`;
 * a suite (or `-p`) naming a matching id gets a provider built by `load()`'s factory.
 */
export interface ProviderEntry {
  /** How the id looks, for error messages (`mycorp:<model>`). */
  pattern: string;
  matches(id: string): boolean;
  /**
   * Loaded on first use, so start-up pays only for providers a suite names. The factory's provider
   * makes one attempt per call; the registry wraps it in the call policy.
   */
  load(): Promise<ProviderFactory>;
  /** Whether a provider of this id offers embeddings (known without building it). */
  embeds?(id: string): boolean;
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
    pattern: 'openai:chat:<model> | openai:completion:<model> | openai:<model>',
    // The model after the kind may hold colons (an Ollama tag: `openai:chat:qwen3.5:9b`).
    matches: (id) => /^openai:(?:(?:chat|completion|embeddings?):\S+|[^:\s]+)$/.test(id),
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
    // Azure OpenAI deployments (the deployment name may hold colons); `azureopenai:` as promptfoo also reads it.
    pattern: 'azure:chat:<deployment> | azure:completion:<deployment> | azure:embedding:<deployment>',
    matches: (id) => /^(?:azure|azureopenai):(?:(?:chat|completion):\S+|embeddings?(?::\S*)?)$/.test(id),
    embeds: (id) => /^(?:azure|azureopenai):embeddings?(?::|$)/.test(id),
    load: async () => (await import('./azure.js')).createAzureAttempts,
  },
  {
    // OpenAI-compatible services by name (presets.ts): groq:, xai:, openrouter:, mistral:, …
    pattern: presetPatterns(),
    matches: isPresetId,
    embeds: presetEmbeds,
    load: async () => (await import('./preset-provider.js')).createPresetAttempts,
  },
  {
    // Also `palm:<model>` and `google:embedding:<model>`; other google:<kind>: forms are refused with the reason.
    pattern: 'google:<model>',
    matches: (id) => /^(?:google|palm):[^:\s]/.test(id),
    embeds: (id) => /^(?:google|palm):embeddings?:/.test(id),
    load: async () => (await import('./google.js')).createGoogleAttempts,
  },
  {
    // Also `vertex:chat:<model>` and `vertex:embedding:<model>`.
    pattern: 'vertex:<model>',
    matches: (id) => /^vertex:[^:\s]/.test(id),
    embeds: (id) => /^vertex:embeddings?:/.test(id),
    load: async () => (await import('./google.js')).createGoogleAttempts,
  },
  {
    // Also `hf:`; the other tasks promptfoo names are refused by the provider with the reason.
    pattern: 'huggingface:chat:<model> | huggingface:text-generation:<model>',
    matches: (id) => /^(?:huggingface|hf):[^:\s]+:\S/.test(id),
    embeds: () => false,
    load: async () => (await import('./huggingface.js')).createHuggingFaceAttempts,
  },
  {
    // Also `bedrock:converse:<model-id>`; the other Bedrock APIs are refused by the provider.
    pattern: 'bedrock:<model-id>',
    matches: (id) => /^bedrock:\S/.test(id),
    embeds: () => false,
    load: async () => (await import('./bedrock.js')).createBedrockAttempts,
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
    load: async () => (await import('./http.js')).createHttpAttempts,
  },
  {
    pattern: 'exec:<command>',
    matches: (id) => /^exec:\s*\S/.test(id),
    embeds: () => false,
    load: async () => (await import('./exec.js')).createExecAttempts,
  },
];

/**
 * Adds a provider kind: every provider id `entry.matches` (typically a prefix, `mycorp:<model>`) is
 * built by the factory `entry.load()` resolves to, in suites, `-p`, graders and `--grader`. The
 * factory's provider makes one attempt per `call` and never throws (it returns `error`); assay wraps
 * it in its call policy (time limit, retries, rate limiting, redaction of `credentials`). A kind
 * registered later is tried first, so a plugin may take over ids a built-in kind would accept.
 *
 * @example
 * registerProvider({
 *   pattern: 'shout:<anything>',
 *   matches: (id) => id.startsWith('shout:'),
 *   load: async () => (spec) => ({
 *     id: spec.id, label: spec.label ?? spec.id, describe: () => ({ id: spec.id }),
 *     call: async (req) => ({ output: req.prompt.toUpperCase(), latencyMs: 0 }),
 *   }),
 * });
 */
export function registerProvider(entry: ProviderEntry): void {
  if (
    typeof entry?.matches !== 'function' ||
    typeof entry.load !== 'function' ||
    typeof entry.pattern !== 'string'
  )
    throw new TypeError('registerProvider: an entry needs pattern (text), matches(id) and load()');
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
  // Every credential it was given joins the run's secrets, whatever kind of provider it is: what
  // its spec holds first (a configuration error naming it is redacted too), then what it declares.
  if (ctx.secrets) declareProviderSecrets(ctx.secrets, spec);
  const provider = withCallPolicy(factory(built, ctx), callPolicyFor(built, ctx));
  if (ctx.secrets) declareCredentials(ctx.secrets, spec, ctx.env, provider);
  return provider;
}
