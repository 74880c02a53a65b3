// A job result's identity (which job it belongs to, the case settings outputs echo) and the error
// results built on it.
import { redactObject } from '../core/redact.js';
import type { Case, CaseOptions, Job, JobResult, PromptTemplate } from '../core/types.js';

/** The fields that say which job a result belongs to, and the case settings outputs echo. */
export function identity(job: Job, testCase: Case, prompt: PromptTemplate, startedAt: string) {
  const options = recordedOptions(testCase);
  return {
    key: job.key,
    caseId: job.caseId,
    caseRef: testCase.ref ?? job.caseId,
    caseIndex: job.caseIndex,
    description: testCase.description,
    promptId: job.promptId,
    promptLabel: prompt.label,
    providerId: job.providerId,
    trial: job.trial,
    vars: testCase.vars,
    ...(testCase.varsAsWritten ? { varsAsWritten: testCase.varsAsWritten } : {}),
    ...(testCase.threshold !== undefined ? { threshold: testCase.threshold } : {}),
    ...(options ? { caseOptions: options } : {}),
    // Where the test is written, so reports can point at it (JUnit file/line, GitHub annotations).
    ...(testCase.source
      ? {
          source: {
            file: testCase.source.file,
            ...(testCase.source.line !== undefined ? { line: testCase.source.line } : {}),
          },
        }
      : {}),
    startedAt,
  };
}

const recordedOptionsOf = new WeakMap<Case, CaseOptions | undefined>();

/** A case's options as the run log keeps them (once per case): no source positions, secrets redacted. */
function recordedOptions(testCase: Case): CaseOptions | undefined {
  if (recordedOptionsOf.has(testCase)) return recordedOptionsOf.get(testCase);
  let out: CaseOptions | undefined;
  const options = testCase.options;
  if (options && Object.values(options).some((v) => v !== undefined)) {
    const { provider, ...rest } = options;
    out = redactObject(rest);
    if (provider) {
      const { source: _source, ...spec } = provider;
      out.provider = redactObject(spec);
    }
  }
  recordedOptionsOf.set(testCase, out);
  return out;
}

/** The fields of an error result after its identity: no verdicts, score 0, the reason twice. */
export function errorFields(
  output: string | null,
  reason: string,
): Pick<JobResult, 'status' | 'output' | 'verdicts' | 'score' | 'reason' | 'error'> {
  return { status: 'error', output, verdicts: [], score: 0, reason, error: reason };
}

/** An error result for a job that produced nothing (no prompt was sent, or none is recorded). */
export function errorResult(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  startedAt: string,
  message: string,
): JobResult {
  return {
    ...identity(job, testCase, prompt, startedAt),
    prompt: { text: '', messages: [] },
    ...errorFields(null, message),
    latencyMs: 0,
  };
}
