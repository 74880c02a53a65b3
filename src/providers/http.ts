/**
 * The HTTP layer shared by HTTP providers: one keep-alive connection pool per origin and bounded
 * retries. A failed call is described, never thrown, so a provider can turn it into an error result.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { Pool } from 'undici';
import { AdaptiveLimiter } from './limiter.js';
import type { RetryPolicy } from './types.js';

/** Response headers as undici delivers them (lower-case names). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One HTTP request; `origin` and `path` are split once by the caller, not per request. */
export interface HttpRequest {
  /** `scheme://host:port`, the pool key. */
  origin: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Cancels the call (the current attempt and any further ones). */
  signal?: AbortSignal;
}

/** Seams for tests: the waits between attempts and the jitter source. */
export interface RetryOptions {
  /** Pool size for the origin (default 8; a later, larger request replaces the pool with a bigger one). */
  connections?: number;
  /** Waits between attempts; resolves early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1); drives the backoff jitter. */
  random?: () => number;
  /** Wall clock in ms, for `Retry-After` given as an HTTP date. */
  now?: () => number;
}

export interface HttpSuccess {
  ok: true;
  status: number;
  headers: ResponseHeaders;
  body: string;
  attempts: number;
}

/** Why the last attempt failed. */
export type HttpFailureKind = 'http' | 'timeout' | 'network' | 'aborted';

export interface HttpFailure {
  ok: false;
  kind: HttpFailureKind;
  /** HTTP status of the last attempt (kind `http` only). */
  status?: number;
  /** The server's `error.message` (or a body excerpt), or the network error's description. */
  message: string;
  /** Error code for network failures (ECONNRESET, UND_ERR_SOCKET, …). */
  code?: string;
  attempts: number;
  /** Whether the last failure was transient (so the attempts ran out rather than the call being refused). */
  retryable: boolean;
  /** Timeout that fired, for kind `timeout`. */
  timeoutMs?: number;
}

export type HttpOutcome = HttpSuccess | HttpFailure;

interface PoolEntry {
  pool: Pool;
  connections: number;
}

const pools = new Map<string, PoolEntry>();

type PoolClass = typeof import('undici').Pool;
let PoolCtor: PoolClass | undefined;

/**
 * undici's Pool class with its request API. The pool and API modules alone load in about a third
 * of the time of the whole package (which also loads fetch, WebSocket and caches: 150-350 ms
 * here), and start-up is a product feature. undici's own index does exactly this assembly; if a
 * future version moves these modules, the full package is loaded instead.
 */
