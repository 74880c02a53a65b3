import { replyText } from '../core/answer.js';
import { canonicalJson, sha256 } from '../core/hash.js';
import type { Secrets } from '../core/secrets.js';
import {
  type AssertionSpec,
  type GradingUsage,
  type Message,
  type ProviderSpec,
  SELF_GRADER,
} from '../core/types.js';
import { createProvider } from '../providers/registry.js';
import type { Provider, ProviderContext } from '../providers/types.js';
import { type Grader, GraderError, type GraderReply } from '../scorers/types.js';
import { cacheKey, type ResponseCache } from './cache.js';
import { providerKey } from './plan.js';

export interface GraderPoolOptions {
  /** `--grader`: replaces the suite's default grader (an assertion's own provider still wins). */
  override?: ProviderSpec;
  /** `--embedder`: the embedding provider of graders that have none. */
  embedder?: ProviderSpec;
  /** The suite's default grader. */
  suiteDefault?: ProviderSpec;
  providerContext: ProviderContext;
  cache?: ResponseCache;
  hardSignal?: AbortSignal;
  /** The run's secrets: grader errors are redacted with them (a grader built here declares its credentials into them through `providerContext`). */
  secrets?: Secrets;
  /** Grader providers already built (before the run, so a bad config stops it), by providerKey. */
  built?: Map<string, Provider>;
}

/**
 * Which grader judges an assertion: its own provider, else `--grader`, else the suite's default.
 * Undefined when none is configured. `SELF_GRADER` stands for the provider under test.
 */
export function graderSpecFor(
  spec: AssertionSpec,
  override: ProviderSpec | undefined,
  suiteDefault: ProviderSpec | undefined,
  embedder?: ProviderSpec,
): ProviderSpec | undefined {
  const chosen = spec.grader ?? override ?? suiteDefault;
  // `--embedder` gives embeddings to a grader that has none of its own; it never creates a grader,
  // so no model ends up judging unless the suite or the user asked for one.
  if (!chosen || !embedder || chosen.embedding) return chosen;
  return { ...chosen, embedding: embedder };
}

/**
 * Counts the tokens and cost of one job's grader calls. Graders are shared by every job of a run,
 * so each job wraps the ones it uses in its own meter.
 */
export class GradingMeter {
  private usage: GradingUsage = {
    calls: 0,
    cached: 0,
    prompt: 0,
    completion: 0,
    total: 0,
    cachedTokens: 0,
    cost: 0,
  };

  /** The grader, counting what its completions use. */
  wrap(grader: Grader): Grader {
    return {
      ...grader,
      complete: async (messages, params) => {
        const reply = await grader.complete(messages, params);
        this.record(reply);
        return reply;
      },
    };
  }

  private record(reply: GraderReply): void {
    const u = this.usage;
    const prompt = reply.usage?.prompt ?? 0;
    const completion = reply.usage?.completion ?? 0;
    const total = reply.usage?.total ?? prompt + completion;
    u.calls++;
    u.prompt += prompt;
    u.completion += completion;
    u.total += total;
    // A cached reply keeps the cost it had when asked, as a cached answer under test does.
    u.cost += reply.cost ?? 0;
    if (reply.cached) {
      u.cached++;
      u.cachedTokens += total;
    }
  }

  /** What the job's graders used, or undefined when no grader was asked. */
  result(): GradingUsage | undefined {
    return this.usage.calls > 0 ? { ...this.usage } : undefined;
  }
}

/**
 * Builds grader providers on first use and shares one instance per grader spec for the run.
 * Grader calls go through the same retries and response cache as the calls under test.
 */
export class GraderPool {
  private readonly providers = new Map<string, Promise<Provider>>();
  /** Wrapped graders by text provider, then by embedding provider. */
  private readonly graders = new Map<Provider, Map<Provider, Grader>>();

  constructor(private readonly options: GraderPoolOptions) {
    for (const [key, provider] of options.built ?? []) this.providers.set(key, Promise.resolve(provider));
  }

