// What every HTTP model provider needs besides the transport: its settings read from a config,
// secrets kept out of messages and cache keys, and a failed attempt described for the call policy.

import { performance } from 'node:perf_hooks';
import { InputError } from '../core/errors.js';
import { isRecord } from '../core/records.js';
import { maskUrlCredentials, Secrets } from '../core/secrets.js';
import type { ProviderSpec, TokenUsage } from '../core/types.js';
import {
  attemptFailure,
  describeFailure,
  excerpt,
  type HttpAttempt,
  type HttpFailure,
  type RetryOptions,
  sendOnce,
  type TimedChunk,
} from './http-transport.js';
import type { AttemptAbort } from './retry.js';
import type { AttemptFailure } from './types.js';

export type Config = Record<string, unknown>;

/** Header names that carry credentials: kept out of error messages and cache keys. */
export const CREDENTIAL_HEADER = /auth|key|token|secret|cookie/i;

/** Per-token prices in USD. */
export interface Pricing {
  input: number;
  output: number;
}

/** A provider's endpoint, checked: where requests go and how it is shown (no credentials). */
export interface Endpoint {
  origin: string;
  /** Path (with query) of `base + suffix`. */
  path: string;
  shown: string;
}

/** The request headers a config adds (`headers:`), names lower-cased. */
export function configHeaders(config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(config.headers)) {
    for (const [name, value] of Object.entries(config.headers)) {
      if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value);
    }
  }
  return out;
}

/** The headers that shape an answer: every one but the credentials, which never reach a cache key. */
export function keyedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADER.test(name)));
}

/** The values of credential headers a config sets (and a `Bearer` token alone), to redact. */
export function credentialHeaderValues(headers: unknown): string[] {
  if (!isRecord(headers)) return [];
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADER.test(name) || value === undefined || value === null) continue;
    const text = String(value);
    values.push(text);
    // `Bearer <token>`: the token alone may be echoed too.
    const token = /^\s*\S+\s+(\S{4,})\s*$/.exec(text)?.[1];
    if (token) values.push(token);
  }
  return values;
}

/**
 * Replaces every given secret (4 characters or more) in a text with `[redacted]`, in every
 * spelling (core/secrets.ts): a provider's own messages. The list may grow (a token obtained while
 * running): an entry added to it is redacted from the next call on.
 */
export function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = new Secrets([], { minLength: 4 });
  let seen = 0;
  return (text) => {
    for (; seen < secrets.length; seen++) known.add(secrets[seen]);
    return known.redact(text);
  };
}

/** A URL with any user:password removed and its credential query parameters masked, for messages and manifests. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return maskUrlCredentials(url);
    parsed.username = '';
    parsed.password = '';
    return maskUrlCredentials(parsed.toString().replace(/\/+$/, ''));
  } catch {
    return maskUrlCredentials(url);
  }
}

/** A configuration mistake, knowable before anything runs: refused at once (exit 2), where it was written. */
export function configError(spec: ProviderSpec, message: string): InputError {
  return new InputError({ ...(spec.source ?? { file: '' }), severity: 'error', message });
}

/**
 * The endpoint `base + suffix`, or a configuration error naming the base (redacted) when it is
 * not an http(s) URL.
 */
export function endpointAt(
  spec: ProviderSpec,
  base: string,
  suffix: string,
  redact: (s: string) => string,
): Endpoint {
  try {
    const url = new URL(`${base}${suffix}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    return { origin: url.origin, path: url.pathname + url.search, shown: withoutCredentials(base) };
  } catch {
    throw configError(
      spec,
      `invalid base URL "${redact(base)}" for ${spec.id}: expected http(s)://host[:port]/path`,
    );
  }
}

/** The path of another route of the same service (`/api/embed` beside `/api/chat`). */
export function routePath(base: string, suffix: string): string {
  const url = new URL(`${base}${suffix}`);
  return url.pathname + url.search;
}

export function isAuthFailure(f: Pick<HttpFailure, 'kind' | 'status'>): boolean {
  return f.kind === 'http' && (f.status === 401 || f.status === 403);
}

/**
 * Nothing listens at the endpoint, or its name does not resolve, even after every retry: every
 * other job would fail the same way, so the run stops instead of collecting identical errors.
 */
export function isUnreachable(f: Pick<HttpFailure, 'kind' | 'code'>): boolean {
  return (
    f.kind === 'network' && (f.code === 'ECONNREFUSED' || f.code === 'ENOTFOUND' || f.code === 'EAI_AGAIN')
  );
}

/**
 * Describes failed attempts as the call policy reads them: the error worded once the number of
 * attempts is known, redacted; a refused credential names where the key came from.
 */
export function attemptDescriber(
  shownBase: string,
  keySource: string,
  redact: (s: string) => string,
  /** The service, named first in every message ("Groq: HTTP 500 …"). */
  service?: string,
) {
  const named = (text: string): string => (service ? `${service}: ${text}` : text);
  const message = (f: HttpFailure): string => {
    if (isAuthFailure(f)) {
      return `authentication failed (${f.status}) at ${shownBase}: ${f.message || 'no message'}; check ${keySource}`;
    }
    const text = describeFailure(f);
    return f.kind === 'network' || f.kind === 'timeout' ? `${text} (${shownBase})` : text;
  };
  return (attempt: Exclude<HttpAttempt, { ok: true }>): { error: string; failure: AttemptFailure } => {
    const { retryAfterMs: _ignored, ...failure } = attempt;
    const explain = (attempts: number): string => redact(named(message({ ...failure, attempts })));
    return { error: explain(1), failure: { ...attemptFailure(attempt)!, explain } };
  };
}

