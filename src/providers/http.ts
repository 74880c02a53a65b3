/**
 * promptfoo's generic `http` provider: any HTTP endpoint, described by its config.
 *
 * Ids: `http` or `https` (the URL in `config.url`) and `http://…`/`https://…` (the URL is the id,
 * `config.url` overrides it). Config, as promptfoo 0.123.1 reads it:
 * - `url`, `method` (default GET), `headers`, `queryParams`: each value a Nunjucks template over
 *   the case's vars plus `prompt` (and `sessionId` with a `session` endpoint).
 * - `body`: an object (its strings rendered one by one; a rendered string that is JSON of an
 *   object or array becomes that value) or a string (a JSON text when the content type is JSON,
 *   parsed then rendered; otherwise rendered as text). Without a content type a body object sends
 *   `application/json`, a body string `application/x-www-form-urlencoded`. A GET sends no body.
 * - `request`: a raw HTTP request (request line, headers, body) instead of url/method/body; its
 *   `{{…}}` are rendered with JSON-escaped values, its `Host` header names the server.
 * - `transformRequest`: the prompt before it is placed (inline JavaScript: an expression, a
 *   function, or a body with `return`; or `file://x.js[:fn]`), called `(prompt, vars, context)`.
 *   An object result is merged over the config body without rendering it, as promptfoo does.
 * - `transformResponse` (or the older `responseParser`): `(json, text, context)` to the output
 *   (an expression over `json`, `text`, `context`; a function; or `file://x.js[:fn]`); without one
 *   the output is the parsed JSON, else the text. A result with `output` or `error` is a response.
 * - `validateStatus`: which statuses are answers (an expression over `status`, a function, or a
 *   file); default every status, as in promptfoo. A refused one is the error
 *   `HTTP call failed with status <code> <text>: <body>`.
 * - `session`: an endpoint (`url`, `method` default POST, `headers`, `body`, `responseParser` over
 *   `data = {headers, body}`) called before each request for the `sessionId` var.
 * - `auth`: `bearer` (token), `basic` (username, password) and `api_key` (keyName, value,
 *   placement header or query). OAuth, file and signature auth, TLS and multipart are refused.
 *
 * Only 429 and network failures are retried (the call policy); every other status is judged by
 * `validateStatus`. Header values that are credentials (`Authorization`, `Cookie`, `X-Api-Key`, any
 * name with auth, key, token, secret) and auth fields are declared as secrets ({@link httpSecrets}),
 * so they never reach results, caches, cache keys or messages.
 */
import { STATUS_CODES } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ProviderSpec } from '../core/types.js';
import { loadScriptFunction, processShim } from '../runtime/js-runtime.js';
import { renderString } from '../template/render.js';
import { attemptAbortOf } from './call-policy.js';
import {
  type Config,
  configError,
  isAuthFailure,
  isRecord,
  isUnreachable,
  keyedHeaders,
  poolSize,
  redactor,
  withoutCredentials,
} from './http-kit.js';
import { httpSecrets } from './http-secrets.js';
import { attemptFailure, describeFailure, sendOnce } from './http-transport.js';
import type { AttemptAbort } from './retry.js';
import type { Provider, ProviderContext, ProviderRequest, ProviderResponse } from './types.js';

type Fn = (...args: unknown[]) => unknown;

/** Config keys that are promptfoo's but not supported here: refused rather than silently ignored. */
const UNSUPPORTED = ['multipart', 'tls', 'signatureAuth'];

type Vars = Record<string, unknown>;

const BODY_NOT_JSON =
  'Content-Type is not application/json, but body is an object or array. The body must be a string if the Content-Type is not application/json.';

/** A `file://path[:fn]` reference: the function is split off only after a JavaScript file name. */
function fileRef(value: string): { path: string; fn?: string } {
  const rest = value.slice('file://'.length);
  const colon = rest.lastIndexOf(':');
  if (colon > 1 && /\.(?:[cm]?js|[cm]?ts|tsx|jsx)$/i.test(rest.slice(0, colon)))
    return { path: rest.slice(0, colon), fn: rest.slice(colon + 1) || undefined };
  return { path: rest };
}

const FUNCTION_TEXT = /^(\(.*?\)\s*=>|function\s*\(.*?\))/;

/**
 * A config's code value (inline or `file://`) as a function, loaded once. `inline` builds the
 * function from the trimmed text; `file://` loads the module's function (named, else default).
 */