  /**
   * The grader for an assertion of a job whose provider is `self`, or undefined when none is
   * configured. A spec with an `embedding` provider answers `complete` with its own provider and
   * `embed` with the embedding one.
   */
  async resolve(spec: AssertionSpec, self: Provider): Promise<Grader | undefined> {
    const graderSpec = graderSpecFor(
      spec,
      this.options.override,
      this.options.suiteDefault,
      this.options.embedder,
    );
    if (!graderSpec) return undefined;
    const build = (s: ProviderSpec): Promise<Provider> =>
      s.id === SELF_GRADER ? Promise.resolve(self) : this.provider(s);
    const text = await build(graderSpec);
    const embedding = graderSpec.embedding ? await build(graderSpec.embedding) : text;
    let byEmbedding = this.graders.get(text);
    if (!byEmbedding) {
      byEmbedding = new Map();
      this.graders.set(text, byEmbedding);
    }
    let grader = byEmbedding.get(embedding);
    if (!grader) {
      grader = this.wrap(text, embedding);
      byEmbedding.set(embedding, grader);
    }
    return grader;
  }

  private provider(spec: ProviderSpec): Promise<Provider> {
    const key = providerKey(spec);
    let p = this.providers.get(key);
    if (!p) {
      // Its credentials join the run's secrets as it is built (providerContext.secrets).
      p = createProvider(spec, this.options.providerContext);
      this.providers.set(key, p);
    }
    return p;
  }

  private wrap(provider: Provider, embedder: Provider): Grader {
    const { cache, hardSignal } = this.options;
    const identity = provider.describe();
    const useCache = provider.cacheable !== false ? cache : undefined;
    const embedIdentity = embedder.describe();
    const useEmbedCache = embedder.cacheable !== false ? cache : undefined;
    const { secrets } = this.options;
    const scrub = (text: string): string => (secrets ? secrets.redact(text) : text);
    const grader: Grader = {
      id: provider.id,
      embeddingId: embedder.id,
      complete: async (messages: Message[], params: Record<string, unknown> = {}): Promise<GraderReply> => {
        const key = useCache ? cacheKey(identity, { messages, params }, 0) : undefined;
        const hit = key ? useCache?.get(key) : undefined;
        if (hit) return { output: replyText(hit) ?? '', usage: hit.usage, cost: hit.cost, cached: true };
        const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
        const response = await provider.call({ prompt: text, messages, params, signal: hardSignal });
        if (response.error !== undefined)
          throw new GraderError(scrub(`grader ${provider.id} failed: ${response.error}`));
        const output = replyText(response);
        if (output === null) throw new GraderError(`grader ${provider.id} returned no output`);
        if (key) useCache?.set(key, response);
        return { output, usage: response.usage, cost: response.cost };
      },
    };
    const embed = embedder.embed?.bind(embedder);
    if (embed) {
      grader.embed = async (texts: string[]): Promise<number[][]> => {
        const key = useEmbedCache ? sha256(canonicalJson({ v: 1, embed: embedIdentity, texts })) : undefined;
        const hit = key ? useEmbedCache?.get(key) : undefined;
        if (hit?.output) return JSON.parse(hit.output) as number[][];
        const response = await embed({ texts, signal: hardSignal });
        if (response.error !== undefined || !response.embeddings)
          throw new GraderError(
            scrub(`embeddings from ${embedder.id} failed: ${response.error ?? 'no embeddings returned'}`),
          );
        if (response.embeddings.length !== texts.length)
          throw new GraderError(
            `embeddings from ${embedder.id}: asked for ${texts.length}, got ${response.embeddings.length}`,
          );
        if (key)
          useEmbedCache?.set(key, {
            output: JSON.stringify(response.embeddings),
            latencyMs: response.latencyMs,
          });
        return response.embeddings;
      };
    }
    return grader;
  }

  /** Closes the grader providers this pool created (never the providers under test). */
  async close(): Promise<void> {
    for (const p of this.providers.values()) {
      try {
        await (await p).close?.();
      } catch {
        // A grader that failed to build has nothing to close.
      }
    }
  }
}
