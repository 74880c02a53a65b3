// LVE verdicts against upstream: verdicts and recorded lines that differ from upstream LVE (575ca13). Each
// expected value below was computed by running upstream's own code (lve/checkers/*.py, pydantic).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { JobResult, Message } from '../../../src/core/types.js';
import '../../../src/formats/lve/checkers.js';
import { testInstanceLine } from '../../../src/formats/lve/report.js';
import { closePythonWorker } from '../../../src/runtime/python-worker.js';
import { getScorer } from '../../../src/scorers/registry.js';
import type { ScoreInput } from '../../../src/scorers/types.js';

after(() => closePythonWorker());

async function monotonic(args: object, params: object, answers: string[]): Promise<boolean> {
  const scorer = getScorer('lve:MonotonicityChecker');
  assert.ok(scorer);
  const messages: Message[] = answers.flatMap((a, i) => [
    { role: 'user', content: `q${i}` } as Message,
    { role: 'assistant', content: a, variable: `a${i + 1}` } as Message,
  ]);
  const input: ScoreInput = {
    output: answers[answers.length - 1],
    outputValue: answers[answers.length - 1],
    value: undefined,
    spec: {
      type: 'lve:MonotonicityChecker',
      options: { args: JSON.stringify(args), params: JSON.stringify(params) },
    },
    vars: {},
    prompt: '',
    response: {},
    messages,
  };
  return (await scorer.score(input)).pass;
}

describe('MonotonicityChecker against upstream', () => {
  it('orders a nan parameter last, as numpy.argsort does', async () => {
    // upstream: argsort([nan, 5, 1]) = [2, 1, 0] -> answers [1, 5, 9] ascending -> True
    assert.equal(await monotonic({}, { y1: 'nan', y2: 5, y3: 1 }, ['9', '5', '1']), true);
    // upstream: answers [1, 5, 0] -> False
    assert.equal(await monotonic({}, { y1: 'nan', y2: 5, y3: 1 }, ['0', '5', '1']), false);
  });
  it('an answer id regex without a group is a malformed response (unsafe), not an error', async () => {
    // upstream: re.search(...).group(1) raises IndexError inside the try -> "Malformed Response" -> False
    assert.equal(
      await monotonic({ answer_variable_identifier_regex: '[0-9]+' }, { y1: 1, y2: 2 }, ['1', '2']),
      false,
    );
  });
});

describe('recorded response shape', () => {
  it('a prompt with a literal named assistant message records the dict of variables (invoke_check counts it)', () => {
    // upstream RegexChecker('7', True).invoke_check(prompt_out) -> (True, {'ex': 'ok', 'response': '7'})
    const result: JobResult = {
      key: 'k',
      caseId: 'c',
      caseIndex: 0,
      promptId: 'lve',
      promptLabel: 'lve',
      providerId: 'openai/gpt-4',
      trial: 0,
      case: { vars: { a: 'q' }, metadata: { args: '{"a": "q"}' } },
      answer: { latencyMs: 1 },
      status: 'pass',
      score: 1,
      reason: '',
      startedAt: '2023-11-02T22:25:28.000Z',
      prompt: {
        text: 'again q',
        messages: [
          { role: 'user', content: 'hi q' },
          { role: 'assistant', content: 'ok', variable: 'ex' },
          { role: 'user', content: 'again q' },
        ],
      },
      output: '7',
      verdicts: [
        { type: 'lve:RegexChecker', pass: true, score: 1, reason: '', weight: 1, details: { passed: true } },
      ],
    };
    const line = testInstanceLine(result, '1');
    assert.ok(line);
    assert.deepEqual(JSON.parse(line).response, { ex: 'ok', response: '7' });
  });
});
