/**
 * One call policy for every provider. A provider makes one attempt per call and describes how it
 * failed (`ProviderResponse.failure`); the policy wrapped around it retries transient failures
 * within bounded attempts, waits as the service asked (capped), gives each attempt a deadline,
 * runs the endpoint's adaptive limiter, counts attempts, and keeps the run's secrets out of errors.
 */
import { performance } from 'node:perf_hooks';
import { canonicalJson } from '../core/hash.js';
import { Secrets } from '../core/secrets.js';
import type { ProviderSpec } from '../core/types.js';
import { getLimiter } from './limiter.js';
import { type AttemptAbort, type AttemptHooks, type AttemptsEnd, runAttempts, timedOut } from './retry.js';
import type {
  AttemptFailure,
  EmbeddingRequest,
  EmbeddingResponse,
  Provider,
  ProviderContext,
  ProviderRequest,
  ProviderResponse,
  RetryPolicy,
} from './types.js';

/** What the policy of one provider is made of. */
export interface CallPolicySettings extends AttemptHooks {
  retry: RetryPolicy;
  /** Ceiling of the endpoint's adaptive limiter (`-j`). */
  maxConcurrency: number;
  /** What never appears in an error, in any spelling (the run's secrets). */
  secrets: Secrets;
}

const WRAPPED = Symbol('assay.callPolicy');

/** The policy settings of a provider: the run's retry policy, with its config's `maxRetries` and `timeoutMs`. */
export function callPolicyFor(
  spec: ProviderSpec,
  ctx: ProviderContext,
  hooks: AttemptHooks = {},
): CallPolicySettings {
  return {
    ...hooks,
    retry: retryPolicy(ctx.retry, spec.config ?? {}),
    maxConcurrency: Math.max(1, ctx.maxConcurrency),
    // The run's boundary; a provider built outside a run redacts its environment's secrets.
    secrets: ctx.secrets ?? new Secrets().addEnv(ctx.env),
  };
}

/** The run's retry policy overridden by a provider config's `maxRetries` and `timeoutMs` (or `timeout`). */
export function retryPolicy(base: RetryPolicy, config: Record<string, unknown>): RetryPolicy {
  const policy = { ...base };
  const maxRetries = finite(config.maxRetries);
  if (maxRetries !== undefined) policy.maxAttempts = Math.max(0, Math.floor(maxRetries)) + 1;
  const timeout = finite(config.timeoutMs) ?? finite(config.timeout);
  if (timeout !== undefined && timeout > 0) policy.timeoutMs = timeout;
  return policy;
}

/**
 * A provider whose every call (and embedding request) runs under the call policy. Wrapping a
 * provider that already has it returns that provider: retries never multiply.
 */
