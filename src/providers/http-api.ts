/**
 * The one HTTP model-provider skeleton. A provider file describes its service's wire mapping in an
 * `HttpApi` definition and calls `createHttpApiProvider`; the skeleton owns everything else: the
 * key (config → variables), the base URL (config → variables → default), how the key is sent, the
 * "no API key" refusal, the redaction of every credential, headers, the passthrough merge, the
 * response cache key, failed attempts described for the call policy (retry classification lives
 * in http-transport.ts), and the provider's declared `credentials` (never written anywhere).
 *
 * Interface, for a new provider (see openai.ts, anthropic.ts, ollama.ts, presets.ts):
 *
 *   createHttpApiProvider(spec, ctx, now, {
 *     service: 'Groq',                       // named in every message ("Groq: no API key …")
 *     model, idForm: 'groq:<model>',         // the model the id names; the id form for "names no model"
 *     baseUrl: { config: nonEmpty(config.apiBaseUrl), env: ['GROQ_BASE_URL'], default: 'https://…/v1' },
 *     route: '/chat/completions',            // or (base) => suffix; appended to the base URL
 *     key: {
 *       env: ['GROQ_API_KEY'],               // tried in order after config.apiKey and config.apiKeyEnvar
 *       send: { kind: 'bearer' },            // | {kind:'header', name:'x-api-key'} | {kind:'query', name:'key'} | {kind:'none'}
 *       required: 'always',                  // | a list of host names where a missing key is refused | undefined
 *       hint: 'or set GROQ_BASE_URL …',      // appended to the "no API key" message
 *     },
 *     headers: { 'anthropic-version': '…' }, // fixed headers (config `headers:` are added over them)
 *     paramKeys: ['temperature', …],         // config keys (and the prompt's params) copied into the body
 *     body: (request, params) => ({ model, messages: …, ...params }),  // config.passthrough is merged after
 *     parse: (text, { pricing, redact }) => ({ output, usage, … }),   // a 2xx body → the answer, or `error`
 *     embed: { route: '/embeddings', body: (texts) => …, parse: (text, count, redact) => … },  // optional
 *     extraCredentials: [token],             // other inputs that are secrets (a header value, a password)
 *   });
 *
 * Every value the key lookup finds, every value of a credential header (`headers:` whose name
 * looks like auth/key/token/secret/cookie/subscription) and `extraCredentials` become the provider's
 * `credentials`: redacted from its messages here, and from every file a run writes (evaluate.ts).
 */
import { urlCredentials } from '../core/secrets.js';
import type { ProviderSpec } from '../core/types.js';
import { attemptAbortOf } from './call-policy.js';
import {
  attemptDescriber,
  type Config,
  configError,
  configHeaders,
  configuredPricing,
  credentialHeaderValues,
  type Endpoint,
  endpointAt,
  isRecord,
  keyedHeaders,
  nonEmpty,
  type Pricing,
  poolSize,
  postJson,
  redactor,
  routePath,
  streamTiming,
  timedLines,
} from './http-kit.js';
import { errorMessageFromBody, isRetryableStatus } from './http-transport.js';
import type {
  AttemptFailure,
  EmbeddingRequest,
  EmbeddingResponse,
  Provider,
  ProviderContext,
  ProviderRequest,
  ProviderResponse,
} from './types.js';

/** How the key travels: `Authorization: Bearer`, a header of its own, a query parameter, or not at all. */
export type KeyScheme =
  | { kind: 'bearer' }
  | { kind: 'header'; name: string; prefix?: string }
  | { kind: 'query'; name: string }
  | { kind: 'none' };

/** A parsed answer, before the skeleton adds the latency. */
export type Parsed = Omit<ProviderResponse, 'latencyMs' | 'attempts'>;

export interface ParseTools {
  pricing: Pricing | undefined;
  redact: (text: string) => string;
}

