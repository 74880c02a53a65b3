/**
 * Google's Gemini `generateContent`, as promptfoo 0.123.1 names and configures it:
 *
 * - `google:<model>` (Google AI Studio): `POST {base}/{apiVersion}/models/<model>:generateContent`,
 *   the key in `x-goog-api-key` (`config.apiKey`, `GOOGLE_API_KEY`, `GEMINI_API_KEY`,
 *   `PALM_API_KEY`); base `config.apiHost`/`GOOGLE_API_HOST`/`PALM_API_HOST` (a host, https), else
 *   `config.apiBaseUrl`/`GOOGLE_API_BASE_URL`, else generativelanguage.googleapis.com; API version
 *   `config.apiVersion`, else v1beta.
 * - `vertex:<model>` / `vertex:chat:<model>` (Gemini on Vertex AI):
 *   `POST https://{apiHost}/{v1}/projects/{project}/locations/{region}/publishers/{google}/models/<model>:generateContent`
 *   with an OAuth access token (google-auth.ts) from `config.credentials`, `config.keyFilename`,
 *   `GOOGLE_APPLICATION_CREDENTIALS` or gcloud's application-default file; or, with an API key
 *   and no credential configured ("express mode"), `/{v1}/publishers/{google}/models/<model>:generateContent`
 *   with `x-goog-api-key`. Project: `config.projectId`, `VERTEX_PROJECT_ID`, `GOOGLE_PROJECT_ID`,
 *   `GOOGLE_CLOUD_PROJECT`, the credential's project. Region: `config.region`, `VERTEX_REGION`,
 *   `GOOGLE_CLOUD_LOCATION`, else `global` without a key (`us-central1` with one). Host:
 *   `config.apiHost`, `VERTEX_API_HOST`, else the region's.
 *
 * The body: `contents` (assistant turns as `model`), the system messages and `config.systemInstruction`
 * as the system instruction, `generationConfig` from `temperature`, `topP`, `topK`,
 * `stopSequences`, `maxOutputTokens` and `config.generationConfig`, `safetySettings`, `tools`
 * (Gemini's own, or OpenAI-style function tools converted), `toolConfig`/`tool_choice`,
 * `responseSchema`, and `passthrough` merged last. The answer: the text parts joined, or the parts
 * as JSON when there is a function call; a blocked prompt or answer is reported as promptfoo
 * reports it (AI Studio: an error; Vertex: a blocked prompt is the output, a blocked answer an
 * error). Usage from `usageMetadata`; cost from promptfoo's prices (google-prices.ts).
 *
 * A host setting may also be a URL (`http://127.0.0.1:8080`): an assay extension for local
 * servers and tests; promptfoo always prefixes `https://`.
 */
import type { ProviderSpec } from '../core/types.js';
import { cloudConfigError, hostBase, namedCloudProvider } from './cloud-kit.js';
import { type GeminiPart, geminiContents } from './content-parts.js';
import {
  CLOUD_PLATFORM_SCOPE,
  credentialSecrets,
  fetchAccessToken,
  findGoogleCredential,
  type GoogleCredential,
} from './google-auth.js';
import { geminiCost } from './google-prices.js';
import { createHttpApiProvider, type Parsed } from './http-api.js';
import { type Config, finite, isRecord, jsonReply, nonEmpty } from './http-kit.js';
import { excerpt } from './http-transport.js';
import type { AttemptFailure, Provider, ProviderContext, ProviderRequest } from './types.js';

const AI_STUDIO_HOST = 'generativelanguage.googleapis.com';
const GENERATE_CONTENT_PREFIXES = ['gemini', 'gemma', 'codegemma', 'paligemma'];
/** Config keys that shape the request, read from the provider config and the prompt's own config. */
const PARAM_KEYS = [
  'temperature',
  'topP',
  'topK',
  'stopSequences',
  'maxOutputTokens',
  'generationConfig',
  'safetySettings',
  'systemInstruction',
  'tools',
  'tool_choice',
  'toolConfig',
  'responseSchema',
  'context',
  'examples',
] as const;
/** Newest Flash models ignore sampling parameters and refuse penalties: promptfoo drops them. */
const FLASH_WITHOUT_SAMPLING = [
  'gemini-3.8-flash',
  'gemini-3.7-flash',
  'gemini-3.6-flash',
  'gemini-3.5-flash-lite',
];
const SAMPLING_PARAMS = [
  'temperature',
  'topP',
  'top_p',
  'topK',
  'top_k',
  'candidateCount',
  'candidate_count',
  'presencePenalty',
  'presence_penalty',
  'frequencyPenalty',
  'frequency_penalty',
];
/** Finish reasons that mean the answer was withheld. */
const BLOCKED_AI_STUDIO = ['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII'];
const BLOCKED_VERTEX = [...BLOCKED_AI_STUDIO, 'IMAGE_SAFETY'];

