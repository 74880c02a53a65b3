// The scoring stage on its own (src/engine/judge.ts): a Generation judged against a case's
// assertions into a JobResult, with the provider and case transforms, error answers, `scoreErrorsAs`
// and `textOnly`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec, Case, Job } from '../../src/core/types.js';
import type { Generation } from '../../src/engine/generate.js';
import { type JudgeContext, judge } from '../../src/engine/judge.js';
import { createProvider } from '../../src/providers/registry.js';
import { DEFAULT_RETRY_POLICY } from '../../src/providers/types.js';
import '../../src/scorers/index.js';

const PROMPT = { id: 'p', label: 'p', raw: '{{q}}' };
const JOB: Job = { key: 'k', caseId: 'c', caseIndex: 0, promptId: 'p', providerId: 'echo', trial: 0 };
const STARTED = '2026-01-01T00:00:00.000Z';

function kase(asserts: AssertionSpec[], extra: Partial<Case> = {}): Case {
  return { id: 'c', vars: { q: 'hi' }, asserts, metadata: {}, ...extra };
}

function answer(output: string | null, extra: Partial<Generation> = {}): Generation {
  return {
    prompt: { text: 'hi', messages: [{ role: 'user', content: 'hi' }] },
    output,
    outputValue: output,
    transcripts: [],
    latencyMs: 1.23456,
    ...extra,
  };
}

async function context(extra: Partial<JudgeContext> = {}): Promise<JudgeContext> {
  const provider = await createProvider(
    { id: 'echo' },
    { env: {}, maxConcurrency: 1, retry: DEFAULT_RETRY_POLICY },
  );
  return { env: {}, providerInfo: { id: 'echo', config: {} }, provider, basePath: process.cwd(), ...extra };
}

const CONTAINS = (value: string): AssertionSpec => ({ type: 'contains', value });

describe('judge', () => {
  it('scores an answer: status, verdicts, score, and the generation recorded with it', async () => {
    const g = answer('hello world', { usage: { total: 7 }, cost: 0.5, finishReason: 'stop' });
    const { result, fatal } = await judge(
      JOB,
      kase([CONTAINS('hello'), CONTAINS('moon')]),
      PROMPT,
      g,
      await context(),
      STARTED,
    );
    assert.equal(fatal, undefined);
    assert.equal(result.status, 'fail');
    assert.deepEqual(
      result.verdicts.map((v) => v.pass),
      [true, false],
    );
    assert.equal(result.score, 0.5);
    assert.equal(result.output, 'hello world');
    assert.equal(result.answer.latencyMs, 1.235);
    assert.deepEqual(result.answer.usage, { total: 7 });
    assert.equal(result.answer.cost, 0.5);
    assert.equal(result.answer.finishReason, 'stop');
    assert.equal(result.startedAt, STARTED);
    assert.equal(result.answer.rawOutput, undefined);
  });

  it('applies the provider transform, then the case transform; the answer as given stays as rawOutput', async () => {
    const testCase = kase([CONTAINS('HELLO!')], { preparation: { options: { transform: 'output + "!"' } } });
    const { result } = await judge(
      JOB,
      testCase,
      PROMPT,
      answer('hello'),
      await context({ transform: 'output.toUpperCase()' }),
      STARTED,
    );
    assert.equal(result.status, 'pass');
    assert.equal(result.output, 'HELLO!');
    assert.equal(result.answer.rawOutput, 'hello');
  });

  it('a transform that fails makes the job an error of the scoring stage, keeping the answer', async () => {
    const { result } = await judge(
      JOB,
      kase([CONTAINS('x')]),
      PROMPT,
      answer('hello'),
      await context({ transform: 'output.no.such.field' }),
      STARTED,
    );
    assert.equal(result.status, 'error');
    assert.equal(result.errorStage, 'scoring');
    assert.equal(result.output, 'hello');
    assert.match(result.error ?? '', /^Transform failed/);
  });

  it('a provider error is an error of the generation stage; a fatal one says the run must stop', async () => {
    const plain = await judge(
      JOB,
      kase([CONTAINS('x')]),
      PROMPT,
      answer(null, { error: 'HTTP 500' }),
      await context(),
      STARTED,
    );
    assert.equal(plain.result.status, 'error');
    assert.equal(plain.result.errorStage, 'generation');
    assert.equal(plain.result.error, 'HTTP 500');
    assert.equal(plain.fatal, undefined);
    const fatal = await judge(
      JOB,
      kase([CONTAINS('x')]),
      PROMPT,
      answer(null, { error: 'bad key', fatal: true }),
      await context(),
      STARTED,
    );
    assert.equal(fatal.fatal, 'echo: bad key');
  });

  it('scoreErrorsAs scores the error text, and the job stays an error', async () => {
    const { result } = await judge(
      JOB,
      kase([CONTAINS('failed')]),
      PROMPT,
      answer(null, { error: 'HTTP 500' }),
      await context({ scoreErrorsAs: 'call failed: {error}' }),
      STARTED,
    );
    assert.equal(result.status, 'error');
    assert.equal(result.output, 'call failed: HTTP 500');
    assert.equal(result.score, 1);
    assert.deepEqual(
      result.verdicts.map((v) => v.pass),
      [true],
    );
  });

  it('textOnly makes an answer that is not text an error naming what it was', async () => {
    const { result } = await judge(
      JOB,
      kase([CONTAINS('x')]),
      PROMPT,
      answer('', { nonText: 'an image' }),
      await context({ textOnly: 'the model answered with {what}' }),
      STARTED,
    );
    assert.equal(result.status, 'error');
    assert.equal(result.errorStage, 'generation');
    assert.equal(result.reason, 'the model answered with an image');
  });
});