export interface HttpApi {
  /** The service, as messages name it ("OpenAI", "Anthropic", "Ollama", "Groq"). */
  service: string;
  /** The model the id names (empty: refused as naming no model). */
  model: string;
  /** The id's form, for "names no model" (`openai:chat:<model>`). */
  idForm: string;
  baseUrl: {
    /** The config's own base (apiBaseUrl, or apiHost made a URL); default: `config.apiBaseUrl`. */
    config?: string;
    /** Variables that may hold the base URL, in order. */
    env: readonly string[];
    default: string;
  };
  /** The call's route after the base URL (`/chat/completions`), or a function of the base. */
  route: string | ((base: string) => string);
  key: {
    /** Variables holding the key, in order, after `config.apiKey` and `config.apiKeyEnvar`. */
    env: readonly string[];
    send: KeyScheme;
    /**
     * When a missing key is refused (fatal, before any request): always, or when the base URL's
     * host is one of these (the service's own; a local server needs none). Default: never.
     */
    required?: 'always' | readonly string[];
    /** Appended to "no API key for <base>: set <VAR>" (", or set OPENAI_BASE_URL to …"). */
    hint?: string;
  };
  /**
   * Why no call can be made at all, found by the service's own set-up (no cloud credential): the
   * provider is `unusable`, so a run refuses it before its first call.
   */
  setupError?: string;
  /** Fixed request headers; the config's `headers:` go over them. */
  headers?: Record<string, string>;
  /** Config keys that are request fields: the config's values, then the prompt's own (`request.params`). */
  paramKeys: readonly string[];
  /** The request body, exactly as sent but for `config.passthrough` (merged after, unless `ownPassthrough`). */
  body(request: ProviderRequest, params: Record<string, unknown>): Record<string, unknown>;
  /** The body merges `config.passthrough` itself (Ollama nests its `options`). */
  ownPassthrough?: boolean;
  /** Reads a 2xx body. Never throws: a malformed body is an `error` naming the problem. */
  parse(text: string, tools: ParseTools): Parsed;
  /**
   * Statuses besides 2xx whose body may be the service's answer rather than a failure (Azure's
   * HTTP 400 `content_filter`: an answer in promptfoo, its filter's message with finish reason
   * `content_filter`). `parse` reads such a body: the answer, or undefined for an ordinary failure
   * (then described as any failed attempt is).
   */
  refusals?: {
    statuses: readonly number[];
    parse(status: number, text: string, tools: ParseTools): Parsed | undefined;
  };
  /** Embeddings, for models that offer them. */
  embed?: {
    route: string;
    body(texts: string[]): Record<string, unknown>;
    parse(text: string, count: number, redact: (s: string) => string): Omit<EmbeddingResponse, 'latencyMs'>;
  };
  /**
   * Streaming, for APIs that stream: used when the config says `stream: true` (promptfoo's
   * providers do not stream, so neither does assay by default). `body` turns a request body into a
   * streaming one; `parse` reads the streamed lines (each with its arrival time, in ms after the
   * request was sent) into the answer and says when its first token arrived.
   */
  stream?: {
    body(body: Record<string, unknown>): Record<string, unknown>;
    parse(lines: { at: number; line: string }[], tools: ParseTools): Parsed & { firstTokenAt?: number };
  };
  /** Set when this id answers no chat (an embeddings model): every call is refused with it, unretried. */
  refuseCalls?: string;
  /** Per-token prices for the endpoint's origin; default: the config's (`cost`, `inputCost`/`outputCost`). */
  pricing?(origin: string): Pricing | undefined;
  /** Added to `describe()` (secret-free: the manifest and cache keys read it). */
  describe?: Record<string, unknown>;
  /**
   * With no key: how to get a bearer token instead (Azure's Entra ID client credentials), fetched
   * on the first call and again before it expires; `undefined` when this environment offers none.
   */
  bearerToken?: (
    signal: AbortSignal | undefined,
  ) => Promise<{ token: string; expiresInMs: number } | { error: string }>;
  /** Other inputs that are credentials (a token given apart from the key). */
  extraCredentials?: (string | undefined)[];
  /**
   * Headers made per request once its body is final, for services whose credential is not a fixed
   * header: an OAuth access token fetched (and renewed) when needed, a request signature (AWS
   * SigV4). Or the reason no request can be made (`fatal`: bad credentials, the run stops).
   */
  authorize?(
    request: { origin: string; path: string; headers: Record<string, string>; body: string },
    signal: AbortSignal | undefined,
  ): Promise<
    { headers: Record<string, string> } | { error: string; fatal: boolean; failure?: AttemptFailure }
  >;
}