/** The Google AI Studio or Vertex provider making one attempt per call. */
export function createGoogleAttempts(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  return spec.id.startsWith('vertex:') ? createVertex(spec, ctx, now) : createAiStudio(spec, ctx, now);
}

/** The model of a `google:`/`palm:` id, or a refusal naming what promptfoo does with the id. */
function aiStudioModel(spec: ProviderSpec): string {
  const service = 'Google AI Studio';
  const parts = spec.id.split(':');
  if (parts.length >= 3) {
    const kind = parts[1];
    if (['live', 'image', 'video'].includes(kind))
      throw cloudConfigError(
        spec,
        service,
        `"${spec.id}": google:${kind}: providers are not supported by assay (google:<model> answers chats)`,
      );
    if (kind === 'chat')
      throw cloudConfigError(
        spec,
        service,
        `"${spec.id}": promptfoo 0.123.1 reads the model of google:chat:<model> as "chat" (on the retired PaLM route, v1beta3/models/chat:generateMessage) and every call fails; write google:${parts.slice(2).join(':')}`,
      );
  }
  if (parts.length >= 3 && (parts[1] === 'embedding' || parts[1] === 'embeddings'))
    return parts.slice(2).join(':');
  const model = parts[1] ?? '';
  if (model.includes('-image'))
    throw cloudConfigError(spec, service, `"${spec.id}": image-generation models are not supported by assay`);
  if (model && !GENERATE_CONTENT_PREFIXES.some((p) => model.startsWith(p)))
    throw cloudConfigError(
      spec,
      service,
      `"${spec.id}": only generateContent models (gemini…, gemma…) are supported; PaLM's generateMessage API is retired`,
    );
  return model;
}

function createAiStudio(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  const service = 'Google AI Studio';
  const config: Config = spec.config ?? {};
  const model = aiStudioModel(spec);
  const embedding = /^(?:google|palm):embeddings?:/.test(spec.id);
  const host =
    nonEmpty(config.apiHost) ?? nonEmpty(ctx.env.GOOGLE_API_HOST) ?? nonEmpty(ctx.env.PALM_API_HOST);
  const base = host
    ? hostBase(host)
    : (nonEmpty(config.apiBaseUrl) ?? nonEmpty(ctx.env.GOOGLE_API_BASE_URL) ?? `https://${AI_STUDIO_HOST}`);
  const version =
    nonEmpty(config.apiVersion) ?? (model === 'gemini-2.0-flash-thinking-exp' ? 'v1alpha' : 'v1beta');
  const inner = createHttpApiProvider(spec, ctx, now, {
    service,
    model,
    idForm: 'google:<model>',
    baseUrl: { config: base, env: [], default: base },
    route: `/${version}/models/${model}:generateContent`,
    key: {
      env: ['GOOGLE_API_KEY', 'GEMINI_API_KEY', 'PALM_API_KEY'],
      send: { kind: 'header', name: 'x-goog-api-key' },
      required: 'always',
      hint: "or GEMINI_API_KEY, or the provider's config.apiKey",
    },
    paramKeys: PARAM_KEYS,
    body: (request, params) => geminiBody(model, request, params, false),
    parse: (text, { redact }) =>
      parseGemini(text, redact, false, (tokens) => geminiCost(model, config, tokens, undefined)),
    refuseCalls: embedding
      ? `${spec.id} is an embeddings model: it cannot answer a chat (use google:<model> for that)`
      : undefined,
    // promptfoo embeds one text per embedContent call; the batch route gives the same vectors in one.
    embed: embedding
      ? {
          route: `/${version}/models/${model}:batchEmbedContents`,
          body: (texts) => ({
            requests: texts.map((text) => ({
              model: `models/${model}`,
              content: { parts: [{ text }] },
              ...defined({
                taskType: config.taskType,
                outputDimensionality: config.outputDimensionality,
                title: config.title,
              }),
            })),
          }),
          parse: (text, count, redact) => parseVectors(text, count, redact, 'embeddings', (e) => e.values),
        }
      : undefined,
  });
  return namedCloudProvider(inner, { service, credentials: [], refusedKey: refusedGoogleKey });
}

