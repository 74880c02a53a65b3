/**
 * promptfoo's default grader: a config whose model-graded assertions name no grader is judged by a
 * model promptfoo picks from the keys in the environment (`getDefaultProviders` in promptfoo
 * 0.123.1's dist). The same rules, order and models, as provider ids; and, beyond promptfoo, the
 * reason, so a verdict can be traced to the model that gave it.
 *
 * Order (first that applies):
 * 1. Azure: no OPENAI_API_KEY; an Azure key (AZURE_OPENAI_API_KEY/AZURE_API_KEY) or client
 *    credentials (AZURE_CLIENT_ID + AZURE_CLIENT_SECRET + AZURE_TENANT_ID); AZURE_DEPLOYMENT_NAME
 *    and AZURE_OPENAI_DEPLOYMENT_NAME both set → `azure:chat:<AZURE_OPENAI_DEPLOYMENT_NAME>`.
 *    Embeddings: AZURE_OPENAI_EMBEDDING_DEPLOYMENT_NAME, else Google AI Studio, else Mistral, else
 *    Vertex, else OpenAI's (promptfoo's Voyage choice is not offered by assay).
 * 2. Anthropic: ANTHROPIC_API_KEY and no OPENAI_API_KEY → claude-sonnet-4-6 (OpenAI embeddings).
 * 3. Google AI Studio: GEMINI_API_KEY/GOOGLE_API_KEY/PALM_API_KEY, no OpenAI or Anthropic key →
 *    `google:gemini-3.8-flash` (Vertex embeddings, as promptfoo).
 * 4. With none of the above: Google application default credentials → `vertex:gemini-3.8-flash`
 *    (region global); else MISTRAL_API_KEY → mistral-large-latest; else XAI_API_KEY → grok-4.3.
 *    (promptfoo's next choice, the Codex SDK, needs a package assay does not run.)
 * 5. OpenAI: gpt-5.6-sol and text-embedding-3-large — here only when OPENAI_API_KEY is set: with no
 *    usable key at all, the suite keeps no grader and the refusal names these variables.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProviderSpec } from '../../core/types.js';

export const DEFAULT_OPENAI_GRADER = 'openai:chat:gpt-5.6-sol';
export const DEFAULT_OPENAI_EMBEDDER = 'openai:embedding:text-embedding-3-large';
export const DEFAULT_ANTHROPIC_GRADER = 'anthropic:messages:claude-sonnet-4-6';
export const DEFAULT_GOOGLE_GRADER = 'google:gemini-3.8-flash';
export const DEFAULT_VERTEX_GRADER = 'vertex:gemini-3.8-flash';
export const DEFAULT_VERTEX_EMBEDDER = 'vertex:embedding:gemini-embedding-001';
export const DEFAULT_GOOGLE_EMBEDDER = 'google:embedding:gemini-embedding-001';
export const DEFAULT_MISTRAL_GRADER = 'mistral:mistral-large-latest';
export const DEFAULT_MISTRAL_EMBEDDER = 'mistral:embedding:mistral-embed';
export const DEFAULT_XAI_GRADER = 'xai:grok-4.3';

/** What the refusal says when nothing in the environment chooses a grader. */
export const GRADER_VARIABLES =
  'OPENAI_API_KEY, ANTHROPIC_API_KEY, AZURE_API_KEY or AZURE_OPENAI_API_KEY (with AZURE_DEPLOYMENT_NAME and AZURE_OPENAI_DEPLOYMENT_NAME), GEMINI_API_KEY or GOOGLE_API_KEY, Google application default credentials (GOOGLE_APPLICATION_CREDENTIALS), MISTRAL_API_KEY or XAI_API_KEY';

export type GraderChoice = { spec: ProviderSpec; reason: string } | { hint: string };

type Env = Record<string, string | undefined>;

/** Whether Google application default credentials exist (the key file a variable names, or gcloud's). */
export function hasGoogleDefaultCredentials(env: Env): boolean {
  const file = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (file) return existsSync(file);
  const home = env.HOME ?? homedir();
  const configDir = env.CLOUDSDK_CONFIG ?? join(home, '.config', 'gcloud');
  return existsSync(join(configDir, 'application_default_credentials.json'));
}

