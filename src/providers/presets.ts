/**
 * OpenAI-compatible services by name, as promptfoo 0.123.1 names and configures them: one table
 * of presets (id prefix, base URL, key variable, request fields of their own), each served by the
 * OpenAI wire mapping (openai.ts) on the HTTP skeleton (http-api.ts). Facts are from promptfoo's
 * dist (`create*Provider` and the provider classes); where assay differs it is said below.
 *
 * Everything after the prefix (and after a kind such as `embedding:`) is the model, colons
 * included: `openrouter:meta-llama/llama-3.1-8b-instruct:free`, `localai:chat:qwen3.5:9b`.
 *
 * The base URL: `config.apiBaseUrl`, else `config.apiHost` (https://HOST/v1), else the preset's
 * variables, else its default. promptfoo fixes DeepSeek's, xAI's and Perplexity's base URL; assay
 * lets `apiBaseUrl` (and the `*_BASE_URL` variable) move it, so a proxy or a local mock can stand in.
 * The key: `config.apiKey`, else `config.apiKeyEnvar`'s variable, else the preset's variable; a
 * missing key is refused (fatal, before any request) only at the service's own host.
 */
// The table alone (no imports): the registry reads it at start-up; preset-provider.ts builds providers.

export interface Preset {
  /** The id prefix, without the colon. */
  prefix: string;
  /** The service, as messages name it. */
  service: string;
  baseUrl: string;
  /** Variables that may hold the base URL, in order (promptfoo's where it reads one; else `<PREFIX>_BASE_URL`). */
  baseUrlEnv: readonly string[];
  /** The key's variable (none: the service takes no key, as LocalAI). */
  keyEnv?: string;
  /** Request fields of the service's own, read from the config like OpenAI's. */
  extraParams?: readonly string[];
  /** Fields promptfoo always sends for this service. */
  defaults?: Record<string, unknown>;
  /** Config keys promptfoo moves into the body (OpenRouter's `transforms`, `models`, `route`, `provider`). */
  configToBody?: readonly string[];
  /** The model when the id names none. */
  defaultModel?: string;
  /** The default embeddings model (for `<prefix>:embedding` with no model). */
  defaultEmbeddingModel?: string;
  /** Whether `<prefix>:embedding:<model>` (and `embeddings:`) is an embeddings model. */
  embeddings?: boolean;
  /** Whether `<prefix>:chat:<model>` names a chat model (the `chat:` is not part of the model). */
  chatKind?: boolean;
  /** The base URL for a config's `region` (xAI). */
  regionBaseUrl?: (region: string) => string;
  adjust?(body: Record<string, unknown>): void;
  /**
   * The dialect its answers are read as (Answer.api), where promptfoo's provider for the service
   * reads the OpenAI shape its own way (Mistral, OpenRouter, LocalAI); default `openai-chat`.
   */
  dialect?: string;
  /** The message fields its answers' reasoning comes in, when not OpenAI-compatible servers' usual ones (OpenRouter: `reasoning`). */
  reasoningFields?: readonly string[];
  /** An example model, for the README and messages. */
  example: string;
}

