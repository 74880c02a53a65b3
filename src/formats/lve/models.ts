// Which assay provider answers for an LVE model id (`test.json:model`). The default map is the
// OpenAI part of LVE's model store (lve/model_store.py); Replicate and local HuggingFace models
// have no provider in assay until the user points them at one (`--model-map ID=PROVIDER`).

/** LVE model id → assay provider id, for the models assay can call as they are. */
export const DEFAULT_MODEL_MAP: Readonly<Record<string, string>> = {
  'openai/gpt-4': 'openai:chat:gpt-4',
  'openai/gpt-3.5-turbo': 'openai:chat:gpt-3.5-turbo',
  'openai/gpt-4-vision-preview': 'openai:chat:gpt-4-vision-preview',
};

/** LVE's test model: it answers with the instance's `response` model arg (no provider). */
export const DUMMY_MODEL = 'dummy/dummy';

/** Models LVE knows that need a provider assay does not ship, and where LVE runs them. */
const KNOWN_ELSEWHERE: Record<string, string> = {
  'meta/llama-2-7b-chat': 'Replicate',
  'meta/llama-2-13b-chat': 'Replicate',
  'meta/llama-2-70b-chat': 'Replicate',
  'mistralai/mistral-7b-instruct-v0.1': 'Replicate',
  'hf-meta/llama-2-7b-chat': 'local HuggingFace transformers',
  'hf-meta/llama-guard-7b': 'local HuggingFace transformers',
  'microsoft/phi-1_5': 'local HuggingFace transformers',
};

/** The provider for a model, or why there is none. */
export function providerForModel(
  model: string,
  overrides: Readonly<Record<string, string>>,
): { provider: string } | { reason: string } {
  const provider = overrides[model] ?? DEFAULT_MODEL_MAP[model];
  if (provider) return { provider };
  const where = KNOWN_ELSEWHERE[model];
  return {
    reason: `LVE model "${model}" has no provider in assay${where ? ` (LVE runs it on ${where})` : ' (LVE does not know it either)'}: map it with --model-map ${model}=PROVIDER (e.g. ollama:chat:NAME, or openai:chat:NAME with OPENAI_BASE_URL for any OpenAI-compatible server), or give -p`,
  };
}
