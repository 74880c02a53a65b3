import type { Secrets } from '../core/secrets.js';
import type { Answer, Message, ProviderSpec, StreamTiming, TokenUsage } from '../core/types.js';

/** What a provider is asked to do for one job. */
export interface ProviderRequest {
  /** The rendered prompt text (what `echo` returns). */
  prompt: string;
  /** The conversation to send. */
  messages: Message[];
  /** Per-job generation parameters (prompt config and case params), merged over the provider config. */
  params: Record<string, unknown>;
  /** The case's vars (a provider that runs user code passes them on, as promptfoo's context does). */
  vars?: Record<string, unknown>;
  /**
   * Aborts the attempt (its deadline passed, or the run stopped hard). Under the call policy it is
   * made when first read, so read `request.signal` itself: a copy made by spreading lacks it.
   */
  signal?: AbortSignal;
}

/**
 * How one failed attempt failed, so the call policy (providers/call-policy.ts) knows whether to
 * try again, how long to wait and whether to slow down. A provider describes; the policy decides.
 */
export interface AttemptFailure {
  /** Another attempt may succeed: a timeout, a reset connection, "too many requests", a server error. */
  transient: boolean;
  /** The wait the service asked for before the next attempt (Retry-After), uncapped; the policy caps it. */
  retryAfterMs?: number;
  /** The service said "too many requests": the endpoint's adaptive limiter halves. */
  rateLimited?: boolean;
  /**
   * The error text once the number of attempts is known (`HTTP 500 after 3 attempts: …`). Without
   * it, a transient failure reads `<error> (after N attempts)` and any other the `error` as given.
   */
  explain?(attempts: number): string;
}

/**
 * What came back. A provider never throws for a failed call: it returns `error`. A provider makes
 * one attempt per `call`; the call policy wrapped around it retries, times out and counts attempts.
 *
 * An answer is structured: `answer` holds it as it came (content blocks, the wire dialect, the
 * finish reason normalised with the raw value beside it), `usage` and `cost` what it cost; the
 * engine derives the `output` assertions see with the suite's output rule (core/answer.ts).
 * A provider not yet moved onto the structure returns plain text in `output` instead (the
 * compatibility path: read as one text block, its finish reason as given).
 */
export interface ProviderResponse {
  /** The answer as it came (see core/types.ts Answer). */
  answer?: Answer;
  /**
   * Compatibility path (providers not yet on `answer`): the answer as plain text; null or absent
   * with `error`. A provider returning `answer` leaves it absent.
   */
  output?: string | null;
  /**
   * Compatibility path: set when a plain-text answer had no text content (`content: null`): what
   * it had instead (`tool calls`, `a refusal`, `nothing`); `output` then stands for it (e.g. the
   * tool calls as JSON). With `answer`, the engine reads this from the blocks.
   */
  nonText?: string;
  error?: string;
  /** With `error`, from one attempt: how it failed. Absent: not worth another attempt. The policy removes it. */
  failure?: AttemptFailure;
  /**
   * Set when continuing is pointless (bad credentials): the engine stops the run. A transient
   * failure that is also fatal (nothing listens at the address) is retried first.
   */
  fatal?: boolean;
  /** Compatibility path: the finish reason as the provider gave it (with `answer`, it is `answer.finishReason`). */
  finishReason?: string;
  /** Tokens, where the API reported them (absent where it gave none: never made-up zeros). */
  usage?: TokenUsage;
  cost?: number;
  latencyMs: number;
  /** For a streamed answer: time to first token and tokens per second. */
  stream?: StreamTiming;
  /** Token log-probabilities, when requested (`logprobs: true`) and returned. */
  logProbs?: number[];
  /** Attempts made (1 = no retry), set by the call policy; a provider answering 0 says it refused without trying. */
  attempts?: number;
  cached?: boolean;
}

export interface EmbeddingRequest {
  texts: string[];
  signal?: AbortSignal;
}

export interface EmbeddingResponse {
  /** One vector per input text, in order. */
  embeddings?: number[][];
  error?: string;
  /** With `error`, from one attempt: how it failed (as for a chat call). */
  failure?: AttemptFailure;
  usage?: TokenUsage;
  latencyMs: number;
}

/** A model endpoint. One instance per provider spec, shared by all jobs of a run. */
export interface Provider {
  readonly id: string;
  readonly label: string;
  /** A secret-free description (id, model, base URL, parameters) for manifests and cache keys. */
  describe(): Record<string, unknown>;
  /**
   * What the provider talks to: providers with the same `key` (an HTTP origin) share one adaptive
   * limiter (default: one per provider description); `shown` names it in timeout messages.
   */
  readonly endpoint?: { key: string; shown?: string };
  /**
   * The values this provider was given as credentials (its key, whatever variable held it; the
   * values of credential headers; tokens): never written to any file, nor shown in any message.
   */
  readonly credentials?: readonly string[];
  /**
   * Why this provider cannot make any call at all (no API key for a service that needs one, no
   * cloud credential): a run refuses it before the first call, naming what to set, instead of
   * recording one identical error per job.
   */
  readonly unusable?: string;
  /** False for providers whose answers cost nothing to recompute (echo): they bypass the response cache. */
  readonly cacheable?: boolean;
  /**
   * True for providers that answer without waiting on anything outside the process (echo): their
   * calls cannot hang, so they run without per-attempt deadline and stall timers.
   */
  readonly answersAtOnce?: boolean;
  call(request: ProviderRequest): Promise<ProviderResponse>;
  /**
   * Everything that shapes what `call` would send for this request, secrets left out: the endpoint,
   * the headers that are not credentials, the final body. The response cache keys on it, so any
   * setting that changes the request (a passthrough field, a header) is a different entry. A
   * provider without it is keyed on `describe()`, the messages and the parameters.
   */
  requestKey?(request: ProviderRequest): unknown;
  /** Embeddings for texts (`/v1/embeddings`), for providers that offer them. Never throws: returns `error`. */
  embed?(request: EmbeddingRequest): Promise<EmbeddingResponse>;
  /** Releases connections. */
  close?(): Promise<void>;
}

/** Bounded retries for transient failures. */
export interface RetryPolicy {
  /** Total attempts, first one included. */
  maxAttempts: number;
  /** First backoff; doubles each attempt, with jitter. */
  baseDelayMs: number;
  /** Cap on any single wait, Retry-After included. */
  maxDelayMs: number;
  /** Per-attempt timeout (for HTTP: headers and body); the attempt is aborted, then abandoned. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 60_000,
  timeoutMs: 120_000,
};

/** Context a provider factory may use. */
export interface ProviderContext {
  /** Process env overlaid with the suite's `env`. */
  env: Record<string, string | undefined>;
  /** Upper bound of concurrent requests (sizes connection pools). */
  maxConcurrency: number;
  retry: RetryPolicy;
  /** The suite's folder: where a provider that runs a program runs it. */
  basePath?: string;
  /**
   * Called with a credential a provider obtains after it was built (an access token exchanged for
   * a client secret): the run keeps it out of every file from then on, as it does `credentials`.
   */
  addSecret?(value: string): void;
  /**
   * The run's secrets (its one redaction boundary): the registry declares into it every credential
   * of a provider it builds (config, URLs, `credentials`), and the call policy redacts errors with it.
   */
  secrets?: Secrets;
}

export type ProviderFactory = (spec: ProviderSpec, ctx: ProviderContext) => Provider;
