import type { JobResult, ProviderSpec } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { readResults } from '../../src/runlog/reader.js';
import '../../src/scorers/index.js';
import type { AnswerRule, MockServer } from './mock-openai.js';

/**
 * Mock rules that answer as promptfoo's graders would, keyed by markers the tests put in rubrics,
 * criteria and reference answers. Rules see the last user message (or the only, system, message).
 */
export const GRADER_RULES: AnswerRule[] = [
  { match: 'RUBRIC-PASS', reply: 'Verdict: {"reason": "it is polite", "pass": true, "score": 1}' },
  { match: 'RUBRIC-NO-PASS-FIELD', reply: '{"reason":"x","score":0}' },
  { match: 'RUBRIC-0\\.8', reply: '```json\n{"pass":true,"score":0.8}\n```' },
  { match: 'RUBRIC-FAIL', reply: '{"reason": "rude", "pass": false, "score": 0}' },
  { match: 'RUBRIC-GARBAGE', reply: 'I would say it is mostly fine.' },
  { match: '\\[Criterion\\]: CRIT-YES', reply: 'The answer names the city.\nY\nY' },
  { match: '\\[Criterion\\]: CRIT-NO', reply: 'It does not.\nN\nN' },
  { match: '\\[Criterion\\]: CRIT-BAD', reply: 'Hard to say.' },
  { match: '<expert_answer>\\s*FACT-B', reply: '{"category": "B", "reason": "adds detail"}' },
  { match: '<expert_answer>\\s*FACT-D', reply: '{"category": "D", "reason": "contradicts"}' },
  { match: '<expert_answer>\\s*FACT-LEGACY', reply: '(A) The submission is a subset.' },
  { match: '<expert_answer>\\s*FACT-UNREADABLE', reply: 'They look similar to me.' },
  { match: 'generate 3-4 concise evaluation steps[\\s\\S]*GEVAL-BAD', reply: 'Step one: read it.' },
  {
    match: 'generate 3-4 concise evaluation steps',
    reply: '{"steps":["Check the city","Check the country"]}',
  },
  { match: 'Your task is to rate the Reply', reply: '{"score":8,"reason":"names the city"}' },
  { match: 'Generate question for the given answer', reply: 'What is the capital of France?' },
  {
    match: 'classify if the sentence can be attributed',
    reply:
      '1. Paris is the capital of France. So [Attributed]\n2. Paris has ten million people. So [Not Attributed]',
  },
  { match: 'extract relevant sentences', reply: 'Paris is the capital of France.' },
  { match: 'create one or more statements', reply: 'Paris is the capital of France.\nParis is on the Moon.' },
  {
    match: 'Natural language inference',
    reply: 'Explanation...\nFinal verdict for each statement in order: Yes. No.',
  },
];

/** A grader provider on the mock (retries off, so a failing grader fails fast). */
export function mockGrader(mock: MockServer, model = 'judge', faults = ''): ProviderSpec {
  const apiBaseUrl = faults ? `${mock.url}/_/${faults}/v1` : mock.baseUrl;
  return { id: `openai:chat:${model}`, config: { apiBaseUrl, maxRetries: 0 } };
}

/** Runs a suite file in-process against the mock and returns its results in plan order. */
export async function runGraded(
  suitePath: string,
  mock: MockServer,
  opts: { grader?: ProviderSpec; cachePath?: string; runsDir: string },
): Promise<JobResult[]> {
  const outcome = await evaluate({
    suitePath,
    runsDir: opts.runsDir,
    grader: opts.grader,
    cache: opts.cachePath ? { path: opts.cachePath } : false,
    env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: undefined },
    retry: { maxAttempts: 1 },
  });
  const results: JobResult[] = [];
  for await (const r of readResults(outcome.runDir)) results.push(r);
  return results.sort((a, b) => a.caseIndex - b.caseIndex);
}