function codeValue(value: unknown, basePath: string, inline: (code: string) => Fn): () => Promise<Fn> {
  let loaded: Promise<Fn> | undefined;
  return () => {
    if (!loaded) {
      if (typeof value === 'string' && value.startsWith('file://')) {
        const ref = fileRef(value);
        const abs = isAbsolute(ref.path) ? ref.path : resolve(basePath, ref.path);
        loaded = loadScriptFunction(abs, ref.fn, value);
      } else loaded = Promise.resolve(inline(String(value).trim()));
      // A failed load stays failed (the same file gives the same answer); the rejection is read by each caller.
      loaded.catch(() => {});
    }
    return loaded;
  };
}

function compileResponseTransform(code: string, shim: NodeJS.Process): Fn {
  const body = FUNCTION_TEXT.test(code) ? `return (${code})(json, text, context);` : `return (${code});`;
  const fn = new Function('json', 'text', 'context', 'process', body) as Fn;
  return (json, text, context) => fn(json, text, context, shim);
}

function compileRequestTransform(code: string, shim: NodeJS.Process): Fn {
  const body = FUNCTION_TEXT.test(code)
    ? `return (${code})(prompt, vars, context);`
    : /\breturn\b/.test(code)
      ? code
      : `return (${code});`;
  const fn = new Function('prompt', 'vars', 'context', 'process', body) as Fn;
  return (prompt, vars, context) => fn(prompt, vars, context, shim);
}

function compileValidator(code: string): Fn {
  if (code.includes('=>') || code.startsWith('function')) return new Function(`return ${code}`)() as Fn;
  return new Function('status', `return ${code}`) as Fn;
}

function compileSessionParser(code: string): Fn {
  return new Function('data', `return (${code});`) as Fn;
}

/** Renders every string in a value (promptfoo's renderVarsInObject). */
function renderDeep(value: unknown, vars: Vars, env: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return renderString(value, vars, env);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars, env));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderDeep(v, vars, env);
    return out;
  }
  return value;
}

/** A string that is the JSON text of an object or array, as that value; else the string. */
function jsonValueOf(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : text;
  } catch {
    return text;
  }
}

function parseDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(parseDeep);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, parseDeep(v)]));
  if (typeof value === 'string') return jsonValueOf(value);
  return value;
}

/** String values JSON-escaped (without quotes), for templates that sit inside JSON strings. */
function escapedVars(vars: Vars): Vars {
  return Object.fromEntries(
    Object.entries(vars).map(([k, v]) => [k, typeof v === 'string' ? JSON.stringify(v).slice(1, -1) : v]),
  );
}

/** The body to send, as promptfoo builds it (determineRequestBody). */
function requestBody(
  json: boolean,
  prompt: unknown,
  configBody: unknown,
  vars: Vars,
  env: Record<string, string | undefined>,
): unknown {
  let body = configBody;
  if (typeof configBody === 'string' && json) {
    try {
      body = JSON.parse(configBody);
    } catch {
      // a template that is not JSON until rendered
    }
  }
  const all = { ...vars, prompt };
  if (!json) {
    if (body === undefined || body === null) return body;
    if (typeof body === 'object')
      throw new Error('Expected body to be a string when content type is not application/json');
    return renderDeep(body, all, env);
  }
  if (typeof prompt === 'object' && prompt !== null) return Object.assign({}, body || {}, prompt);
  const rendered = renderDeep(body, all, env);
  if (typeof rendered === 'object' && rendered !== null) return parseDeep(rendered);
  if (typeof rendered === 'string') {
    try {
      return JSON.parse(rendered);
    } catch {
      const trimmed = rendered.trim();
      if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && typeof body === 'string') {
        try {
          return JSON.parse(renderString(body, escapedVars(all), env));
        } catch {
          // sent as rendered
        }
      }
      return rendered;
    }
  }
  return rendered;
}

function isJsonContentType(headers: Record<string, string>): boolean {
  return Object.entries(headers).some(
    ([k, v]) => k.toLowerCase().startsWith('content-type') && v.includes('application/json'),
  );
}

