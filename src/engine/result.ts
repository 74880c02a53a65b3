// A job result's identity (which job it belongs to), the case echo outputs read, and the error
// results built on them. Results are built as one object literal with every field in a fixed order
// (see test/engine/result-shape.test.ts): no spread of a base followed by added properties, which
// costs microseconds per added property on the per-job path.
import { redactObject } from '../core/redact.js';
import type {
  AnswerRecord,
  Case,
  CaseEcho,
  CaseOptions,
  Job,
  JobResult,
  PromptTemplate,
} from '../core/types.js';

const echoOf = new WeakMap<Case, CaseEcho>();

/**
 * The case as its results echo it, made once per case (every result of the case shares it: it is
 * never changed once made).
 */
export function caseEcho(testCase: Case, job: Job): CaseEcho {
  let echo = echoOf.get(testCase);
  if (echo === undefined) {
    echo = makeEcho(testCase, job.caseId, true);
    echoOf.set(testCase, echo);
  }
  return echo;
}

function makeEcho(testCase: Case, caseId: string, withMetadata: boolean): CaseEcho {
  const source = testCase.provenance?.source;
  const varsAsWritten = testCase.provenance?.varsAsWritten;
  const threshold = testCase.scoring?.threshold;
  const options = recordedOptions(testCase);
  const echo: CaseEcho = {
    ref: testCase.ref ?? caseId,
    description: testCase.description,
    vars: testCase.vars,
    varsAsWritten: undefined,
    metadata: undefined,
    threshold: undefined,
    options: undefined,
    // Where the test is written, so reports can point at it (JUnit file/line, GitHub annotations).
    source: undefined,
  };
  if (varsAsWritten) echo.varsAsWritten = varsAsWritten;
  if (withMetadata && Object.keys(testCase.metadata).length > 0) echo.metadata = testCase.metadata;
  if (threshold !== undefined) echo.threshold = threshold;
  if (options) echo.options = options;
  if (source)
    echo.source =
      source.line !== undefined ? { file: source.file, line: source.line } : { file: source.file };
  return echo;
}

const recordedOptionsOf = new WeakMap<Case, CaseOptions | undefined>();

/** A case's options as the run log keeps them (once per case): no source positions, secrets redacted. */
function recordedOptions(testCase: Case): CaseOptions | undefined {
  if (recordedOptionsOf.has(testCase)) return recordedOptionsOf.get(testCase);
  let out: CaseOptions | undefined;
  const options = testCase.preparation?.options;
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

/** The answer record of a job that got no answer. */
function noAnswer(): AnswerRecord {
  return {
    rawOutput: undefined,
    outputs: undefined,
    runs: undefined,
    latencyMs: 0,
    stream: undefined,
    usage: undefined,
    cost: undefined,
    finishReason: undefined,
    finishReasonRaw: undefined,
    api: undefined,
    blocks: undefined,
    value: undefined,
    cached: undefined,
    logProbs: undefined,
    attempts: undefined,
  };
}

/**
 * A result with every field in place (the one shape every result has): the job's identity, the
 * case echo, what was sent and answered; the outcome fields are filled in by assignment.
 */
export function newResult(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  startedAt: string,
  sent: JobResult['prompt'],
  answer: AnswerRecord,
  echo: CaseEcho = caseEcho(testCase, job),
): JobResult {
  return {
    key: job.key,
    caseId: job.caseId,
    caseIndex: job.caseIndex,
    promptId: job.promptId,
    promptLabel: prompt.label,
    providerId: job.providerId,
    trial: job.trial,
    case: echo,
    startedAt,
    prompt: sent,
    answer,
    status: 'error',
    output: null,
    outputType: undefined,
    errorStage: undefined,
    verdicts: [],
    score: 0,
    reason: '',
    error: undefined,
    namedScores: undefined,
    namedScoreWeights: undefined,
    grading: undefined,
  };
}

/** Makes a result an error: no verdicts, score 0, the reason twice. */
export function setError(
  result: JobResult,
  output: string | null,
  reason: string,
  stage?: JobResult['errorStage'],
): JobResult {
  result.status = 'error';
  result.output = output;
  result.verdicts = [];
  result.score = 0;
  result.reason = reason;
  result.error = reason;
  if (stage !== undefined) result.errorStage = stage;
  return result;
}

/**
 * An error result for a job that produced nothing (no prompt was sent, or none is recorded). Its
 * case echo carries no metadata (as error results never did).
 */
export function errorResult(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  startedAt: string,
  message: string,
  stage?: JobResult['errorStage'],
): JobResult {
  const result = newResult(
    job,
    testCase,
    prompt,
    startedAt,
    { text: '', messages: [] },
    noAnswer(),
    makeEcho(testCase, job.caseId, false),
  );
  return setError(result, null, message, stage);
}
