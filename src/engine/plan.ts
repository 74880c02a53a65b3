import { jobKey } from '../core/hash.js';
import { allowedBy } from '../core/refs.js';
import type { Job, PromptTemplate, ProviderSpec, Suite } from '../core/types.js';

/** The key a provider is known by in jobs and reports: its label, else its id. */
export function providerKey(spec: ProviderSpec): string {
  return spec.label ?? spec.id;
}

export interface PlanOptions {
  /** Trials per case × prompt × provider (`--repeat`). */
  repeat: number;
}

/**
 * Expands a suite into jobs lazily (cases × trials × providers × prompts), honouring per-case and
 * per-provider restrictions. A generator, so 100k jobs never sit in memory at once.
 */
export function* planJobs(suite: Suite, providers: ProviderSpec[], options: PlanOptions): Generator<Job> {
  const promptsByProvider = new Map<ProviderSpec, PromptTemplate[]>();
  for (const p of providers) {
    promptsByProvider.set(
      p,
      suite.prompts.filter((t) => allowedBy(p.prompts, t)),
    );
  }
  for (let caseIndex = 0; caseIndex < suite.cases.length; caseIndex++) {
    const c = suite.cases[caseIndex];
    for (let trial = 0; trial < options.repeat; trial++) {
      for (const provider of providers) {
        if (!allowedBy(c.only?.providers, provider)) continue;
        const key = providerKey(provider);
        for (const prompt of promptsByProvider.get(provider) ?? []) {
          if (!allowedBy(c.only?.prompts, prompt)) continue;
          yield {
            key: jobKey(c.id, prompt.id, key, trial),
            caseId: c.id,
            caseIndex,
            promptId: prompt.id,
            providerId: key,
            trial,
          };
        }
      }
    }
  }
}

/** Counts the jobs a plan will produce, without materialising them. */
export function countJobs(suite: Suite, providers: ProviderSpec[], options: PlanOptions): number {
  let n = 0;
  for (const _ of planJobs(suite, providers, options)) n++;
  return n;
}