/** Gemini refuses a wrong key with 400 `API_KEY_INVALID` (not 401): still a refused key. */
function refusedGoogleKey(error: string): string | undefined {
  return /API key not valid|API_KEY_INVALID|API key expired/i.test(error)
    ? `the API key was refused (${error}); check GOOGLE_API_KEY, GEMINI_API_KEY or the provider's config.apiKey`
    : undefined;
}

function createVertex(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  const service = 'Vertex AI';
  const config: Config = spec.config ?? {};
  const parts = spec.id.split(':');
  const kind = parts[1];
  if (['live', 'video'].includes(kind))
    throw cloudConfigError(
      spec,
      service,
      `"${spec.id}": vertex:${kind}: providers are not supported by assay`,
    );
  const embedding = kind === 'embedding' || kind === 'embeddings';
  const model = kind === 'chat' || embedding ? parts.slice(2).join(':') : parts.slice(1).join(':');
  if (model && !embedding && !model.includes('gemini'))
    throw cloudConfigError(
      spec,
      service,
      `"${spec.id}": only Gemini models are supported on Vertex by assay (promptfoo also routes Claude, Llama and PaLM models there)`,
    );
  const env = ctx.env;
  const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env.VERTEX_API_KEY) ?? nonEmpty(env.GOOGLE_API_KEY);
  const oauthConfigured =
    config.credentials !== undefined ||
    nonEmpty(config.keyFilename) !== undefined ||
    (isRecord(config.googleAuthOptions) &&
      (config.googleAuthOptions.keyFilename !== undefined ||
        config.googleAuthOptions.credentials !== undefined));
  const express = apiKey !== undefined && config.expressMode !== false && !oauthConfigured;
  // promptfoo's Vertex embedding provider reads only config.region (default us-central1).
  const region = embedding
    ? (nonEmpty(config.region) ?? 'us-central1')
    : (nonEmpty(config.region) ??
      nonEmpty(env.VERTEX_REGION) ??
      nonEmpty(env.GOOGLE_CLOUD_LOCATION) ??
      (apiKey ? 'us-central1' : 'global'));
  const host = nonEmpty(config.apiHost) ?? nonEmpty(env.VERTEX_API_HOST) ?? regionHost(region);
  const base = hostBase(host);
  const version = nonEmpty(config.apiVersion) ?? nonEmpty(env.VERTEX_API_VERSION) ?? 'v1';
  const publisher = nonEmpty(config.publisher) ?? nonEmpty(env.VERTEX_PUBLISHER) ?? 'google';

  // OAuth: the credential is found now (its file read once); a missing one is reported when called.
  const found = express ? undefined : findGoogleCredential(config, env, ctx.basePath);
  const credential: GoogleCredential | undefined = found && !('error' in found) ? found : undefined;
  const project =
    nonEmpty(config.projectId) ??
    nonEmpty(env.VERTEX_PROJECT_ID) ??
    nonEmpty(env.GOOGLE_PROJECT_ID) ??
    nonEmpty(env.GOOGLE_CLOUD_PROJECT) ??
    credential?.projectId;
  const credentials: string[] = credential ? credentialSecrets(credential) : [];
  let setupError: string | undefined;
  if (!express) {
    if (found && 'error' in found) setupError = found.error;
    else if (!credential)
      setupError =
        'no Google credential: set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, give config.credentials or config.keyFilename, run `gcloud auth application-default login`, or set VERTEX_API_KEY/GOOGLE_API_KEY for express mode (the metadata server of a Google Cloud machine is not consulted)';
    else if (!project)
      setupError =
        'no project: set config.projectId, VERTEX_PROJECT_ID, GOOGLE_CLOUD_PROJECT, or use a key file with project_id';
  }
  const route = express
    ? `/${version}/publishers/${publisher}/models/${model}:generateContent`
    : `/${version}/projects/${project ?? ''}/locations/${region}/publishers/${publisher}/models/${model}:generateContent`;

  let token: { value: string; expiresAtMs: number } | undefined;
  let pending:
    | Promise<
        { headers: Record<string, string> } | { error: string; fatal: boolean; failure?: AttemptFailure }
      >
    | undefined;
  const clock = now ?? Date.now;
  const authorize = async (
    signal: AbortSignal | undefined,
  ): Promise<
    { headers: Record<string, string> } | { error: string; fatal: boolean; failure?: AttemptFailure }
  > => {
    if (setupError) return { error: setupError, fatal: true };
    if (!credential) return { error: 'no Google credential', fatal: true };
    const headers = (value: string): Record<string, string> => ({
      authorization: `Bearer ${value}`,
      ...(credential.type === 'authorized_user' && credential.projectId
        ? { 'x-goog-user-project': credential.projectId }
        : {}),
    });
    if (token && token.expiresAtMs - 60_000 > clock()) return { headers: headers(token.value) };
    pending ??= (async () => {
      const got = await fetchAccessToken(credential, CLOUD_PLATFORM_SCOPE, clock(), signal);
      if ('token' in got) {
        token = { value: got.token, expiresAtMs: got.expiresAtMs };
        if (!credentials.includes(got.token)) credentials.push(got.token);
        // The run keeps it out of every file too (not only out of this provider's answers).
        ctx.addSecret?.(got.token);
        return { headers: headers(got.token) };
      }
      const unreachable = got.code === 'ECONNREFUSED' || got.code === 'ENOTFOUND' || got.code === 'EAI_AGAIN';
      return {
        error: got.error,
        fatal: got.auth || unreachable,
        failure: got.transient ? { transient: true } : undefined,
      };
    })().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  const inner = createHttpApiProvider(spec, ctx, now, {
    service,
    model,
    idForm: 'vertex:<model>',
    baseUrl: { config: base, env: [], default: base },
    route,
    key: express
      ? { env: ['VERTEX_API_KEY', 'GOOGLE_API_KEY'], send: { kind: 'header', name: 'x-goog-api-key' } }
      : { env: [], send: { kind: 'none' } },
    paramKeys: PARAM_KEYS,
    body: (request, params) => geminiBody(model, request, params, true),
    parse: (text, { redact }) =>
      parseGemini(text, redact, true, (tokens) => geminiCost(model, config, tokens, { region })),
    describe: { region, project, publisher, mode: express ? 'express' : 'oauth' },
    refuseCalls: embedding
      ? `${spec.id} is an embeddings model: it cannot answer a chat (use vertex:<model> for that)`
      : undefined,
    embed: embedding
      ? {
          route: route.replace(/:generateContent$/, ':predict'),
          body: (texts) => ({
            instances: texts.map((content) => ({ content })),
            parameters: { autoTruncate: config.autoTruncate || false },
          }),
          parse: (text, count, redact) =>
            parseVectors(text, count, redact, 'predictions', (p) =>
              isRecord(p.embeddings) ? p.embeddings.values : undefined,
            ),
        }
      : undefined,
    extraCredentials: credentials,
    setupError,
    authorize: express ? undefined : (_request, signal) => authorize(signal),
  });
  return namedCloudProvider(inner, {
    service,
    credentials,
    refusedKey: express
      ? refusedGoogleKey
      : (error) =>
          /^authentication failed/.test(error) && credential
            ? error.replace(/; check [^;]*$/, `; check ${credential.source}`)
            : undefined,
  });
}

