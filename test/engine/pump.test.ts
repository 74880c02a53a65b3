// The pump on its own (src/engine/pump.ts): plan order, the concurrency cap, groups judged whole,
// and every way it stops. Jobs here are promises the test settles by hand, so what the pump does
// at each step is observed, not timed; the last test observes the cap on a real provider.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secrets } from '../../src/core/secrets.js';
import type { Case, Job, JobResult } from '../../src/core/types.js';
import type { JobOutcome } from '../../src/engine/job.js';
import type { PlannedJob } from '../../src/engine/plan.js';
import { type PumpOptions, pumpJobs } from '../../src/engine/pump.js';
import { errorResult } from '../../src/engine/result.js';
import { runSuite } from '../../src/engine/run.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import { DEFAULT_RETRY_POLICY } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { waitFor } from '../support/processes.js';
import { buildSuite } from '../support/suite-builder.js';

const PROMPT = { id: 'p', label: 'p', raw: '{{q}}' };

/** Planned jobs, one case each; `group` puts the jobs whose index it maps to in a group. */
function plan(n: number, group: (i: number) => string | undefined = () => undefined): PlannedJob[] {
  return Array.from({ length: n }, (_, i) => {
    const testCase: Case = { id: `c${i}`, vars: { q: String(i) }, asserts: [], metadata: {} };
    const g = group(i);
    const job: Job = {
      key: `k${i}`,
      caseId: testCase.id,
      caseIndex: i,
      promptId: 'p',
      providerId: 'x',
      trial: 0,
      ...(g ? { group: g } : {}),
    };
    return { job, testCase };
  });
}

function resultOf(job: Job, testCase: Case, status: JobResult['status'] = 'pass'): JobResult {
  return { ...errorResult(job, testCase, PROMPT, '2026-01-01T00:00:00.000Z', ''), status, error: undefined };
}

/**
 * Lets every pending promise callback and the pump's next step run: the pump may step aside for one
 * event-loop turn (setImmediate) before it goes on, so three turns.
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A pump whose jobs finish when the test says: `finish(i)` settles job i. */
function manualPump(jobs: PlannedJob[], extra: Partial<PumpOptions> = {}) {
  const started: number[] = [];
  const finishers = new Map<number, (o: JobOutcome) => void>();
  const emitted: JobResult[] = [];
  const running = pumpJobs(jobs[Symbol.iterator](), {
    maxConcurrency: 3,
    run: (job) => {
      started.push(job.caseIndex);
      return new Promise<JobOutcome>((resolve) => finishers.set(job.caseIndex, resolve));
    },
    judgeGroup: async () => {},
    emit: (result) => emitted.push(result),
    ...extra,
  });
  const finish = async (i: number, outcome?: Partial<JobOutcome>) => {
    const { job, testCase } = jobs[i];
    finishers.get(i)!({ result: resultOf(job, testCase), ...outcome });
    await settle();
  };
  return { started, emitted, running, finish };
}