export function withCallPolicy(provider: Provider, settings: CallPolicySettings): Provider {
  if ((provider as { [WRAPPED]?: true })[WRAPPED]) return provider;
  // Providers that name no shared endpoint get a limiter of their own description.
  const limiterKey = provider.endpoint?.key ?? `provider:${canonicalJson(provider.describe())}`;
  const shown = provider.endpoint?.shown;
  const loop = (signal: AbortSignal | undefined) => ({
    policy: settings.retry,
    limiter: getLimiter(limiterKey, settings.maxConcurrency),
    signal,
    sleep: settings.sleep,
    random: settings.random,
    atOnce: provider.answersAtOnce === true,
  });
  // The run's secrets and whatever this provider was given as a credential.
  const secrets = settings.secrets.addAll(provider.credentials ?? []);
  const scrub = (text: string): string => secrets.redact(text);

  const wrapped: Provider & { [WRAPPED]: true } = {
    [WRAPPED]: true,
    id: provider.id,
    label: provider.label,
    describe: () => provider.describe(),
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      const started = performance.now();
      let lastStarted = started;
      const end = await runAttempts(
        (abort) => {
          lastStarted = performance.now();
          return provider.call(new AttemptRequest(request, abort));
        },
        (response) => (response.error === undefined ? undefined : (response.failure ?? NOT_TRANSIENT)),
        loop(request.signal),
      );
      if (end.kind !== 'answered') {
        return {
          output: null,
          error: scrub(failedCall(end, provider.id, shown)),
          latencyMs: performance.now() - started,
          attempts: end.attempts,
        };
      }
      const { failure, ...response } = end.value;
      // The provider's own latency for its last attempt, plus the earlier attempts and waits: a
      // provider's latency (echo's 0) is kept exactly when it answered at once.
      if (end.attempts > 1) response.latencyMs += lastStarted - started;
      response.attempts = response.attempts === 0 ? 0 : end.attempts;
      if (response.error !== undefined)
        response.error = scrub(errorText(response.error, failure, end.attempts));
      return response;
    },
  };
  if (provider.credentials)
    (wrapped as { credentials?: readonly string[] }).credentials = provider.credentials;
  if (provider.unusable) (wrapped as { unusable?: string }).unusable = provider.unusable;
  if (provider.endpoint) (wrapped as { endpoint?: Provider['endpoint'] }).endpoint = provider.endpoint;
  if (provider.cacheable !== undefined) (wrapped as { cacheable?: boolean }).cacheable = provider.cacheable;
  if (provider.requestKey) wrapped.requestKey = (request) => provider.requestKey!(request);
  if (provider.close) wrapped.close = () => provider.close!();
  const embed = provider.embed?.bind(provider);
  if (embed) {
    wrapped.embed = async (request: EmbeddingRequest): Promise<EmbeddingResponse> => {
      const started = performance.now();
      const end = await runAttempts(
        (abort) => embed({ ...request, signal: abort.signal }),
        (response) => (response.error === undefined ? undefined : (response.failure ?? NOT_TRANSIENT)),
        loop(request.signal),
      );
      if (end.kind !== 'answered')
        return { error: scrub(failedCall(end, provider.id, shown)), latencyMs: performance.now() - started };
      const { failure, ...response } = end.value;
      response.latencyMs = performance.now() - started;
      if (response.error !== undefined)
        response.error = scrub(errorText(response.error, failure, end.attempts));
      return response;
    };
  }
  return wrapped;
}

/**
 * The request of one attempt. Its abort signal is made only if the provider reads it: making one
 * costs more than a whole echo call. A getter on the prototype keeps every instance one fast
 * shape (an own getter per object measured 3-4 times slower per call).
 */
class AttemptRequest implements ProviderRequest {
  readonly prompt: string;
  readonly messages: ProviderRequest['messages'];
  readonly params: ProviderRequest['params'];
  readonly vars: ProviderRequest['vars'];
  readonly #abort: AttemptAbort;
  constructor(request: ProviderRequest, abort: AttemptAbort) {
    this.prompt = request.prompt;
    this.messages = request.messages;
    this.params = request.params;
    this.vars = request.vars;
    this.#abort = abort;
  }
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  static abortOf(request: ProviderRequest): AttemptAbort | undefined {
    return #abort in request ? (request as AttemptRequest).#abort : undefined;
  }
}

/**
 * The cancellation of a request made under the call policy, as the HTTP transport takes it
 * (without making an AbortSignal); undefined for any other request (read its `signal`).
 */
export function attemptAbortOf(request: ProviderRequest): AttemptAbort | undefined {
  return AttemptRequest.abortOf(request);
}

/** A failure a provider did not describe is taken as final: retrying an unknown error risks repeating a cost. */
const NOT_TRANSIENT: AttemptFailure = { transient: false };

/** The error of a call that ended without an answer (timeout, cancellation, a provider that threw). */
function failedCall(
  end: Exclude<AttemptsEnd<unknown>, { kind: 'answered' }>,
  providerId: string,
  shown: string | undefined,
): string {
  const tries = afterAttempts(end.attempts);
  switch (end.kind) {
    case 'timeout':
      return `${timedOut(end.timeoutMs)} ${tries}${shown ? ` (${shown})` : ''}`;
    case 'aborted':
      return `request aborted ${tries}`;
    default: {
      const message = end.error instanceof Error ? end.error.message : String(end.error);
      return `provider ${providerId} failed (it threw): ${message}`;
    }
  }
}

/** The error text of an answered failure once the attempts are known. */
function errorText(error: string, failure: AttemptFailure | undefined, attempts: number): string {
  if (failure?.explain) return failure.explain(attempts);
  return failure?.transient ? `${error} (${afterAttempts(attempts)})` : error;
}

function afterAttempts(n: number): string {
  return `after ${n} attempt${n === 1 ? '' : 's'}`;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