function regionHost(region: string): string {
  if (region === 'global') return 'aiplatform.googleapis.com';
  if (region === 'us' || region === 'eu') return `aiplatform.${region}.rep.googleapis.com`;
  return `${region}-aiplatform.googleapis.com`;
}

/** The request body, as promptfoo builds it (AI Studio and Vertex differ in key names and order). */
function geminiBody(
  model: string,
  request: ProviderRequest,
  params: Record<string, unknown>,
  vertex: boolean,
): Record<string, unknown> {
  const { contents, systemParts } = geminiContents(request.messages);
  const configSystem = systemInstructionParts(params.systemInstruction);
  const system = [...configSystem, ...systemParts];
  let finalContents = contents;
  let systemInstruction: { parts: GeminiPart[] } | undefined =
    system.length > 0 ? { parts: system } : undefined;
  // Only system messages: promptfoo sends them as the user's turn.
  if (contents.length === 0 && systemParts.length > 0 && configSystem.length === 0) {
    finalContents = [{ role: 'user', parts: systemParts }];
    systemInstruction = undefined;
  }
  const extra = isRecord(params.generationConfig) ? params.generationConfig : {};
  let generationConfig: Record<string, unknown> = vertex
    ? {
        ...defined({
          context: params.context,
          examples: params.examples,
          stopSequences: params.stopSequences,
          temperature: params.temperature,
          maxOutputTokens: params.maxOutputTokens,
          topP: params.topP,
          topK: params.topK,
        }),
        ...extra,
      }
    : {
        ...defined({
          temperature: params.temperature,
          topP: params.topP,
          topK: params.topK,
          stopSequences: params.stopSequences,
          maxOutputTokens: params.maxOutputTokens,
        }),
        ...extra,
      };
  if (
    FLASH_WITHOUT_SAMPLING.some((id) => model.startsWith(id)) ||
    model === 'gemini-flash-latest' ||
    model === 'gemini-flash-lite-latest'
  ) {
    generationConfig = { ...generationConfig };
    for (const name of SAMPLING_PARAMS) delete generationConfig[name];
  }
  const schema =
    typeof params.responseSchema === 'string' ? tryJson(params.responseSchema) : params.responseSchema;
  if (isRecord(schema)) {
    generationConfig.response_schema = schema;
    generationConfig.response_mime_type = 'application/json';
  }
  const tools = geminiTools(params.tools);
  const toolConfig = geminiToolConfig(params.tool_choice, params.toolConfig);
  const safetySettings = Array.isArray(params.safetySettings)
    ? params.safetySettings
        .filter(isRecord)
        .map((s) => ({ category: s.category, threshold: s.threshold || s.probability || '' }))
    : undefined;
  const body: Record<string, unknown> = { contents: finalContents, generationConfig };
  if (safetySettings) body.safetySettings = safetySettings;
  if (toolConfig) body.toolConfig = toolConfig;
  if (tools) body.tools = tools;
  if (systemInstruction) body[vertex ? 'systemInstruction' : 'system_instruction'] = systemInstruction;
  return body;
}

