import { jobKey, sha256 } from '../core/hash.js';
import { allowedBy } from '../core/refs.js';
import type { Job, PromptTemplate, ProviderSpec, Suite } from '../core/types.js';
import { hasComparisons } from './compare.js';

/** The key a provider is known by in jobs and reports: its label, else its id. */
export function providerKey(spec: ProviderSpec): string {
  return spec.label ?? spec.id;
}

export interface PlanOptions {
  /** Trials per case × prompt × provider (`--repeat`). */
  repeat: number;
}

interface Slot {
  caseId: string;
  caseIndex: number;
  trial: number;
  providerId: string;
  promptId: string;
}

/** The job slots of a plan, in order, without their keys (hashing is the costly part). */
function* planSlots(suite: Suite, providers: ProviderSpec[], options: PlanOptions): Generator<Slot> {
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
        const providerId = providerKey(provider);
        for (const prompt of promptsByProvider.get(provider) ?? []) {
          if (!allowedBy(c.only?.prompts, prompt)) continue;
          yield { caseId: c.id, caseIndex, trial, providerId, promptId: prompt.id };
        }
      }
    }
  }
}

/**
 * Expands a suite into jobs lazily (cases × trials × providers × prompts), honouring per-case and
 * per-provider restrictions. A generator, so 100k jobs never sit in memory at once.
 */
export function* planJobs(suite: Suite, providers: ProviderSpec[], options: PlanOptions): Generator<Job> {
  let grouped: { caseIndex: number; yes: boolean } | undefined;
  for (const s of planSlots(suite, providers, options)) {
    const job: Job = { key: jobKey(s.caseId, s.promptId, s.providerId, s.trial), ...s };
    if (grouped?.caseIndex !== s.caseIndex)
      grouped = { caseIndex: s.caseIndex, yes: hasComparisons(suite.cases[s.caseIndex]) };
    if (grouped.yes) job.group = groupKey(s.caseId, s.trial);
    yield job;
  }
}

/** The key shared by the jobs of one case and trial (a hash, like job keys, so shards can split on it). */
export function groupKey(caseId: string, trial: number): string {
  return sha256(`group\u0000${caseId}\u0000${trial}`);
}

/** Counts the jobs a plan will produce, without materialising or hashing them. */
export function countJobs(suite: Suite, providers: ProviderSpec[], options: PlanOptions): number {
  let n = 0;
  for (const _ of planSlots(suite, providers, options)) n++;
  return n;
}
