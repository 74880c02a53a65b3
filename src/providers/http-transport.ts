/**
 * The HTTP transport of HTTP providers: one keep-alive connection pool per origin, and one attempt
 * at a request described as the call policy needs it (transient or not, Retry-After, rate limited).
 * Retries, timeouts and the adaptive limiter are the call policy's (retry.ts, call-policy.ts).
 * A failed request is described, never thrown, so a provider can turn it into an error result.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { clearLimiters, getLimiter } from './limiter.js';
import { AttemptAbort, type AttemptHooks, runAttempts, timedOut } from './retry.js';
import type { AttemptFailure, RetryPolicy } from './types.js';

/** Response headers as undici delivers them (lower-case names). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One HTTP request; `origin` and `path` are split once by the caller, not per request. */
export interface HttpRequest {
  /** `scheme://host:port`, the pool key. */
  origin: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** GET or POST for model APIs; the generic `http` provider sends whatever its config names. */
  method: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Statuses that count as an answer besides 2xx (the generic `http` provider judges statuses
   * itself, with its `validateStatus`); default none.
   */
  answered?: (status: number) => boolean;
  /**
   * Cancels the call (the current attempt and any further ones): an AbortSignal, or the attempt's
   * own AttemptAbort under the call policy (handed to undici as it is: no signal, no listener).
   */
  signal?: AbortSignal | AttemptAbort;
  /** Keep when each piece of a successful body arrived (a streamed answer: time to first token). */
  timed?: boolean;
}

/** A piece of a response body and when it arrived, in ms after the request was sent. */
export interface TimedChunk {
  at: number;
  text: string;
}

/** Seams for tests: the waits between attempts, the jitter source and the clock; the pool size. */
export interface RetryOptions extends AttemptHooks {
  /** Pool size for the origin (default 8; a later, larger request replaces the pool with a bigger one). */
  connections?: number;
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
/** undici's own header parser, for answers read without its stream API (see `collect`). */
let parseHeaders: ((raw: Buffer[]) => ResponseHeaders) | undefined;

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
      const util = require('undici/lib/core/util.js') as { parseHeaders?: unknown };
      if (typeof util.parseHeaders === 'function')
        parseHeaders = util.parseHeaders as (raw: Buffer[]) => ResponseHeaders;
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
  // Timeouts are enforced per attempt by the call policy's deadline, so undici's are off.
  const pool = new (poolClass())(origin, {
    connections: want,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  pools.set(origin, { pool, connections: want });
  return pool;
}

/** Closes every shared pool (waits for in-flight requests) and forgets the limiters; later requests open new ones. */
export async function closeAllPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  clearLimiters();
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
      return `${timedOut(f.timeoutMs)} ${tries}`;
    case 'aborted':
      return `request aborted ${tries}`;
    default:
      return `connection error${f.code ? ` ${f.code}` : ''} ${tries}: ${f.message}`;
  }
}

/** One attempt's outcome: the response, or why it failed and whether another attempt may succeed. */
export type HttpAttempt =
  | { ok: true; status: number; headers: ResponseHeaders; body: string; chunks?: TimedChunk[] }
  | (Omit<HttpFailure, 'attempts'> & { retryAfterMs?: number });

/** What the call policy needs to know of a failed attempt (undefined: it succeeded). */
export function attemptFailure(attempt: HttpAttempt): AttemptFailure | undefined {
  if (attempt.ok) return undefined;
  return {
    transient: attempt.retryable,
    retryAfterMs: attempt.retryAfterMs,
    rateLimited: attempt.kind === 'http' && attempt.status === 429,
  };
}

/**
 * Sends a request once over the origin's pool. Statuses worth another attempt (408/409/429/5xx)
 * and connection errors are marked retryable, with the server's Retry-After. Never throws.
 */
export async function sendOnce(
  request: HttpRequest,
  options: Pick<RetryOptions, 'connections' | 'now'> = {},
): Promise<HttpAttempt> {
  const pool = getPool(request.origin, options.connections ?? 8);
  const outer = request.signal;
  if (outer?.aborted) return { ok: false, kind: 'aborted', message: 'aborted', retryable: false };
  // Undici is handed an emitter rather than an AbortSignal: its AbortSignal path costs a third of
  // the throughput against a local server. An attempt's own AttemptAbort is one already.
  let abort: AttemptAbort | EventEmitter | undefined;
  let onOuterAbort: (() => void) | undefined;
  if (outer instanceof AttemptAbort) abort = outer;
  else if (outer) {
    const emitter = new EventEmitter();
    abort = emitter;
    onOuterAbort = (): void => {
      emitter.emit('abort');
    };
    outer.addEventListener('abort', onOuterAbort, { once: true });
  }
  try {
    let status: number;
    let headers: ResponseHeaders;
    let body: string;
    if (!request.timed && parseHeaders !== undefined) {
      // A whole answer: collected by a handler of our own, without undici's per-response stream,
      // promise and async-resource wrapping (a quarter of its cost per request here).
      const res = await collect(pool, request, abort);
      status = res.status;
      headers = res.headers;
      body = res.body;
    } else {
      const sent = performance.now();
      const res = await pool.request({
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: abort,
      });
      status = res.statusCode;
      headers = res.headers as ResponseHeaders;
      if (request.timed && status >= 200 && status < 300) {
        // Each piece as it arrives, with its time: a streamed answer's first token is timed from it.
        const decoder = new TextDecoder();
        const chunks: TimedChunk[] = [];
        for await (const piece of res.body) {
          const text = decoder.decode(piece as Buffer, { stream: true });
          if (text !== '') chunks.push({ at: performance.now() - sent, text });
        }
        const rest = decoder.decode();
        if (rest !== '') chunks.push({ at: performance.now() - sent, text: rest });
        return { ok: true, status, headers, body: chunks.map((c) => c.text).join(''), chunks };
      }
      body = await res.body.text();
    }
    if ((status >= 200 && status < 300) || request.answered?.(status))
      return { ok: true, status, headers, body };
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
    if (outer?.aborted) return { ok: false, kind: 'aborted', message: 'aborted', retryable: false };
    return classifyError(err);
  } finally {
    if (onOuterAbort) (outer as AbortSignal).removeEventListener('abort', onOuterAbort);
  }
}