function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `config.systemInstruction`: a text, or `{parts: [...]}`. */
function systemInstructionParts(value: unknown): GeminiPart[] {
  if (typeof value === 'string' && value !== '') return [{ text: value }];
  if (isRecord(value) && Array.isArray(value.parts)) return value.parts.filter(isRecord) as GeminiPart[];
  return [];
}

/** Gemini tools: its own (`functionDeclarations`, snake case accepted), or OpenAI function tools converted. */
function geminiTools(value: unknown): unknown[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const first = value[0];
  const openAi =
    isRecord(first) &&
    first.type === 'function' &&
    isRecord(first.function) &&
    typeof first.function.name === 'string';
  const tools: Record<string, unknown>[] = openAi
    ? [
        {
          functionDeclarations: value.filter(isRecord).map((t) => {
            const fn = t.function as Record<string, unknown>;
            return defined({
              name: fn.name,
              description: fn.description || undefined,
              parameters: fn.parameters,
            });
          }),
        },
      ]
    : value.filter(isRecord).map((t) => ({ ...t }));
  return tools.map((tool) => {
    const out = { ...tool };
    if (Array.isArray(out.function_declarations)) {
      const names = new Set(
        Array.isArray(out.functionDeclarations)
          ? out.functionDeclarations.map((d) => (d as { name?: unknown }).name)
          : [],
      );
      out.functionDeclarations = [
        ...(Array.isArray(out.functionDeclarations) ? out.functionDeclarations : []),
        ...out.function_declarations.filter((d) => !names.has((d as { name?: unknown }).name)),
      ];
      delete out.function_declarations;
    }
    if (out.google_search && !out.googleSearch) out.googleSearch = out.google_search;
    if (out.code_execution && !out.codeExecution) out.codeExecution = out.code_execution;
    if (Array.isArray(out.functionDeclarations))
      out.functionDeclarations = out.functionDeclarations.filter(isRecord).map((d) => ({
        ...d,
        parameters: d.parameters ? geminiSchema(d.parameters) : undefined,
      }));
    return out;
  });
}

