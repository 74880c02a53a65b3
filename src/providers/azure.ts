/**
 * Azure OpenAI, as promptfoo 0.123.1 names it: `azure:chat:<deployment>`,
 * `azure:completion:<deployment>`, `azure:embedding:<deployment>` (also `azureopenai:`). The
 * OpenAI mapping (openai.ts) with Azure's URL and key strategy, not a copy:
 * - URL: `{base}/openai/deployments/<deployment>/<route>?api-version=<apiVersion>`, where the base
 *   is `apiBaseUrl` (or AZURE_API_BASE_URL, AZURE_OPENAI_API_BASE_URL, AZURE_OPENAI_BASE_URL), else
 *   `https://<apiHost>` (or AZURE_API_HOST, AZURE_OPENAI_API_HOST); `apiVersion` defaults to
 *   2024-12-01-preview, as promptfoo's.
 * - Key: `apiKey`, `apiKeyEnvar`, AZURE_API_KEY, AZURE_OPENAI_API_KEY, sent as `api-key`. Without a
 *   key, a Microsoft Entra ID bearer token, as promptfoo gets one: client credentials
 *   (`azureClientId`/AZURE_CLIENT_ID, `azureClientSecret`/AZURE_CLIENT_SECRET,
 *   `azureTenantId`/AZURE_TENANT_ID; `azureAuthorityHost`/AZURE_AUTHORITY_HOST; scope
 *   `azureTokenScope`/AZURE_TOKEN_SCOPE, default https://cognitiveservices.azure.com/.default)
 *   exchanged at `{authority}/{tenant}/oauth2/v2.0/token`. promptfoo's other route, the Azure CLI's
 *   login, is not taken: the message says which variables to set.
 * - Body: promptfoo's defaults (`max_tokens` 1024, `temperature` 0, `top_p` 1, both penalties 0;
 *   `omitDefaults: true` drops them); a reasoning deployment (o1/o3/o4/gpt-5…, or
 *   `isReasoningModel: true`) gets `max_completion_tokens` and `reasoning_effort` (medium) instead.
 * - Answers are structured, in the dialects `azure-chat` and `azure-completion` (promptfoo's Azure
 *   providers read them their own way). Azure's content filter answers HTTP 400 with
 *   `{error: {code: 'content_filter', status: 400, message}}`: an answer, as in promptfoo (a
 *   filter refusal block holding the message, finish reason `content_filter`), not a failure.
 */
import type { ProviderSpec } from '../core/types.js';
import { createHttpApiProvider, type Parsed } from './http-api.js';
import { type Config, configError, isRecord, nonEmpty, poolSize } from './http-kit.js';
import { errorMessageFromBody, sendOnce } from './http-transport.js';
import { openAiApi } from './openai.js';
import type { Provider, ProviderContext } from './types.js';

export const AZURE_API_VERSION = '2024-12-01-preview';
export const AZURE_KEY_VARIABLES = ['AZURE_API_KEY', 'AZURE_OPENAI_API_KEY'] as const;
const BASE_VARIABLES = ['AZURE_API_BASE_URL', 'AZURE_OPENAI_API_BASE_URL', 'AZURE_OPENAI_BASE_URL'];
const HOST_VARIABLES = ['AZURE_API_HOST', 'AZURE_OPENAI_API_HOST'];

/** Whether a deployment is a reasoning model, by promptfoo's rule (its name, or the config says). */
export function isAzureReasoningModel(name: string, config: Config): boolean {
  if (config.isReasoningModel === true || config.o1 === true) return true;
  const n = name.toLowerCase();
  return (
    /^(o1|o3|o4|gpt-5)/.test(n) ||
    /-(o1|o3|o4|gpt-5)/.test(n) ||
    /deepseek[-_]r1|phi-4-(mini-)?reasoning|mai-thinking|mai-ds-r1|mai-reasoning/.test(n) ||
    (n.includes('grok') && n.includes('reasoning'))
  );
}