/** What one POST of a JSON body gave: the answer's text, or the failure as the call policy reads it. */
export type Posted =
  | {
      text: string;
      latencyMs: number;
      chunks?: TimedChunk[];
      /** Set when the answer's status is not 2xx (one the caller said may hold an answer: `answered`). */
      status?: number;
    }
  | {
      failed: { error: string; failure: AttemptFailure; latencyMs: number };
      /** Bad credentials, or nothing listens: the run stops. */
      fatal: boolean;
    };

/** POSTs a JSON body once (the call policy retries); a failed attempt is described, never thrown. */
export async function postJson(
  target: { origin: string; path: string },
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | AttemptAbort | undefined,
  options: Pick<RetryOptions, 'connections' | 'now'>,
  describe: ReturnType<typeof attemptDescriber>,
  /** Keep the body's pieces with their arrival times (a streamed answer). */
  timed = false,
  /** Statuses besides 2xx whose body is handed back to be read (it may hold the service's answer). */
  answered?: (status: number) => boolean,
): Promise<Posted> {
  const started = performance.now();
  const outcome = await sendOnce(
    {
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
      timed,
      answered,
    },
    options,
  );
  const latencyMs = performance.now() - started;
  if (outcome.ok && (outcome.status < 200 || outcome.status >= 300))
    return { text: outcome.body, latencyMs, status: outcome.status };
  if (outcome.ok)
    return outcome.chunks
      ? { text: outcome.body, latencyMs, chunks: outcome.chunks }
      : { text: outcome.body, latencyMs };
  return {
    failed: { ...describe(outcome), latencyMs },
    fatal: isAuthFailure(outcome) || isUnreachable(outcome),
  };
}

/**
 * The lines of a streamed body (server-sent events, or newline-delimited JSON), each with the time
 * the piece that completed it arrived. Blank lines are dropped; a last line without an end counts.
 */
export function timedLines(chunks: TimedChunk[]): { at: number; line: string }[] {
  const out: { at: number; line: string }[] = [];
  let pending = '';
  for (const chunk of chunks) {
    pending += chunk.text;
    let end = pending.indexOf('\n');
    while (end >= 0) {
      const line = pending.slice(0, end).replace(/\r$/, '');
      if (line.trim() !== '') out.push({ at: chunk.at, line });
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
    }
  }
  if (pending.trim() !== '') out.push({ at: chunks.at(-1)?.at ?? 0, line: pending });
  return out;
}

/** Tokens per second after the first token: completion tokens over the time from it to the end. */
export function streamTiming(
  firstTokenMs: number | undefined,
  latencyMs: number,
  completionTokens: number | undefined,
): { firstTokenMs: number; tokensPerSecond?: number } | undefined {
  if (firstTokenMs === undefined) return undefined;
  const rounded = Math.round(firstTokenMs * 1000) / 1000;
  const seconds = (latencyMs - firstTokenMs) / 1000;
  if (completionTokens === undefined || completionTokens <= 0 || !(seconds > 0))
    return { firstTokenMs: rounded };
  return { firstTokenMs: rounded, tokensPerSecond: Math.round((completionTokens / seconds) * 1000) / 1000 };
}

/** A reply body read as JSON, or the error a provider returns for one that is not. */
export function jsonReply(
  text: string,
  redact: (s: string) => string,
  what = 'response',
): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { error: redact(`malformed ${what} (not JSON): ${excerpt(text)}`) };
  }
}

/** Where a provider's key came from, for the message when it is refused: the user checks that place. */
export function keySourceOf(spec: ProviderSpec, fromConfig: boolean, envName: string): string {
  if (!fromConfig) return envName;
  const at = spec.source ? ` (${spec.source.file}${spec.source.line ? `:${spec.source.line}` : ''})` : '';
  return `the provider's config.apiKey${at}`;
}

/** Per-token prices from the config (promptfoo's `cost`, or `inputCost`/`outputCost`). */
export function configuredPricing(config: Config): Pricing | undefined {
  const both = finite(config.cost);
  const input = finite(config.inputCost) ?? both;
  const output = finite(config.outputCost) ?? both;
  if (input === undefined && output === undefined) return undefined;
  return { input: input ?? 0, output: output ?? 0 };
}

/** Usage from prompt and completion token counts (either may be missing), with the cost when priced. */
export function usageOf(
  prompt: number | undefined,
  completion: number | undefined,
  total: number | undefined,
  pricing: Pricing | undefined,
): { usage?: TokenUsage; cost?: number } {
  const sum =
    total ??
    (prompt !== undefined || completion !== undefined ? (prompt ?? 0) + (completion ?? 0) : undefined);
  if (prompt === undefined && completion === undefined && sum === undefined) return {};
  const usage: TokenUsage = { prompt, completion, total: sum };
  return pricing
    ? { usage, cost: (prompt ?? 0) * pricing.input + (completion ?? 0) * pricing.output }
    : { usage };
}

/** Connections for a provider's pool: more than -j, so stalled requests do not block healthy ones. */
export function poolSize(maxConcurrency: number): number {
  return Math.max(1, maxConcurrency) * 2 + 4;
}

export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export { isRecord };