/** The presets, in promptfoo's spelling. */
export const PRESETS: readonly Preset[] = [
  {
    prefix: 'groq',
    service: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    baseUrlEnv: ['GROQ_BASE_URL'],
    keyEnv: 'GROQ_API_KEY',
    extraParams: ['reasoning_format', 'include_reasoning', 'compound_custom', 'search_settings'],
    example: 'llama-3.3-70b-versatile',
  },
  {
    prefix: 'xai',
    service: 'xAI',
    baseUrl: 'https://api.x.ai/v1',
    baseUrlEnv: ['XAI_BASE_URL'],
    keyEnv: 'XAI_API_KEY',
    extraParams: ['search_parameters'],
    regionBaseUrl: (region) => `https://${region}.api.x.ai/v1`,
    example: 'grok-3-mini',
  },
  {
    prefix: 'openrouter',
    service: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    baseUrlEnv: ['OPENROUTER_BASE_URL'],
    keyEnv: 'OPENROUTER_API_KEY',
    configToBody: ['transforms', 'models', 'route', 'provider'],
    dialect: 'openrouter-chat',
    reasoningFields: ['reasoning'],
    example: 'meta-llama/llama-3.1-8b-instruct',
  },
  {
    prefix: 'perplexity',
    service: 'Perplexity',
    baseUrl: 'https://api.perplexity.ai',
    baseUrlEnv: ['PERPLEXITY_BASE_URL'],
    keyEnv: 'PERPLEXITY_API_KEY',
    extraParams: [
      'search_domain_filter',
      'search_recency_filter',
      'return_related_questions',
      'return_images',
      'search_after_date_filter',
      'search_before_date_filter',
      'web_search_options',
    ],
    defaultModel: 'sonar',
    example: 'sonar',
  },
  {
    prefix: 'deepseek',
    service: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    baseUrlEnv: ['DEEPSEEK_BASE_URL'],
    keyEnv: 'DEEPSEEK_API_KEY',
    defaultModel: 'deepseek-chat',
    example: 'deepseek-chat',
  },
  {
    prefix: 'mistral',
    service: 'Mistral',
    baseUrl: 'https://api.mistral.ai/v1',
    baseUrlEnv: ['MISTRAL_API_BASE_URL'],
    keyEnv: 'MISTRAL_API_KEY',
    extraParams: [
      'n',
      'safe_prompt',
      'random_seed',
      'prompt_mode',
      'prompt_cache_key',
      'prediction',
      'metadata',
      'guardrails',
    ],
    // What promptfoo's Mistral provider sends when the config says nothing.
    defaults: { top_p: 1, max_tokens: 1024, random_seed: null },
    embeddings: true,
    chatKind: true,
    defaultEmbeddingModel: 'mistral-embed',
    dialect: 'mistral-chat',
    example: 'mistral-small-latest',
  },
  {
    prefix: 'togetherai',
    service: 'Together AI',
    baseUrl: 'https://api.together.xyz/v1',
    baseUrlEnv: ['TOGETHER_BASE_URL'],
    keyEnv: 'TOGETHER_API_KEY',
    embeddings: true,
    chatKind: true,
    example: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  },
  {
    prefix: 'fireworks',
    service: 'Fireworks AI',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    baseUrlEnv: ['FIREWORKS_API_BASE_URL'],
    keyEnv: 'FIREWORKS_API_KEY',
    embeddings: true,
    example: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
  },
  {
    prefix: 'cerebras',
    service: 'Cerebras',
    baseUrl: 'https://api.cerebras.ai/v1',
    baseUrlEnv: ['CEREBRAS_BASE_URL'],
    keyEnv: 'CEREBRAS_API_KEY',
    adjust: (body) => {
      if (body.max_completion_tokens !== undefined) delete body.max_tokens;
    },
    example: 'llama3.1-8b',
  },
  {
    prefix: 'localai',
    service: 'LocalAI',
    baseUrl: 'http://localhost:8080/v1',
    baseUrlEnv: ['LOCALAI_BASE_URL'],
    // promptfoo sends LocalAI no key, and `temperature` 0.7 unless the config (or LOCALAI_TEMPERATURE) says.
    defaults: { temperature: 0.7 },
    embeddings: true,
    chatKind: true,
    dialect: 'localai-chat',
    example: 'llama-3.2-1b-instruct',
  },
];

export const BY_PREFIX = new Map(PRESETS.map((p) => [p.prefix, p]));

/** The preset and model an id names, or undefined when it is not a preset id (or names no model). */
export function presetOf(id: string): { preset: Preset; model: string; embedding: boolean } | undefined {
  const colon = id.indexOf(':');
  if (colon < 0) return undefined;
  const preset = BY_PREFIX.get(id.slice(0, colon));
  if (!preset) return undefined;
  let rest = id.slice(colon + 1);
  let embedding = false;
  const kind = /^(embeddings?|chat)(?::|$)/.exec(rest);
  if (kind && kind[1] !== 'chat' && preset.embeddings) {
    embedding = true;
    rest = rest.slice(kind[0].length);
  } else if (kind && kind[1] === 'chat' && preset.chatKind) rest = rest.slice(kind[0].length);
  const model = rest || (embedding ? preset.defaultEmbeddingModel : preset.defaultModel) || '';
  if (!model || /\s/.test(model)) return undefined;
  return { preset, model, embedding };
}

/** Whether an id starts with a preset's prefix (for the registry; one naming no model is refused when built). */
export function isPresetId(id: string): boolean {
  const colon = id.indexOf(':');
  return colon > 0 && BY_PREFIX.has(id.slice(0, colon)) && !/\s/.test(id);
}

/** Whether a preset id is an embeddings model. */
export function presetEmbeds(id: string): boolean {
  return presetOf(id)?.embedding ?? false;
}

/** The id forms of the presets, for "unknown provider" messages. */
export function presetPatterns(): string {
  return PRESETS.map((p) => `${p.prefix}:<model>`).join(' | ');
}