/** The Azure base URL a config and environment give, or undefined. */
export function azureBaseUrl(config: Config, env: Record<string, string | undefined>): string | undefined {
  const base = nonEmpty(config.apiBaseUrl) ?? BASE_VARIABLES.map((n) => nonEmpty(env[n])).find(Boolean);
  if (base) return base.replace(/\/+$/, '');
  const host = (nonEmpty(config.apiHost) ?? HOST_VARIABLES.map((n) => nonEmpty(env[n])).find(Boolean))
    ?.replace(/^https?:\/\//, '')
    .replace(/\/+$/, '');
  return host ? `https://${host}` : undefined;
}

/** The Azure provider making one attempt per call (the registry wraps it in the call policy). */
export function createAzureAttempts(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  const config: Config = spec.config ?? {};
  const match = /^(?:azure|azureopenai):(chat|completion|embeddings?):?(.*)$/.exec(spec.id);
  const kind = match?.[1] ?? 'chat';
  const embedding = kind.startsWith('embedding');
  const deployment = match?.[2] || (embedding ? 'text-embedding-ada-002' : '');
  const base = azureBaseUrl(config, ctx.env);
  if (!base)
    throw configError(
      spec,
      `${spec.id}: no Azure endpoint: set the provider's apiHost (or ${HOST_VARIABLES.join(', ')}) or apiBaseUrl (or ${BASE_VARIABLES.join(', ')})`,
    );
  const version = encodeURIComponent(nonEmpty(config.apiVersion) ?? AZURE_API_VERSION);
  const at = (route: string) =>
    `/openai/deployments/${encodeURIComponent(deployment)}/${route}?api-version=${version}`;
  const omit = config.omitDefaults === true;
  const reasoning = !embedding && isAzureReasoningModel(nonEmpty(config.modelName) ?? deployment, config);
  const defaults: Record<string, unknown> = omit
    ? {}
    : reasoning
      ? { reasoning_effort: 'medium', top_p: 1, presence_penalty: 0, frequency_penalty: 0 }
      : { max_tokens: 1024, temperature: 0, top_p: 1, presence_penalty: 0, frequency_penalty: 0 };
  if (kind === 'completion' && !omit) defaults.best_of = 1;
  const entra = entraCredentials(config, ctx.env);
  return createHttpApiProvider(
    spec,
    ctx,
    now,
    openAiApi(spec, deployment, embedding, {
      service: 'Azure OpenAI',
      idForm: 'azure:chat:<deployment>',
      baseUrl: { config: base, env: [], default: base },
      route: at(kind === 'completion' ? 'completions' : 'chat/completions'),
      embedRoute: at('embeddings'),
      key: {
        env: AZURE_KEY_VARIABLES,
        send: { kind: 'header', name: 'api-key' },
        required: 'always',
        hint: `or ${AZURE_KEY_VARIABLES[1]}, or AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and AZURE_TENANT_ID for an Entra ID token (assay does not use the Azure CLI's login)`,
      },
      bearerToken: entra ? (signal) => entraToken(entra, ctx, signal) : undefined,
      extraCredentials: entra ? [entra.secret] : [],
      extraParams: ['best_of', 'functions', 'function_call', 'deployment_id', 'data_sources'],
      defaults,
      completion: kind === 'completion',
      dialect: kind === 'completion' ? 'azure-completion' : 'azure-chat',
      refusals: {
        statuses: [400],
        parse: (_status, text) =>
          contentFilterAnswer(text, kind === 'completion' ? 'azure-completion' : 'azure-chat'),
      },
      adjust: (body) => {
        if (reasoning) {
          // A reasoning deployment takes max_completion_tokens (the config's, else its max_tokens, else 1024) and no temperature.
          const limit = body.max_completion_tokens ?? body.max_tokens ?? (omit ? undefined : 1024);
          delete body.max_tokens;
          delete body.temperature;
          if (limit !== undefined) body.max_completion_tokens = limit;
        }
        const system = nonEmpty(config.systemPrompt);
        if (system && Array.isArray(body.messages))
          body.messages = [{ role: 'system', content: system }, ...body.messages];
      },
      describe: { deployment, apiVersion: decodeURIComponent(version), kind },
    }),
  );
}

/**
 * Azure's content filter refusing a request (HTTP 400, `error.code` `content_filter`, `error.status`
 * 400, as promptfoo tells it): the filter's message as the answer, finish reason `content_filter`.
 * Any other 400 body is undefined: an ordinary failure.
 */
export function contentFilterAnswer(text: string, dialect: string): Parsed | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (error === undefined || error.code !== 'content_filter' || error.status !== 400) return undefined;
  const message = typeof error.message === 'string' ? error.message : '';
  return {
    answer: {
      api: dialect,
      blocks: [{ type: 'refusal', text: message, by: 'filter' }],
      finishReason: 'content_filter',
    },
  };
}

