// The job runner on its own (src/engine/job-runner.ts): one planned job to its outcome, from a
// real provider or from a recording, within its time limit; what goes wrong is the job's error
// result, never an exception.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Case, Job, ProviderSpec } from '../../src/core/types.js';
import type { Generation } from '../../src/engine/generate.js';
import { JobRunner, type JobRunnerOptions, type ResolvedProvider } from '../../src/engine/job-runner.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import { DEFAULT_RETRY_POLICY } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { buildSuite } from '../support/suite-builder.js';

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

const CONTAINS_HELLO = [{ type: 'contains', value: 'hello' }];

async function resolve(spec: ProviderSpec): Promise<ResolvedProvider> {
  return {
    spec,
    provider: await createProvider(spec, { env: {}, maxConcurrency: 4, retry: DEFAULT_RETRY_POLICY }),
  };
}

/** A runner over one provider column and one case, with the job of that case. */
async function runnerFor(
  spec: ProviderSpec,
  testCase: Partial<Case>,
  options: Partial<JobRunnerOptions> = {},
) {
  const suite = buildSuite({ providers: [spec], cases: [{ vars: { prompt: 'say hello' }, ...testCase }] });
  const c = suite.cases[0];
  const job: Job = { key: 'k', caseId: c.id, caseIndex: 0, promptId: 'p', providerId: spec.id, trial: 0 };
  const runner = new JobRunner(
    suite,
    [await resolve(spec)],
    { env: {}, ...options },
    new AbortController().signal,
  );
  return { runner, job, testCase: c };
}

function recording(output: string): Generation {
  return {
    prompt: { text: 'say hello', messages: [{ role: 'user', content: 'say hello' }] },
    output,
    outputValue: output,
    transcripts: [],
    latencyMs: 12.3456,
  };
}

describe('the job runner', () => {
  it('generates with the column’s provider and judges the answer', async () => {
    const { runner, job, testCase } = await runnerFor({ id: 'echo' }, { asserts: CONTAINS_HELLO });
    const { result, fatal } = await runner.run(job, testCase);
    assert.equal(fatal, undefined);
    assert.equal(result.status, 'pass');
    assert.equal(result.output, 'say hello');
    assert.equal(result.key, 'k');
    assert.equal(runner.provider('echo')?.id, 'echo');
  });

  it('judges a recorded generation without calling the provider', async () => {
    const spec = { id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl, maxRetries: 0 } };
    mock.resetStats();
    const { runner, job, testCase } = await runnerFor(
      spec,
      { asserts: CONTAINS_HELLO },
      {
        recorded: {
          generation: () => ({ generation: recording('well, hello'), startedAt: '2026-01-02T00:00:00.000Z' }),
        },
      },
    );
    const { result } = await runner.run(job, testCase);
    assert.equal(result.status, 'pass');
    assert.equal(result.output, 'well, hello');
    assert.equal(result.startedAt, '2026-01-02T00:00:00.000Z');
    assert.equal(result.answer.latencyMs, 12.346);
    assert.equal(mock.stats().requests, 0);
  });

  it('a job with no recording is an error of the generation stage', async () => {
    const { runner, job, testCase } = await runnerFor(
      { id: 'echo' },
      {},
      { recorded: { generation: () => undefined } },
    );
    const { result } = await runner.run(job, testCase);
    assert.equal(result.status, 'error');
    assert.equal(result.error, 'no recorded generation for this job');
    assert.equal(result.errorStage, 'generation');
  });

  it('a job past its time limit is an error result', async () => {
    const spec = { id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl, maxRetries: 0 } };
    mock.resetStats();
    const release = mock.hold();
    try {
      const { runner, job, testCase } = await runnerFor(spec, {}, { jobTimeoutMs: 50 });
      const { result } = await runner.run(job, testCase);
      assert.equal(result.status, 'error');
      assert.equal(result.error, 'Evaluation timed out after 50 ms');
    } finally {
      release();
    }
  });

  it('a case naming a provider of its own that was not built is an error result, not an exception', async () => {
    const { runner, job, testCase } = await runnerFor({ id: 'echo' }, {});
    const own = { ...testCase, preparation: { options: { provider: { id: 'openai:chat:other' } } } };
    const { result } = await runner.run(job, own);
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /no provider was built for the case's own provider/);
  });

  it('a case that cannot run (a load-time error) is an error of the generation stage', async () => {
    const { runner, job, testCase } = await runnerFor({ id: 'echo' }, { error: 'the vars file is missing' });
    const { result } = await runner.run(job, testCase);
    assert.equal(result.status, 'error');
    assert.equal(result.error, 'the vars file is missing');
    assert.equal(result.errorStage, 'generation');
  });
});