/** Where a key is found: `config.apiKey`, then `config.apiKeyEnvar`'s variable, then the service's. */
export function lookUpKey(
  spec: ProviderSpec,
  env: Record<string, string | undefined>,
  names: readonly string[],
): { key: string | undefined; source: string; variable: string } {
  const config: Config = spec.config ?? {};
  const own = nonEmpty(config.apiKeyEnvar);
  const variable = own ?? names[0] ?? 'API key';
  const fromConfig = nonEmpty(config.apiKey);
  if (fromConfig) {
    const at = spec.source ? ` (${spec.source.file}${spec.source.line ? `:${spec.source.line}` : ''})` : '';
    return { key: fromConfig, source: `the provider's config.apiKey${at}`, variable };
  }
  for (const name of own ? [own, ...names] : names) {
    const value = nonEmpty(env[name]);
    if (value) return { key: value, source: name, variable: name };
  }
  return { key: undefined, source: variable, variable };
}

/** Builds a provider from its definition, making one attempt per call (the registry adds the call policy). */
export function createHttpApiProvider(
  spec: ProviderSpec,
  ctx: ProviderContext,
  now: (() => number) | undefined,
  api: HttpApi,
): Provider {
  const config: Config = spec.config ?? {};
  if (!api.model) throw configError(spec, `provider id "${spec.id}" names no model (expected ${api.idForm})`);
  const base = (
    api.baseUrl.config ??
    nonEmpty(config.apiBaseUrl) ??
    api.baseUrl.env.map((name) => nonEmpty(ctx.env[name])).find((v) => v !== undefined) ??
    api.baseUrl.default
  ).replace(/\/+$/, '');
  const { key, source } = lookUpKey(spec, ctx.env, api.key.env);
  const credentials = [
    key,
    ...credentialHeaderValues(config.headers),
    // A key given in the base URL's query (`?api-key=…`, a proxy's `?token=…`).
    ...urlCredentials(base).flatMap((c) => c.values),
    ...(api.extraCredentials ?? []),
  ].filter((s): s is string => typeof s === 'string' && s.length >= 4);
  // Sees a token obtained later: it joins the list.
  const redact = redactor(credentials);
  const route = typeof api.route === 'string' ? api.route : api.route(base);
  const endpoint: Endpoint = endpointAt(spec, base, route, redact);
  const required = api.key.required;
  const host = new URL(endpoint.origin).hostname;
  const setupError =
    !key &&
    !api.bearerToken &&
    api.key.send.kind !== 'none' &&
    (required === 'always' || required?.includes(host))
      ? `${api.service}: no API key for ${endpoint.shown}: set ${source}${api.key.hint ? `, ${api.key.hint}` : ''}`
      : undefined;
  const unusable = setupError ?? (api.setupError ? `${api.service}: ${api.setupError}` : undefined);

  const headers: Record<string, string> = { 'content-type': 'application/json', ...api.headers };
  const scheme = api.key.send;
  if (key && scheme.kind === 'bearer') headers.authorization = `Bearer ${key}`;
  if (key && scheme.kind === 'header') headers[scheme.name.toLowerCase()] = `${scheme.prefix ?? ''}${key}`;
  Object.assign(headers, configHeaders(config));
  /** The path as sent: with the key as a query parameter where the service takes it so (never in cache keys). */
  const sentPath = (path: string): string =>
    key && scheme.kind === 'query'
      ? `${path}${path.includes('?') ? '&' : '?'}${encodeURIComponent(scheme.name)}=${encodeURIComponent(key)}`
      : path;

  const configParams: Record<string, unknown> = {};
  for (const name of api.paramKeys) if (config[name] !== undefined) configParams[name] = config[name];
  const passthrough = isRecord(config.passthrough) ? config.passthrough : undefined;
  const withPassthrough = (body: Record<string, unknown>): Record<string, unknown> =>
    passthrough && !api.ownPassthrough ? Object.assign(body, passthrough) : body;
  const streaming = api.stream && config.stream === true ? api.stream : undefined;
  const requestBody = (request: ProviderRequest): Record<string, unknown> => {
    const params = { ...configParams };
    for (const name of api.paramKeys)
      if (request.params[name] !== undefined) params[name] = request.params[name];
    const body = withPassthrough(api.body(request, params));
    return streaming ? streaming.body(body) : body;
  };
  // A bearer token (no key): fetched once, shared by concurrent calls, renewed 5 minutes before it expires.
  type Token = { token: string; expiresAt: number } | { error: string };
  let pending: Promise<Token> | undefined;
  let current: { token: string; expiresAt: number } | undefined;
  const authorization = async (
    signal: AbortSignal | undefined,
  ): Promise<{ headers: Record<string, string> } | { error: string }> => {
    const fetchToken = !key ? api.bearerToken : undefined;
    if (!fetchToken) return { headers };
    if (!current || Date.now() > current.expiresAt - 300_000) {
      pending ??= fetchToken(signal).then((got): Token => {
        if ('error' in got) return got;
        credentials.push(got.token);
        ctx.addSecret?.(got.token);
        return { token: got.token, expiresAt: Date.now() + got.expiresInMs };
      });
      const got = await pending;
      pending = undefined;
      // A failure is not kept: the next call asks again.
      if ('error' in got) return got;
      current = got;
    }
    return { headers: { ...headers, authorization: `Bearer ${current.token}` } };
  };
  /** Where chat calls go (the path as sent, fixed for the provider's life). */
  const callTarget = { origin: endpoint.origin, path: sentPath(endpoint.path) };
  const tokenNeeded = !key && api.bearerToken !== undefined;
  const pricing = api.pricing ? api.pricing(endpoint.origin) : configuredPricing(config);
  const tools: ParseTools = { pricing, redact };
  const sendOptions = { now, connections: poolSize(ctx.maxConcurrency) };
  const refusals = api.refusals;
  const mayAnswer = refusals ? (status: number) => refusals.statuses.includes(status) : undefined;
  const describeAttempt = attemptDescriber(endpoint.shown, source, redact, api.service);
  /** A parsed answer's error names the service (a malformed body says who sent it). */
  const named = <T extends { error?: string }>(parsed: T): T =>
    parsed.error !== undefined ? { ...parsed, error: `${api.service}: ${parsed.error}` } : parsed;

  // The headers a request goes out with: the key's, plus what `authorize` adds (a token, a signature).
  const signedHeaders = async (
    target: { origin: string; path: string },
    headers: Record<string, string>,
    body: unknown,
    signal: AbortSignal | undefined,
  ): ReturnType<NonNullable<HttpApi['authorize']>> => {
    if (!api.authorize) return { headers };
    const signed = await api.authorize({ ...target, headers, body: JSON.stringify(body) }, signal);
    return 'error' in signed ? signed : { headers: { ...headers, ...signed.headers } };
  };
  const provider: Provider = {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({
      id: spec.id,
      model: api.model,
      baseUrl: endpoint.shown,
      ...(api.describe ?? { params: { ...configParams } }),
    }),
    // One adaptive limiter per origin, shared by every provider that calls it.
    endpoint: { key: endpoint.origin, shown: endpoint.shown },
    credentials,
    ...(unusable ? { unusable } : {}),
    requestKey: (request) => ({
      url: `${endpoint.origin}${endpoint.path}`,
      headers: keyedHeaders(headers),
      body: requestBody(request),
    }),
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      if (api.refuseCalls) return { output: null, error: api.refuseCalls, latencyMs: 0, attempts: 0 };
      if (setupError) return { output: null, error: setupError, fatal: true, latencyMs: 0, attempts: 0 };
      // The fixed headers need no await (and no AbortSignal): the common case, once per request.
      let sendHeaders = headers;
      if (tokenNeeded) {
        const auth = await authorization(request.signal);
        if ('error' in auth)
          return { output: null, error: redact(`${api.service}: ${auth.error}`), fatal: true, latencyMs: 0 };
        sendHeaders = auth.headers;
      }
      const body = requestBody(request);
      if (api.authorize) {
        const signed = await signedHeaders(callTarget, sendHeaders, body, request.signal);
        if ('error' in signed) {
          const { error, fatal, failure } = signed;
          return { output: null, error: redact(error), fatal, ...(failure ? { failure } : {}), latencyMs: 0 };
        }
        sendHeaders = signed.headers;
      }
      const sent = await postJson(
        callTarget,
        sendHeaders,
        body,
        attemptAbortOf(request) ?? request.signal,
        sendOptions,
        describeAttempt,
        streaming !== undefined,
        mayAnswer,
      );
      if ('failed' in sent) return { output: null, ...sent.failed, fatal: sent.fatal };
      if (sent.status !== undefined) {
        // A status that may hold the service's answer (a content filter's): read it, or fail as usual.
        const refused = refusals?.parse(sent.status, sent.text, tools);
        if (refused) {
          const response = named(refused) as ProviderResponse;
          response.latencyMs = sent.latencyMs;
          return response;
        }
        const failed = describeAttempt({
          ok: false,
          kind: 'http',
          status: sent.status,
          message: errorMessageFromBody(sent.text),
          retryable: isRetryableStatus(sent.status),
        });
        return { output: null, ...failed, latencyMs: sent.latencyMs };
      }
      if (!streaming) {
        const response = named(api.parse(sent.text, tools)) as ProviderResponse;
        response.latencyMs = sent.latencyMs;
        return response;
      }
      const { firstTokenAt, ...parsed } = streaming.parse(timedLines(sent.chunks ?? []), tools);
      const response: ProviderResponse = { ...named(parsed), latencyMs: sent.latencyMs };
      const timing =
        parsed.error === undefined
          ? streamTiming(firstTokenAt, sent.latencyMs, parsed.usage?.completion)
          : undefined;
      if (timing) response.stream = timing;
      return response;
    },
  };
  const embed = api.embed;
  if (embed) {
    const target = { origin: endpoint.origin, path: sentPath(routePath(base, embed.route)) };
    provider.embed = async (request: EmbeddingRequest): Promise<EmbeddingResponse> => {
      if (setupError) return { error: setupError, latencyMs: 0 };
      const auth = await authorization(request.signal);
      if ('error' in auth) return { error: redact(`${api.service}: ${auth.error}`), latencyMs: 0 };
      const body = withPassthrough(embed.body(request.texts));
      const signed = await signedHeaders(target, auth.headers, body, request.signal);
      if ('error' in signed) {
        const { error, failure } = signed;
        return { error: redact(error), ...(failure ? { failure } : {}), latencyMs: 0 };
      }
      const sent = await postJson(target, signed.headers, body, request.signal, sendOptions, describeAttempt);
      if ('failed' in sent) return sent.failed;
      return { ...named(embed.parse(sent.text, request.texts.length, redact)), latencyMs: sent.latencyMs };
    };
  }
  return provider;
}