interface EntraCredentials {
  tenant: string;
  clientId: string;
  secret: string;
  authority: string;
  scope: string;
}

/** Entra ID client credentials from the config or the environment (all three needed), as promptfoo reads them. */
function entraCredentials(
  config: Config,
  env: Record<string, string | undefined>,
): EntraCredentials | undefined {
  const read = (key: string, name: string) => nonEmpty(config[key]) ?? nonEmpty(env[name]);
  const secret = read('azureClientSecret', 'AZURE_CLIENT_SECRET');
  const clientId = read('azureClientId', 'AZURE_CLIENT_ID');
  const tenant = read('azureTenantId', 'AZURE_TENANT_ID');
  if (!secret || !clientId || !tenant) return undefined;
  return {
    tenant,
    clientId,
    secret,
    authority: (
      read('azureAuthorityHost', 'AZURE_AUTHORITY_HOST') ?? 'https://login.microsoftonline.com'
    ).replace(/\/+$/, ''),
    scope: read('azureTokenScope', 'AZURE_TOKEN_SCOPE') ?? 'https://cognitiveservices.azure.com/.default',
  };
}

/** An access token for the client credentials (OAuth 2.0 client credentials grant). */
async function entraToken(
  c: EntraCredentials,
  ctx: ProviderContext,
  signal: AbortSignal | undefined,
): Promise<{ token: string; expiresInMs: number } | { error: string }> {
  let url: URL;
  try {
    url = new URL(`${c.authority}/${encodeURIComponent(c.tenant)}/oauth2/v2.0/token`);
  } catch {
    return { error: `invalid Entra ID authority host "${c.authority}"` };
  }
  const body = new URLSearchParams({
    client_id: c.clientId,
    client_secret: c.secret,
    scope: c.scope,
    grant_type: 'client_credentials',
  }).toString();
  const sent = await sendOnce(
    {
      origin: url.origin,
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal,
    },
    { connections: poolSize(ctx.maxConcurrency) },
  );
  if (!sent.ok)
    return {
      error: `Entra ID token request to ${url.origin} failed (${sent.kind === 'http' ? `HTTP ${sent.status}` : sent.kind}): ${sent.message}; check AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and AZURE_TENANT_ID`,
    };
  try {
    const reply = JSON.parse(sent.body) as { access_token?: unknown; expires_in?: unknown };
    if (typeof reply.access_token !== 'string' || reply.access_token === '')
      return { error: `Entra ID token response has no access_token: ${errorMessageFromBody(sent.body)}` };
    const seconds = Number(reply.expires_in);
    return { token: reply.access_token, expiresInMs: (Number.isFinite(seconds) ? seconds : 3600) * 1000 };
  } catch {
    return { error: `Entra ID token response is not JSON: ${errorMessageFromBody(sent.body)}` };
  }
}