/** The grader promptfoo would use in this environment, with the reason; or what would choose one. */
export function promptfooDefaultGrader(env: Env): GraderChoice {
  const has = (name: string): boolean => typeof env[name] === 'string' && env[name] !== '';
  const first = (...names: string[]): string | undefined => names.find(has);
  const openai = has('OPENAI_API_KEY');
  const anthropic = has('ANTHROPIC_API_KEY');
  const google = first('GEMINI_API_KEY', 'GOOGLE_API_KEY', 'PALM_API_KEY');
  const azureKey = first('AZURE_OPENAI_API_KEY', 'AZURE_API_KEY');
  const azureClient = has('AZURE_CLIENT_ID') && has('AZURE_CLIENT_SECRET') && has('AZURE_TENANT_ID');
  const mistral = has('MISTRAL_API_KEY');
  const xai = has('XAI_API_KEY');
  const pick = (
    id: string,
    embedding: string,
    reason: string,
    config?: Record<string, unknown>,
  ): GraderChoice => ({
    spec: { id, ...(config ? { config } : {}), embedding: { id: embedding } },
    reason: `promptfoo's default grader, since ${reason}`,
  });

  if (
    !openai &&
    (azureKey || azureClient) &&
    has('AZURE_DEPLOYMENT_NAME') &&
    has('AZURE_OPENAI_DEPLOYMENT_NAME')
  ) {
    const embedding = has('AZURE_OPENAI_EMBEDDING_DEPLOYMENT_NAME')
      ? `azure:embedding:${env.AZURE_OPENAI_EMBEDDING_DEPLOYMENT_NAME}`
      : google
        ? DEFAULT_GOOGLE_EMBEDDER
        : mistral
          ? DEFAULT_MISTRAL_EMBEDDER
          : hasGoogleDefaultCredentials(env)
            ? DEFAULT_VERTEX_EMBEDDER
            : DEFAULT_OPENAI_EMBEDDER;
    return pick(
      `azure:chat:${env.AZURE_OPENAI_DEPLOYMENT_NAME}`,
      embedding,
      `${azureKey ?? 'Azure client credentials'}, AZURE_DEPLOYMENT_NAME and AZURE_OPENAI_DEPLOYMENT_NAME are set and OPENAI_API_KEY is not`,
    );
  }
  if (!openai && anthropic)
    return pick(
      DEFAULT_ANTHROPIC_GRADER,
      DEFAULT_OPENAI_EMBEDDER,
      'ANTHROPIC_API_KEY is set and OPENAI_API_KEY is not',
    );
  if (!openai && !anthropic && google)
    return pick(
      DEFAULT_GOOGLE_GRADER,
      DEFAULT_VERTEX_EMBEDDER,
      `${google} is set and neither OPENAI_API_KEY nor ANTHROPIC_API_KEY is`,
    );
  // promptfoo's fallbacks: no Azure choice (above), and no OpenAI, Anthropic or Google key.
  if (!openai && !anthropic && !google) {
    const none = 'none of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY/GOOGLE_API_KEY is set';
    if (hasGoogleDefaultCredentials(env))
      return pick(
        DEFAULT_VERTEX_GRADER,
        DEFAULT_VERTEX_EMBEDDER,
        `Google application default credentials exist and ${none}`,
        {
          region: 'global',
        },
      );
    if (mistral)
      return pick(DEFAULT_MISTRAL_GRADER, DEFAULT_MISTRAL_EMBEDDER, `MISTRAL_API_KEY is set and ${none}`);
    if (xai) return pick(DEFAULT_XAI_GRADER, DEFAULT_OPENAI_EMBEDDER, `XAI_API_KEY is set and ${none}`);
  }
  if (openai) return pick(DEFAULT_OPENAI_GRADER, DEFAULT_OPENAI_EMBEDDER, 'OPENAI_API_KEY is set');
  return { hint: `promptfoo would choose one from ${GRADER_VARIABLES}, and none is set` };
}