/** A raw request's text as promptfoo parses it: request line, headers (lower-cased), trimmed body. */
function parseRawRequest(text: string): {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: string;
} {
  const normal = text.replace(/\r\n/g, '\n').trim();
  const split = normal.indexOf('\n\n');
  const head = split === -1 ? normal : normal.slice(0, split);
  const body = split === -1 ? '' : normal.slice(split + 2).trim();
  const [first, ...lines] = head.split('\n');
  const m = /^(\S+)\s+(\S+)(?:\s+(HTTP\/\S+))?\s*$/i.exec(first.trim());
  if (!m || !STATUS_CODES || !/^[A-Z]+$/.test(m[1]))
    throw new Error(`HTTP request method or URL is not valid. From: ${first.trim()}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const h = /^([^:\s][^:]*):\s*(.*)$/.exec(line.trim());
    if (h) headers[h[1].toLowerCase()] = h[2];
  }
  return { method: m[1], target: m[2], headers, body };
}

/** The provider (the registry wraps it in the call policy). */
export function createHttpAttempts(spec: ProviderSpec, ctx: ProviderContext): Provider {
  const config: Config = spec.config ?? {};
  const basePath = ctx.basePath ?? process.cwd();
  const env = ctx.env;
  const shim = processShim(basePath);
  const rawRequest = typeof config.request === 'string' ? config.request : undefined;
  const urlTemplate =
    typeof config.url === 'string' && config.url !== ''
      ? config.url
      : /^https?:\/\//.test(spec.id)
        ? spec.id
        : '';
  if (!urlTemplate && rawRequest === undefined)
    throw configError(spec, `provider "${spec.id}": set \`config.url\` (or a raw \`config.request\`)`);
  for (const key of UNSUPPORTED)
    if (config[key] !== undefined)
      throw configError(spec, `provider "${spec.id}": \`config.${key}\` is not supported by assay`);
  const auth = isRecord(config.auth) ? config.auth : undefined;
  if (auth && !['bearer', 'basic', 'api_key'].includes(String(auth.type)))
    throw configError(
      spec,
      `provider "${spec.id}": \`config.auth.type\` ${JSON.stringify(auth.type)} is not supported by assay (bearer, basic, api_key are)`,
    );
  const body = config.body;
  if (
    rawRequest === undefined &&
    (body === undefined || body === null || body === '') &&
    config.method !== 'GET'
  )
    throw configError(
      spec,
      `provider "${spec.id}": expected a config containing {body} (or method: GET, or a raw request)`,
    );
  const configHeaders: Record<string, string> = {};
  if (isRecord(config.headers))
    for (const [k, v] of Object.entries(config.headers))
      if (v !== undefined && v !== null) configHeaders[k.toLowerCase()] = String(v);
  if (
    rawRequest === undefined &&
    config.method !== 'GET' &&
    isRecord(body) &&
    !isJsonContentType({ ...configHeaders }) &&
    'content-type' in configHeaders
  )
    throw configError(spec, `provider "${spec.id}": ${BODY_NOT_JSON}`);

  const secrets = httpSecrets(config, /^https?:\/\//.test(spec.id) ? spec.id : undefined);
  const redact = redactor(secrets);
  const shownUrl = withoutCredentials(redact(urlTemplate || 'raw request'));
  const response = codeValue(config.transformResponse ?? config.responseParser ?? '', basePath, (code) =>
    // Without a transform the parsed JSON (else the text) is the output, even one with an `error` field.
    code === ''
      ? (json: unknown, text: unknown) => ({ output: json ? json : text })
      : compileResponseTransform(code, shim),
  );
  const request = codeValue(config.transformRequest ?? '', basePath, (code) =>
    code === '' ? (prompt: unknown) => prompt : compileRequestTransform(code, shim),
  );
  const validator = codeValue(config.validateStatus ?? '', basePath, (code) =>
    code === '' ? () => true : compileValidator(code),
  );
  const session = isRecord(config.session) ? config.session : undefined;
  const sessionParser = session
    ? codeValue(session.responseParser ?? '', basePath, (code) => compileSessionParser(code))
    : undefined;
  const connections = poolSize(ctx.maxConcurrency);
  const keyConfig: unknown = JSON.parse(
    redact(JSON.stringify({ ...config, headers: keyedHeaders(configHeaders) })),
  );

  const headersFor = (vars: Vars): Record<string, string> => {
    const defaults: Record<string, string> = {};
    if (config.method !== 'GET') {
      if (isRecord(body) || Array.isArray(body)) defaults['content-type'] = 'application/json';
      else if (typeof body === 'string') defaults['content-type'] = 'application/x-www-form-urlencoded';
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...defaults, ...configHeaders }))
      out[k] = renderString(v, vars, env);
    addAuth(out, vars);
    return out;
  };

  const addAuth = (headers: Record<string, string>, vars: Vars): void => {
    if (!auth) return;
    const r = (v: unknown) => renderString(String(v ?? ''), vars, env);
    if (auth.type === 'bearer') headers.authorization = `Bearer ${r(auth.token)}`;
    if (auth.type === 'basic')
      headers.authorization = `Basic ${Buffer.from(`${r(auth.username)}:${r(auth.password)}`).toString('base64')}`;
    if (auth.type === 'api_key' && auth.placement !== 'query')
      headers[r(auth.keyName).toLowerCase()] = r(auth.value);
  };

  const queryFor = (vars: Vars): [string, string][] => {
    const out: [string, string][] = [];
    if (isRecord(config.queryParams))
      for (const [k, v] of Object.entries(config.queryParams))
        out.push([k, renderString(String(v), vars, env)]);
    if (auth?.type === 'api_key' && auth.placement === 'query')
      out.push([renderString(String(auth.keyName), vars, env), renderString(String(auth.value), vars, env)]);
    return out;
  };

  /** What one request sends: the URL, method, headers and body, built from the vars. */
  const build = async (
    prompt: string,
    vars: Vars,
    context: Record<string, unknown>,
  ): Promise<{ url: URL; method: string; headers: Record<string, string>; body?: string }> => {
    const transformed = await (await request())(prompt, vars, context);
    if (rawRequest !== undefined) {
      const all = escapedVars({ ...vars, prompt: transformed });
      // Only `{{…}}` is a template in a raw request; `{%`, `{#` and everything else are literal text.
      const rendered = rawRequest.replace(/\{\{[\s\S]*?\}\}/g, (m) => renderString(m, all, env));
      const parsed = parseRawRequest(rendered);
      const secure = spec.id.startsWith('https') || config.useHttps === true;
      const url = new URL(parsed.target, `${secure ? 'https' : 'http'}://${parsed.headers.host ?? ''}`);
      delete parsed.headers['content-length'];
      delete parsed.headers.host;
      addAuth(parsed.headers, vars);
      for (const [k, v] of queryFor(vars)) url.searchParams.append(k, v);
      return { url, method: parsed.method, headers: parsed.headers, body: parsed.body || undefined };
    }
    const headers = headersFor(vars);
    const method =
      renderString(typeof config.method === 'string' ? config.method : 'GET', vars, env) || 'POST';
    const url = new URL(renderString(urlTemplate, vars, env));
    for (const [k, v] of queryFor(vars)) url.searchParams.append(k, v);
    const json = isJsonContentType(headers);
    // promptfoo checks the body against the content type on every call, GET included.
    if (typeof body === 'object' && body !== null && !json) throw new Error(BODY_NOT_JSON);
    const value = requestBody(json, transformed, body, vars, env);
    // Only the exact method `GET` drops the body (as promptfoo); the text of a form body is trimmed.
    const sent =
      method === 'GET' || value === undefined || value === null
        ? undefined
        : typeof value === 'string'
          ? json
            ? value
            : value.trim()
          : json
            ? JSON.stringify(value)
            : String(value);
    // fetch refuses a body on any other spelling of GET or HEAD, and so the call fails in promptfoo.
    if (sent !== undefined && /^(?:GET|HEAD)$/i.test(method))
      throw new Error('Request with GET/HEAD method cannot have body.');
    return { url, method, headers, body: sent };
  };

  const send = (
    target: { url: URL; method: string; headers: Record<string, string>; body?: string },
    signal?: AbortSignal | AttemptAbort,
  ) =>
    sendOnce(
      {
        origin: target.url.origin,
        path: target.url.pathname + target.url.search,
        method: target.method.toUpperCase(),
        headers: target.headers,
        body: target.body,
        signal,
        // Every status but 429 is an answer: promptfoo retries only rate limits, and its
        // validateStatus decides the rest.
        answered: (status) => status !== 429,
      },
      { connections },
    );

  const sessionId = async (vars: Vars, signal?: AbortSignal): Promise<string> => {
    if (!session || !sessionParser) return '';
    const headers: Record<string, string> = {};
    if (isRecord(session.headers))
      for (const [k, v] of Object.entries(session.headers))
        headers[k.toLowerCase()] = renderString(String(v), vars, env);
    const method = typeof session.method === 'string' ? session.method : 'POST';
    let sent: string | undefined;
    if (session.body !== undefined && session.body !== null && method !== 'GET') {
      if (typeof session.body === 'string') sent = renderString(session.body, vars, env);
      else {
        sent = JSON.stringify(renderDeep(session.body, vars, env));
        headers['content-type'] ??= 'application/json';
      }
    }
    const url = new URL(renderString(String(session.url ?? ''), vars, env));
    const outcome = await send({ url, method, headers, body: sent }, signal);
    if (!outcome.ok)
      throw new Error(`Session endpoint request failed: ${describeFailure({ ...outcome, attempts: 1 })}`);
    if (outcome.status < 200 || outcome.status >= 300)
      throw new Error(
        `Session endpoint request failed with status ${outcome.status} ${STATUS_CODES[outcome.status] ?? ''}: ${outcome.body}`,
      );
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(outcome.body);
    } catch {
      // text
    }
    const id = await (await sessionParser())({ headers: outcome.headers, body: parsed ?? outcome.body });
    if (!id) throw new Error(`Session endpoint did not return a session ID. Response: ${outcome.body}`);
    return String(id);
  };

  const varsOf = (req: ProviderRequest): Vars => ({ ...(req.vars ?? {}), prompt: req.prompt });
  const contextOf = (req: ProviderRequest): Record<string, unknown> => ({
    vars: req.vars ?? {},
    prompt: { raw: req.prompt, label: spec.label ?? spec.id },
  });

  return {
    id: spec.id,
    label: spec.label ?? spec.id,
    // Auth fields and credential headers: redacted from every file the run writes (evaluate.ts).
    credentials: secrets,
    describe: () => ({ id: spec.id, url: shownUrl, method: config.method ?? 'GET' }),
    endpoint: { key: `http:${shownUrl}`, shown: shownUrl },
    requestKey: (req: ProviderRequest) => ({
      // The config decides the request from the prompt and vars; credentials are left out.
      config: keyConfig,
      prompt: req.prompt,
      vars: req.vars ?? {},
    }),
    async call(req: ProviderRequest): Promise<ProviderResponse> {
      const started = performance.now();
      const failed = (why: unknown): ProviderResponse => ({
        output: null,
        error: redact(why instanceof Error ? why.message : String(why)),
        latencyMs: performance.now() - started,
      });
      try {
        const vars = varsOf(req);
        if (session) vars.sessionId = await sessionId(vars, req.signal);
        const target = await build(req.prompt, vars, contextOf(req));
        // Under the call policy, the attempt's own cancellation (no AbortSignal is made).
        const outcome = await send(target, attemptAbortOf(req) ?? req.signal);
        const latencyMs = performance.now() - started;
        if (!outcome.ok) {
          const explain = (attempts: number) =>
            redact(`${describeFailure({ ...outcome, attempts })} (${shownUrl})`);
          return {
            output: null,
            error: explain(1),
            failure: { ...attemptFailure(outcome)!, explain },
            fatal: isAuthFailure(outcome) || isUnreachable(outcome),
            latencyMs,
          };
        }
        const statusText = STATUS_CODES[outcome.status] ?? '';
        if (!(await (await validator())(outcome.status)))
          return failed(`HTTP call failed with status ${outcome.status} ${statusText}: ${outcome.body}`);
        let json: unknown = null;
        try {
          json = JSON.parse(outcome.body);
        } catch {
          // not JSON: the transform gets null
        }
        const context = {
          response: {
            data: outcome.body,
            status: outcome.status,
            statusText,
            headers: outcome.headers,
            cached: false,
            latencyMs,
          },
        };
        let result: unknown;
        try {
          result = (await response())(json || null, outcome.body, context);
          if (result instanceof Promise) result = await result;
        } catch (err) {
          return failed(
            `Failed to transform response: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
          );
        }
        return { ...responseOf(result), latencyMs };
      } catch (err) {
        return failed(err);
      }
    },
  };
}

/** A transform's result as a response: `{output, error, tokenUsage…}`, or a bare value as the output. */
function responseOf(result: unknown): Omit<ProviderResponse, 'latencyMs'> {
  const full = isRecord(result) && ('output' in result || 'error' in result);
  if (full && typeof result.error === 'string' && result.error !== '')
    return { output: null, error: result.error };
  const value = full ? (result as Record<string, unknown>).output : result;
  const out: Omit<ProviderResponse, 'latencyMs'> = {
    output:
      value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value),
  };
  if (value === undefined || value === null) out.nonText = 'nothing';
  if (full && isRecord(result.tokenUsage)) {
    const u = result.tokenUsage;
    const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
    if (n(u.prompt) !== undefined || n(u.completion) !== undefined || n(u.total) !== undefined)
      out.usage = { prompt: n(u.prompt), completion: n(u.completion), total: n(u.total) };
  }
  if (full && typeof result.cost === 'number') out.cost = result.cost;
  return out;
}
