// Executing one job: generation (engine/generate.ts: the provider answers every hole of every run)
// then scoring (engine/judge.ts: the answers judged against the case's assertions).
import type { Case, Job, PromptTemplate } from '../core/types.js';
import type { Caller } from './call.js';
import { generate } from './generate.js';
import { type JobOutcome, type JudgeContext, judge } from './judge.js';
import { errorResult } from './result.js';

export type { JobOutcome } from './judge.js';

/** What executing one job needs besides the job itself: how to judge, and the column's caller. */
export interface JobContext extends JudgeContext, Caller {}

/** Runs one job to its result; a provider error is an error result, not an exception. */
export async function executeJob(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  ctx: JobContext,
  caller: Caller,
  startedAt: string,
): Promise<JobOutcome> {
  if (testCase.error !== undefined) {
    return { result: errorResult(job, testCase, prompt, startedAt, testCase.error, 'generation') };
  }
  const generation = await generate(testCase, prompt, job.trial, caller, ctx.env);
  return judge(job, testCase, prompt, generation, ctx, startedAt);
}