const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'propertyOrdering',
  'items',
]);
const SCHEMA_TYPES: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'STRING',
};

/** A JSON Schema as Gemini's function declarations take it: its subset of keys, types upper-cased. */
function geminiSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYS.has(key)) continue;
    if (key === 'type' && typeof value === 'string')
      out.type = SCHEMA_TYPES[value.toLowerCase()] ?? value.toUpperCase();
    else if (key === 'properties' && isRecord(value))
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, isRecord(v) ? geminiSchema(v) : v]),
      );
    else if (key === 'items' && isRecord(value)) out.items = geminiSchema(value);
    else out[key] = value;
  }
  return out;
}

/** `toolConfig` from OpenAI's `tool_choice` and the config's own `toolConfig` (mode upper-cased). */
function geminiToolConfig(choice: unknown, own: unknown): Record<string, unknown> | undefined {
  let fromChoice: Record<string, unknown> | undefined;
  if (choice === 'auto') fromChoice = { functionCallingConfig: { mode: 'AUTO' } };
  else if (choice === 'none') fromChoice = { functionCallingConfig: { mode: 'NONE' } };
  else if (choice === 'required') fromChoice = { functionCallingConfig: { mode: 'ANY' } };
  else if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string')
    fromChoice = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  let ownConfig: Record<string, unknown> | undefined;
  if (isRecord(own)) {
    ownConfig = { ...own };
    if (isRecord(own.functionCallingConfig)) {
      const fcc = { ...own.functionCallingConfig };
      if (typeof fcc.mode === 'string') fcc.mode = fcc.mode.toUpperCase();
      ownConfig.functionCallingConfig = fcc;
    }
  }
  if (!fromChoice && !ownConfig) return undefined;
  const merged: Record<string, unknown> = { ...fromChoice, ...ownConfig };
  const fcc = {
    ...(isRecord(fromChoice?.functionCallingConfig) ? fromChoice.functionCallingConfig : {}),
    ...(isRecord(ownConfig?.functionCallingConfig) ? ownConfig.functionCallingConfig : {}),
  };
  if (Object.keys(fcc).length > 0) merged.functionCallingConfig = fcc;
  return merged;
}

/** Flagged safety ratings, `CATEGORY: PROBABILITY` (BLOCKED when the rating blocked). */
function flagged(ratings: unknown, withBlocked: boolean): string[] {
  if (!Array.isArray(ratings)) return [];
  return ratings
    .filter(isRecord)
    .filter((r) => r.probability !== 'NEGLIGIBLE' || (withBlocked && r.blocked))
    .map(
      (r) => `${String(r.category)}: ${String(r.probability)}${withBlocked && r.blocked ? ' (BLOCKED)' : ''}`,
    );
}