/** A whole response as `collect` reads it. */
interface Collected {
  status: number;
  headers: ResponseHeaders;
  body: string;
}

/**
 * undici's dispatch handler (its plain callback interface) that keeps a response's pieces and
 * hands back the whole answer; an abort of the attempt aborts the request.
 */
class CollectHandler {
  private abortRequest: ((reason?: unknown) => void) | undefined;
  /** Cancelled before undici handed over its `abort` (the request still queued or connecting). */
  private cancelled = false;
  private status = 0;
  private headers: ResponseHeaders = {};
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly done: (err: Error | null, res?: Collected) => void,
    private readonly cancel: AttemptAbort | EventEmitter | undefined,
  ) {
    if (cancel) {
      this.onAbort = (): void => {
        // A plain emitter (a caller's AbortSignal) has no `aborted` for onConnect to read: remember.
        this.cancelled = true;
        this.abortRequest?.((cancel as { reason?: unknown }).reason);
      };
      cancel.once('abort', this.onAbort);
    }
  }

  onConnect(abort: (reason?: unknown) => void): void {
    this.abortRequest = abort;
    if (this.cancelled || (this.cancel as { aborted?: boolean } | undefined)?.aborted) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // An informational answer (1xx) is not the response.
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.headers = parseHeaders!(rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    this.forget();
    const chunks = this.chunks;
    let text = '';
    if (chunks.length > 0 && this.length > 0) {
      const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.length);
      // As undici's body.text(): a byte-order mark is skipped.
      const bom = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
      text = buffer.toString('utf8', bom ? 3 : 0);
    }
    this.done(null, { status: this.status, headers: this.headers, body: text });
  }

  onError(err: Error): void {
    this.forget();
    this.done(err);
  }

  private forget(): void {
    if (this.onAbort) this.cancel?.removeListener('abort', this.onAbort);
  }
}

/** One request sent and its whole answer read (see CollectHandler); rejects as pool.request would. */
function collect(
  pool: Pool,
  request: HttpRequest,
  cancel: AttemptAbort | EventEmitter | undefined,
): Promise<Collected> {
  return new Promise((resolve, reject) => {
    const handler = new CollectHandler((err, res) => (err ? reject(err) : resolve(res!)), cancel);
    pool.dispatch(
      { path: request.path, method: request.method, headers: request.headers, body: request.body },
      handler as unknown as Parameters<Pool['dispatch']>[1],
    );
  });
}

/**
 * Sends a request under the call policy (retry.ts): 408/409/429/5xx, connection errors and
 * timeouts are retried with full-jitter exponential backoff (or the server's Retry-After), capped
 * at `maxDelayMs`; other statuses are returned at once. Never throws for an HTTP or network failure.
 */
export async function requestWithRetry(
  request: HttpRequest,
  policy: RetryPolicy,
  options: RetryOptions = {},
): Promise<HttpOutcome> {
  const end = await runAttempts((abort) => sendOnce({ ...request, signal: abort }, options), attemptFailure, {
    policy,
    limiter: getLimiter(request.origin, options.connections ?? 8),
    signal: request.signal instanceof AttemptAbort ? request.signal.signal : request.signal,
    sleep: options.sleep,
    random: options.random,
  });
  const { attempts } = end;
  switch (end.kind) {
    case 'answered': {
      if (end.value.ok) return { ...end.value, attempts };
      const { retryAfterMs: _ignored, ...failure } = end.value;
      return { ...failure, attempts };
    }
    case 'timeout':
      return {
        ok: false,
        kind: 'timeout',
        message: 'timed out',
        retryable: true,
        timeoutMs: end.timeoutMs,
        attempts,
      };
    case 'aborted':
      return { ok: false, kind: 'aborted', message: 'aborted', retryable: false, attempts };
    default: {
      const message = end.error instanceof Error ? end.error.message : String(end.error);
      return { ok: false, kind: 'network', message, retryable: false, attempts };
    }
  }
}

function classifyError(err: unknown): HttpAttempt {
  const codes = errorCodes(err);
  const timeoutCode = codes.find((c) => TIMEOUT_CODES.has(c));
  if (timeoutCode)
    return { ok: false, kind: 'timeout', message: 'timed out', code: timeoutCode, retryable: true };
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
