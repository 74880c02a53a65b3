import { suiteCases, surveyOf } from '../core/cases.js';
import { jobKey, sha256 } from '../core/hash.js';
import { allowedBy } from '../core/refs.js';
import type { Case, Job, PromptTemplate, ProviderSpec, Suite } from '../core/types.js';
import { hasComparisons } from './cross-row.js';

/** The key a provider is known by in jobs and reports: its label, else its id. */
export function providerKey(spec: ProviderSpec): string {
  return spec.label ?? spec.id;
}

export interface PlanOptions {
  /** Trials per case × prompt × provider (`--repeat`). */
  repeat: number;
}

interface Slot {
  testCase: Case;
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
  let caseIndex = -1;
  // One pass over the cases (a streamed suite reads its files once per plan).
  for (const c of suiteCases(suite)) {
    caseIndex++;
    for (let trial = 0; trial < options.repeat; trial++) {
      for (const provider of providers) {
        if (!allowedBy(c.only?.providers, provider)) continue;
        const providerId = providerKey(provider);
        for (const prompt of promptsByProvider.get(provider) ?? []) {
          if (!allowedBy(c.only?.prompts, prompt)) continue;
          yield { testCase: c, caseId: c.id, caseIndex, trial, providerId, promptId: prompt.id };
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
  for (const planned of plannedJobs(suite, providers, options)) yield planned.job;
}

/** A job with the case it runs (the scheduler never looks a case up by its index). */
export interface PlannedJob {
  job: Job;
  testCase: Case;
}

/** {@link planJobs} with each job's case. */
export function* plannedJobs(
  suite: Suite,
  providers: ProviderSpec[],
  options: PlanOptions,
): Generator<PlannedJob> {
  let grouped: { caseIndex: number; yes: boolean } | undefined;
  for (const s of planSlots(suite, providers, options)) {
    const job: Job = {
      key: jobKey(s.caseId, s.promptId, s.providerId, s.trial),
      caseId: s.caseId,
      caseIndex: s.caseIndex,
      trial: s.trial,
      providerId: s.providerId,
      promptId: s.promptId,
    };
    if (grouped?.caseIndex !== s.caseIndex)
      grouped = { caseIndex: s.caseIndex, yes: hasComparisons(s.testCase) };
    if (grouped.yes) job.group = groupKey(s.caseId, s.trial);
    yield { job, testCase: s.testCase };
  }
}

/** The key shared by the jobs of one case and trial (a hash, like job keys, so shards can split on it). */
export function groupKey(caseId: string, trial: number): string {
  return sha256(`group\u0000${caseId}\u0000${trial}`);
}

/**
 * Counts a case's jobs in a plan (trials × the providers and prompts it allows), for a caller that
 * looks at each case once for several things; the sum over the cases is {@link countJobs}.
 */
export function jobCounter(
  suite: Suite,
  providers: ProviderSpec[],
  options: PlanOptions,
): (c: Case) => number {
  const columns = providers.map((p) => ({
    provider: p,
    prompts: suite.prompts.filter((t) => allowedBy(p.prompts, t)),
  }));
  return (c) => {
    let n = 0;
    for (const { provider, prompts } of columns) {
      if (!allowedBy(c.only?.providers, provider)) continue;
      for (const prompt of prompts) if (allowedBy(c.only?.prompts, prompt)) n++;
    }
    return n * options.repeat;
  };
}

/** Counts the jobs a plan will produce, without materialising or hashing them. */
export function countJobs(suite: Suite, providers: ProviderSpec[], options: PlanOptions): number {
  const jobsOf = jobCounter(suite, providers, options);
  let n = 0;
  for (const { c, count } of surveyOf(suite)) n += count * jobsOf(c);
  return n;
}
