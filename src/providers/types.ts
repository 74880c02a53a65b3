import type { Message, ProviderSpec, TokenUsage } from '../core/types.js';

/** What a provider is asked to do for one job. */
export interface ProviderRequest {
  /** The rendered prompt text (what `echo` returns). */
  prompt: string;
  /** The conversation to send. */
  messages: Message[];
  /** Per-job generation parameters (prompt config and case params), merged over the provider config. */
  params: Record<string, unknown>;
  signal?: AbortSignal;
}

/** What came back. A provider never throws for a failed call: it returns `error`. */
export interface ProviderResponse {
  output: string | null;
  /**
   * Set when the answer had no text content (`content: null`): what it had instead (`tool calls`,
   * `a refusal`, `nothing`); `output` then stands for it (e.g. the tool calls as JSON).
   */
  nonText?: string;
  error?: string;
  /** Set when continuing is pointless (bad credentials): the engine stops the run. */
  fatal?: boolean;
  finishReason?: string;
  usage?: TokenUsage;
  cost?: number;
  latencyMs: number;
  /** Token log-probabilities, when requested (`logprobs: true`) and returned. */
  logProbs?: number[];
  /** HTTP attempts made (1 = no retry). */
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
  usage?: TokenUsage;
  latencyMs: number;
}

/** A model endpoint. One instance per provider spec, shared by all jobs of a run. */
export interface Provider {
  readonly id: string;
  readonly label: string;
  /** A secret-free description (id, model, base URL, parameters) for manifests and cache keys. */
  describe(): Record<string, unknown>;
  /** False for providers whose answers cost nothing to recompute (echo): they bypass the response cache. */
  readonly cacheable?: boolean;
  call(request: ProviderRequest): Promise<ProviderResponse>;
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
  /** Per-request timeout (headers and body). */
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
}

export type ProviderFactory = (spec: ProviderSpec, ctx: ProviderContext) => Provider;