function poolClass(): PoolClass {
  if (!PoolCtor) {
    const require = createRequire(import.meta.url);
    try {
      const pool = require('undici/lib/dispatcher/pool.js') as PoolClass;
      const dispatcher = require('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
      const api = require('undici/lib/api/index.js') as Record<string, unknown>;
      if (typeof (dispatcher.prototype as { request?: unknown }).request !== 'function')
        Object.assign(dispatcher.prototype, api);
      if (typeof (pool.prototype as { request?: unknown }).request !== 'function')
        throw new Error('undici layout changed');
      PoolCtor = pool;
    } catch {
      PoolCtor = (require('undici') as typeof import('undici')).Pool;
    }
  }
  return PoolCtor;
}

/** The shared keep-alive pool for an origin, created (or grown) on demand. */
export function getPool(origin: string, connections: number): Pool {
  const want = Math.max(1, Math.floor(connections) || 1);
  const entry = pools.get(origin);
  if (entry && entry.connections >= want && !entry.pool.closed && !entry.pool.destroyed) return entry.pool;
  // Undici pools cannot be resized: replace a smaller one; its in-flight requests finish on it.
  if (entry && !entry.pool.closed) void entry.pool.close().catch(() => {});
  // Timeouts are enforced per attempt by requestWithRetry's own deadline, so undici's are off.
  const pool = new (poolClass())(origin, {
    connections: want,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  pools.set(origin, { pool, connections: want });
  return pool;
}

const limiters = new Map<string, AdaptiveLimiter>();

/** The adaptive concurrency limiter of an origin, shared by every provider that calls it. */
export function getLimiter(origin: string, maxConcurrency: number): AdaptiveLimiter {
  let limiter = limiters.get(origin);
  if (!limiter) {
    limiter = new AdaptiveLimiter(maxConcurrency);
    limiters.set(origin, limiter);
  } else limiter.grow(maxConcurrency);
  return limiter;
}

/** Closes every shared pool (waits for in-flight requests); later requests open new ones. */
export async function closeAllPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  limiters.clear();
  await Promise.all(all.map((e) => (e.pool.closed ? undefined : e.pool.close().catch(() => {}))));
}

/** Statuses worth another attempt (as the OpenAI SDKs do): timeouts, conflicts, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Full-jitter exponential backoff before retry number `retry` (1 = first retry), capped. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * Math.max(0, ceiling));
}

/** The wait a response asks for, from `retry-after-ms` or `Retry-After` (seconds or HTTP date); uncapped. */
export function retryAfterDelay(headers: ResponseHeaders, nowMs: number = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const n = Number(ms);
    if (ms.trim() !== '' && Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headerValue(headers, 'retry-after');
  if (ra === undefined) return undefined;
  const text = ra.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The server's own error message from a JSON error body, else a short excerpt of the body. */
export function errorMessageFromBody(body: string): string {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed && typeof parsed === 'object') {
        const error = (parsed as { error?: unknown }).error;
        if (typeof error === 'string') return error;
        if (error && typeof error === 'object') {
          const message = (error as { message?: unknown }).message;
          if (typeof message === 'string') return message;
        }
        const message = (parsed as { message?: unknown }).message;
        if (typeof message === 'string') return message;
      }
    } catch {
      // not JSON after all: fall through to the excerpt
    }
  }
  return excerpt(trimmed);
}

/** First `max` characters of a text on one line, for error messages. */
export function excerpt(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** One line saying what went wrong and how many attempts were made. */
export function describeFailure(f: HttpFailure): string {
  const tries = `after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}`;
  switch (f.kind) {
    case 'http':
      return `HTTP ${f.status} ${tries}${f.message ? `: ${f.message}` : ''}`;
    case 'timeout':
      return `request timed out (no complete response within ${f.timeoutMs} ms) ${tries}`;
    case 'aborted':
      return `request aborted ${tries}`;
    default:
      return `connection error${f.code ? ` ${f.code}` : ''} ${tries}: ${f.message}`;
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

type AttemptResult =
  | { ok: true; status: number; headers: ResponseHeaders; body: string }
  | (Omit<HttpFailure, 'attempts'> & { retryAfterMs?: number });

/**
 * Sends a request with bounded retries: 408/409/429/5xx, connection errors and timeouts are retried
 * with full-jitter exponential backoff (or the server's Retry-After), capped at `maxDelayMs`; other
 * statuses are returned at once. Never throws for an HTTP or network failure.
 */
export async function requestWithRetry(
  request: HttpRequest,
  policy: RetryPolicy,
  options: RetryOptions = {},
): Promise<HttpOutcome> {
  const maxAttempts = Math.max(1, Math.floor(policy.maxAttempts) || 1);
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const connections = options.connections ?? 8;
  const { signal } = request;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) {
      return { ok: false, kind: 'aborted', message: 'aborted', attempts: attempt - 1, retryable: false };
    }
    const limiter = getLimiter(request.origin, connections);
    const wait = limiter.acquire();
    if (wait) await wait;
    // attemptOnce never throws, so the slot is always given back.
    const result = await attemptOnce(getPool(request.origin, connections), request, policy.timeoutMs);
    limiter.release(!result.ok && result.status === 429);
    if (result.ok) return { ...result, attempts: attempt };
    if (!result.retryable || attempt >= maxAttempts || signal?.aborted) {
      const { retryAfterMs: _ignored, ...failure } = result;
      return { ...failure, attempts: attempt };
    }
    const asked =
      result.retryAfterMs !== undefined && Number.isFinite(result.retryAfterMs)
        ? result.retryAfterMs
        : undefined;
    const delay =
      asked !== undefined
        ? Math.min(policy.maxDelayMs, Math.round(asked))
        : backoffDelay(attempt, policy, random);
    await sleep(delay, signal);
  }

  async function attemptOnce(pool: Pool, req: HttpRequest, timeoutMs: number): Promise<AttemptResult> {
    // One deadline for headers and body together. Undici is handed an EventEmitter rather than an
    // AbortSignal: its AbortSignal path costs a third of the throughput against a local server.
    const abort = new EventEmitter();
    let timedOut = false;
    // setTimeout fires at once beyond 2^31-1 ms; a non-positive or non-finite timeout means none.
    const timer =
      Number.isFinite(timeoutMs) && timeoutMs > 0
        ? setTimeout(
            () => {
              timedOut = true;
              abort.emit('abort');
            },
            Math.min(timeoutMs, 2_147_483_647),
          )
        : undefined;
    const outer = req.signal;
    const onOuterAbort = (): void => {
      abort.emit('abort');
    };
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      const res = await pool.request({
        path: req.path,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: abort,
      });
      const body = await res.body.text();
      const status = res.statusCode;
      const headers = res.headers as ResponseHeaders;
      if (status >= 200 && status < 300) return { ok: true, status, headers, body };
      const retryable = isRetryableStatus(status);
      return {
        ok: false,
        kind: 'http',
        status,
        message: errorMessageFromBody(body),
        retryable,
        retryAfterMs: retryable ? retryAfterDelay(headers, (options.now ?? Date.now)()) : undefined,
      };
    } catch (err) {
      if (timedOut) return { ok: false, kind: 'timeout', message: 'timed out', retryable: true, timeoutMs };
      if (outer?.aborted) return { ok: false, kind: 'aborted', message: 'aborted', retryable: false };
      return classifyError(err, timeoutMs);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }
}

function classifyError(err: unknown, timeoutMs: number): AttemptResult {
  const codes = errorCodes(err);
  const timeoutCode = codes.find((c) => TIMEOUT_CODES.has(c));
  if (timeoutCode) {
    return {
      ok: false,
      kind: 'timeout',
      message: 'timed out',
      code: timeoutCode,
      retryable: true,
      timeoutMs,
    };
  }
  // An OS-level code (ECONNREFUSED) says more than undici's wrapper (UND_ERR_SOCKET).
  const code = codes.find((c) => !c.startsWith('UND_ERR')) ?? codes[0];
  const message = err instanceof Error ? err.message : String(err);
  return { ok: false, kind: 'network', message, code, retryable: codes.some((c) => RETRYABLE_CODES.has(c)) };
}

/** Error codes on an error and its causes (undici wraps socket errors). */
function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}