describe('the pump', () => {
  it('starts jobs in plan order, never more than maxConcurrency at once, and emits each as it finishes', async () => {
    const jobs = plan(7);
    const p = manualPump(jobs);
    await settle();
    assert.deepEqual(p.started, [0, 1, 2], 'the cap: three in flight');
    await p.finish(1);
    assert.deepEqual(p.started, [0, 1, 2, 3], 'one finished, the next in plan order starts');
    assert.deepEqual(
      p.emitted.map((r) => r.key),
      ['k1'],
    );
    for (const i of [0, 2, 3, 4, 5, 6]) {
      assert.ok(p.started.length - p.emitted.length <= 3);
      await p.finish(i);
    }
    assert.deepEqual(p.started, [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      p.emitted.map((r) => r.key),
      ['k1', 'k0', 'k2', 'k3', 'k4', 'k5', 'k6'],
    );
    assert.deepEqual(await p.running, { completed: 7, stopReason: undefined, interrupted: false });
  });

  it('leaves out the jobs include rejects, telling skipped of each', async () => {
    const skipped: string[] = [];
    const jobs = plan(4);
    const p = manualPump(jobs, {
      include: (job) => job.caseIndex % 2 === 0,
      skipped: (job) => skipped.push(job.key),
    });
    await settle();
    assert.deepEqual(p.started, [0, 2]);
    assert.deepEqual(skipped, ['k1', 'k3']);
    await p.finish(0);
    await p.finish(2);
    assert.equal((await p.running).completed, 2);
  });

  it('holds the rows of a group until all have finished, judges them once, then emits them together', async () => {
    const judged: string[][] = [];
    const jobs = plan(4, (i) => (i < 3 ? 'g' : undefined));
    const p = manualPump(jobs, {
      maxConcurrency: 4,
      judgeGroup: async (ready) => {
        judged.push(ready.rows.map((r) => r.key));
        for (const r of ready.rows) r.reason = 'judged across the group';
      },
    });
    await settle();
    assert.deepEqual(p.started, [0, 1, 2, 3]);
    await p.finish(2);
    await p.finish(3);
    await p.finish(0);
    assert.deepEqual(
      p.emitted.map((r) => r.key),
      ['k3'],
      'the group waits for its last row',
    );
    await p.finish(1);
    assert.deepEqual(judged, [['k0', 'k1', 'k2']], 'one judgement, rows in plan order');
    assert.deepEqual(
      p.emitted.map((r) => [r.key, r.reason]),
      [
        ['k3', ''],
        ['k0', 'judged across the group'],
        ['k1', 'judged across the group'],
        ['k2', 'judged across the group'],
      ],
    );
    assert.equal((await p.running).completed, 4);
  });

  it('a group whose judgement fails emits every row as an error with its message', async () => {
    const jobs = plan(2, () => 'g');
    const p = manualPump(jobs, {
      judgeGroup: async () => {
        throw new Error('no grader answered');
      },
    });
    await settle();
    await p.finish(0);
    await p.finish(1);
    assert.deepEqual(
      p.emitted.map((r) => [r.key, r.status, r.error]),
      [
        ['k0', 'error', 'no grader answered'],
        ['k1', 'error', 'no grader answered'],
      ],
    );
    await p.running;
  });

  it('on a signal it starts nothing more; the jobs in flight finish and are emitted; the run is interrupted', async () => {
    const stop = new AbortController();
    const jobs = plan(6);
    const p = manualPump(jobs, { maxConcurrency: 2, signal: stop.signal });
    await settle();
    stop.abort();
    await p.finish(0);
    await p.finish(1);
    assert.deepEqual(p.started, [0, 1]);
    assert.deepEqual(
      p.emitted.map((r) => r.key),
      ['k0', 'k1'],
    );
    assert.deepEqual(await p.running, { completed: 2, stopReason: 'interrupted', interrupted: true });
  });

  it('on a hard signal the results of the jobs in flight are dropped (left for a resume)', async () => {
    const hard = new AbortController();
    const p = manualPump(plan(4), { maxConcurrency: 2, hardSignal: hard.signal });
    await settle();
    hard.abort();
    await p.finish(0);
    await p.finish(1);
    assert.deepEqual(p.emitted, []);
    assert.deepEqual(await p.running, { completed: 0, stopReason: 'interrupted', interrupted: true });
  });

  it('stops when stopWhen gives a reason after a result (not an interruption)', async () => {
    const p = manualPump(plan(6), {
      maxConcurrency: 2,
      stopWhen: () => 'error budget exceeded',
    });
    await settle();
    await p.finish(0);
    assert.deepEqual(p.started, [0, 1], 'nothing starts after the reason');
    await p.finish(1);
    assert.deepEqual(await p.running, {
      completed: 2,
      stopReason: 'error budget exceeded',
      interrupted: false,
    });
  });

  it('stops on a fatal outcome, the reason with secrets scrubbed', async () => {
    const p = manualPump(plan(5), { maxConcurrency: 1, secrets: new Secrets(['sk-very-secret']) });
    await settle();
    await p.finish(0, { fatal: 'x: key sk-very-secret refused' });
    assert.deepEqual(p.started, [0]);
    const outcome = await p.running;
    assert.equal(outcome.completed, 1, 'the job that said so is still emitted');
    assert.doesNotMatch(outcome.stopReason ?? '', /sk-very-secret/);
    assert.match(outcome.stopReason ?? '', /^x: key .* refused$/);
    assert.equal(outcome.interrupted, false);
  });

  it('abandons a group a stop cuts short: none of its rows is emitted', async () => {
    const stop = new AbortController();
    const judged: unknown[] = [];
    const jobs = plan(3, () => 'g');
    const p = manualPump(jobs, {
      maxConcurrency: 2,
      signal: stop.signal,
      judgeGroup: async (ready) => {
        judged.push(ready);
      },
    });
    await settle();
    stop.abort();
    await p.finish(0);
    await p.finish(1);
    assert.deepEqual(p.emitted, []);
    assert.deepEqual(judged, []);
    assert.deepEqual(await p.running, { completed: 0, stopReason: 'interrupted', interrupted: true });
  });
});

describe('the pump with a real provider', () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(async () => {
    await closeAllPools();
    await mock.close();
  });

  it('the server never sees more requests at once than -j, and every job is answered', async () => {
    const spec = { id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl, maxRetries: 0 } };
    const provider = await createProvider(spec, { env: {}, maxConcurrency: 64, retry: DEFAULT_RETRY_POLICY });
    const suite = buildSuite({
      providers: [spec],
      cases: Array.from({ length: 10 }, (_, i) => ({ vars: { prompt: `say ${i}` } })),
    });
    mock.resetStats();
    const release = mock.hold();
    const results: JobResult[] = [];
    const running = runSuite(suite, [{ spec, provider }], {
      repeat: 1,
      maxConcurrency: 3,
      env: {},
      onResult: (r) => results.push(r),
    });
    // Every request is held: three arrive, and the pump starts no fourth while they wait.
    assert.equal(await waitFor(() => mock.stats().inFlight === 3), true);
    await settle();
    assert.equal(mock.stats().inFlight, 3);
    release();
    const outcome = await running;
    assert.equal(outcome.completed, 10);
    assert.equal(mock.stats().maxInFlight, 3);
    assert.equal(mock.stats().requests, 10);
    assert.deepEqual(
      results.map((r) => r.status),
      Array(10).fill('pass'),
    );
  });
});