/** Reads a generateContent answer as promptfoo does (AI Studio's rules, or Vertex's). */
function parseGemini(
  text: string,
  redact: (s: string) => string,
  vertex: boolean,
  cost: (tokens: { prompt?: number; completion?: number; cached?: number }) => number | undefined,
): Parsed {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const data = Array.isArray(reply.value) ? reply.value[0] : reply.value;
  if (!isRecord(data)) return { output: null, error: redact(`malformed response: ${excerpt(text)}`) };
  const meta = isRecord(data.usageMetadata) ? data.usageMetadata : {};
  const promptCount = finite(meta.promptTokenCount);
  const toolPrompt = finite(meta.toolUsePromptTokenCount) ?? 0;
  const candidatesCount = finite(meta.candidatesTokenCount);
  const thoughts = finite(meta.thoughtsTokenCount) ?? 0;
  const usage = {
    prompt: promptCount === undefined ? (vertex ? toolPrompt : undefined) : promptCount + toolPrompt,
    completion: candidatesCount ?? (vertex ? 0 : undefined),
    total: finite(meta.totalTokenCount) ?? (vertex ? 0 : undefined),
  };
  const feedback = isRecord(data.promptFeedback) ? data.promptFeedback : undefined;
  if (vertex && typeof data.error === 'object' && isRecord(data.error))
    return { output: null, error: redact(`Error ${String(data.error.code)}: ${String(data.error.message)}`) };
  if (vertex && feedback && typeof feedback.blockReason === 'string') {
    // Vertex: promptfoo answers the block message as the output (flagged as a guardrail).
    const reason =
      typeof feedback.blockReasonMessage === 'string'
        ? feedback.blockReasonMessage
        : `Content was blocked due to ${feedback.blockReason === 'MODEL_ARMOR' ? 'Model Armor' : 'safety settings'}: ${feedback.blockReason}`;
    return {
      output: reason,
      finishReason: 'blocked',
      usage: { prompt: promptCount ?? 0, completion: candidatesCount ?? 0, total: usage.total },
    };
  }
  const candidates = Array.isArray(data.candidates) ? data.candidates : [];
  const candidate = candidates[0];
  if (!isRecord(candidate)) {
    let why = 'no candidates in the response';
    if (feedback && typeof feedback.blockReason === 'string') {
      const flags = flagged(feedback.safetyRatings, false);
      why = `the prompt was blocked: ${feedback.blockReason}${flags.length > 0 ? ` (safety ratings: ${flags.join(', ')})` : ''}`;
    } else if (feedback) {
      const flags = flagged(feedback.safetyRatings, false);
      if (flags.length > 0)
        why = `no candidates; safety filters may have blocked the response: ${flags.join(', ')}`;
    }
    return { output: null, error: redact(`${why}: ${excerpt(text)}`), usage };
  }
  const finish = typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined;
  if (finish && (vertex ? BLOCKED_VERTEX : BLOCKED_AI_STUDIO).includes(finish)) {
    const flags = flagged(candidate.safetyRatings, true);
    return {
      output: null,
      error: `the answer was blocked (finish reason ${finish})${flags.length > 0 ? `; safety ratings: ${flags.join(', ')}` : ''}`,
      finishReason: finish,
    };
  }
  if (vertex && finish && finish !== 'STOP' && finish !== 'MAX_TOKENS')
    return { output: null, error: redact(`finish reason ${finish}: ${excerpt(text)}`), finishReason: finish };
  const content = isRecord(candidate.content) ? candidate.content : undefined;
  const parts = content && Array.isArray(content.parts) ? content.parts.filter(isRecord) : undefined;
  if (!parts || parts.length === 0)
    return {
      output: null,
      error: redact(`no output in the response: ${excerpt(text)}`),
      ...(finish ? { finishReason: finish } : {}),
    };
  const allText = parts.every((p) => 'text' in p);
  const out: Parsed = allText
    ? { output: parts.map((p) => String(p.text)).join('') }
    : {
        output: JSON.stringify(parts),
        nonText: parts.some((p) => 'functionCall' in p) ? 'tool calls' : 'non-text parts',
      };
  if (out.output === '')
    return { output: null, error: redact(`no output in the response: ${excerpt(text)}`) };
  if (finish) out.finishReason = finish;
  out.usage = usage;
  const priced = cost({
    prompt: usage.prompt,
    completion: candidatesCount === undefined ? undefined : candidatesCount + thoughts,
    cached: finite(meta.cachedContentTokenCount),
  });
  if (priced !== undefined) out.cost = priced;
  return out;
}

/** Vectors from `{<list>: [...]}`, one per text, each found by `values` in its item. */
function parseVectors(
  text: string,
  count: number,
  redact: (s: string) => string,
  list: string,
  values: (item: Record<string, unknown>) => unknown,
): { embeddings?: number[][]; error?: string } {
  const reply = jsonReply(text, redact, 'embeddings response');
  if ('error' in reply) return reply;
  const items = isRecord(reply.value) ? reply.value[list] : undefined;
  if (!Array.isArray(items) || items.length !== count)
    return {
      error: redact(`malformed embeddings response (expected ${count} vectors in ${list}): ${excerpt(text)}`),
    };
  const embeddings: number[][] = [];
  for (const item of items) {
    const vector = isRecord(item) ? values(item) : undefined;
    if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return {
        error: redact(`malformed embeddings response (an item has no numeric values): ${excerpt(text)}`),
      };
    embeddings.push(vector as number[]);
  }
  return { embeddings };
}
