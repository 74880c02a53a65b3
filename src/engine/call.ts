// Calling a provider as the engine does: answered from the response cache when it can be, and
// followed by the `--delay` wait when the call reached the provider.
import { DEFAULT_RULE, type OutputRule } from '../core/answer.js';
import type { Provider, ProviderRequest, ProviderResponse } from '../providers/types.js';
import { cacheKey, type ResponseCache, requestCacheKey } from './cache.js';

/** A provider as the engine calls it: with its cache identity (computed once per run, not per job). */
export interface Caller {
  provider: Provider;
  identity: Record<string, unknown>;
  cache?: ResponseCache;
  /** `--delay`: the worker waits this long after each call that reached the provider. */
  delayMs?: number;
  hardSignal?: AbortSignal;
  /** The suite's output rule: what assertions see of a structured answer (core/answer.ts). */
  rule: OutputRule;
  /** The provider's config, as the rule reads it (promptfoo's `showThinking`, `response_format`). */
  config: Record<string, unknown>;
}

/** A Caller for a provider: a provider that declares itself not cacheable gets no cache. */
export function callerFor(
  provider: Provider,
  cache: ResponseCache | undefined,
  delayMs: number | undefined,
  hardSignal: AbortSignal,
  rule: OutputRule = DEFAULT_RULE,
  config: Record<string, unknown> = {},
): Caller {
  return {
    provider,
    identity: provider.describe(),
    cache: provider.cacheable === false ? undefined : cache,
    delayMs,
    hardSignal,
    rule,
    config,
  };
}

/**
 * Calls the provider unless the cache holds this exact request (provider identity, messages,
 * parameters, trial and repetition of the conversation); stores successful answers. Errors are
 * never cached.
 */
export async function callWithCache(
  ctx: Caller,
  trial: number,
  request: ProviderRequest,
  repetition = 0,
): Promise<ProviderResponse> {
  if (!ctx.cache) return callThenWait(ctx, request);
  // Keyed on the request as the provider would send it when it can say (so a changed header or
  // passthrough field is a new entry), else on its description, the messages and parameters.
  const key = ctx.provider.requestKey
    ? requestCacheKey(ctx.provider.requestKey(request), trial, repetition)
    : cacheKey(ctx.identity, { messages: request.messages, params: request.params }, trial, repetition);
  const hit = ctx.cache.get(key);
  // A hit keeps the latency measured when the model answered: it describes the model, and latency
  // assertions judge it the same way with or without the cache (`cached: true` marks the result).
  if (hit) {
    // (A hit is parsed afresh for each get: this call's own object.)
    const response: ProviderResponse = hit;
    response.cached = true;
    response.attempts = 0;
    return response;
  }
  const response = await callThenWait(ctx, request);
  if (response.error === undefined) ctx.cache.set(key, response);
  return response;
}

/**
 * Calls the provider, then holds the worker for `--delay` ms (promptfoo's delay: after every call
 * that reached the provider, so a cache hit costs no wait). A hard stop cuts the wait short.
 */
async function callThenWait(ctx: Caller, request: ProviderRequest): Promise<ProviderResponse> {
  const response = await ctx.provider.call(request);
  if (ctx.delayMs && ctx.delayMs > 0 && !ctx.hardSignal?.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ctx.delayMs);
      function done(): void {
        clearTimeout(timer);
        ctx.hardSignal?.removeEventListener('abort', done);
        resolve();
      }
      ctx.hardSignal?.addEventListener('abort', done, { once: true });
    });
  }
  return response;
}
