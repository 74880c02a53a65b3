// Results lines of older run-log versions read into today's shape. Versions 0 and 1 wrote a result
// flat (the case's echo and the answer's facts beside the outcome); version 2 groups them under
// `case` and `answer` (core/types.ts JobResult); version 3 adds the structured answer to `answer`
// (`api`, `blocks`, `value`, `finishReasonRaw`: additive, so a version-2 line is a version-3 line
// whose answer was plain text, as it was). Everything that reads a log goes through here, so
// report, rescore, compare and merge read an old run as they read a new one.
import type { AnswerRecord, CaseEcho, JobResult } from '../core/types.js';

/** The first version that writes a result grouped. */
export const GROUPED_VERSION = 2;

/** Flat fields of versions 0 and 1 → their place in the case echo. */
const CASE_FIELDS: [flat: string, grouped: keyof CaseEcho][] = [
  ['caseRef', 'ref'],
  ['description', 'description'],
  ['vars', 'vars'],
  ['varsAsWritten', 'varsAsWritten'],
  ['metadata', 'metadata'],
  ['threshold', 'threshold'],
  ['caseOptions', 'options'],
  ['source', 'source'],
  ['asserts', 'asserts'],
];

/** Flat fields of versions 0 and 1 that are the answer's. */
const ANSWER_FIELDS: (keyof AnswerRecord)[] = [
  'rawOutput',
  'outputs',
  'runs',
  'latencyMs',
  'stream',
  'usage',
  'cost',
  'finishReason',
  'cached',
  'logProbs',
  'attempts',
];

/** Top-level fields in the order version 2 writes them. */
const ORDER = [
  'key',
  'caseId',
  'caseIndex',
  'promptId',
  'promptLabel',
  'providerId',
  'trial',
  'case',
  'startedAt',
  'prompt',
  'answer',
  'status',
  'output',
  'outputType',
  'errorStage',
  'verdicts',
  'score',
  'reason',
  'error',
  'namedScores',
  'namedScoreWeights',
  'grading',
];

const MOVED = new Set<string>([...CASE_FIELDS.map(([flat]) => flat), ...ANSWER_FIELDS]);

/**
 * A parsed results line (its `v` already checked and taken off) as a JobResult of today's layout:
 * a line of version 2 or later is returned as it is, an older one is regrouped (a new object; the
 * fields it did not have stay absent).
 */
export function upgradeResult(parsed: Record<string, unknown>, version: number): JobResult {
  if (version >= GROUPED_VERSION) return parsed as unknown as JobResult;
  const echo: Record<string, unknown> = {};
  for (const [flat, grouped] of CASE_FIELDS) if (parsed[flat] !== undefined) echo[grouped] = parsed[flat];
  // (A log of version 0 may lack vars; readers have always taken `{}` for them.)
  if (echo.vars === undefined) echo.vars = {};
  const answer: Record<string, unknown> = {};
  for (const field of ANSWER_FIELDS) if (parsed[field] !== undefined) answer[field] = parsed[field];
  if (answer.latencyMs === undefined) answer.latencyMs = 0;
  const out: Record<string, unknown> = {};
  for (const field of ORDER) {
    if (field === 'case') out.case = echo;
    else if (field === 'answer') out.answer = answer;
    else if (parsed[field] !== undefined) out[field] = parsed[field];
  }
  // Fields this assay does not know (none today) are kept, after the known ones.
  for (const [k, v] of Object.entries(parsed)) if (!(k in out) && !MOVED.has(k)) out[k] = v;
  return out as unknown as JobResult;
}
