// The shared deadline timer of provider attempts (src/providers/deadlines.ts): deadlines fire in
// the order they end whatever order they were set in, cancelled ones never fire and do not pile
// up, and only deadlines that ask for it keep the process alive.
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { withTimeLimit } from '../../src/engine/time-limit.js';
import { DeadlineTimer, deadlines } from '../../src/providers/deadlines.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import { DEFAULT_RETRY_POLICY } from '../../src/providers/types.js';
import { runNode } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';

const moduleUrl = pathToFileURL(join(repoRoot, 'dist', 'src', 'providers', 'deadlines.js')).href;

describe('the shared deadline timer', () => {
  it('fires deadlines of several durations in the order they end, a later shorter one first', async () => {
    const timer = new DeadlineTimer();
    const fired: string[] = [];
    const all = new Promise<void>((resolve) => {
      const note = (name: string) => () => {
        fired.push(name);
        if (fired.length === 3) resolve();
      };
      timer.add(300, note('300 ms'));
      timer.add(150, note('150 ms'));
      timer.add(20, note('20 ms'));
    });
    await all;
    assert.deepEqual(fired, ['20 ms', '150 ms', '300 ms']);
    assert.equal(timer.pending, 0);
  });

  it('a cancelled deadline never fires, and thousands of cancelled ones are not kept', async () => {
    const timer = new DeadlineTimer();
    const fired: number[] = [];
    for (let i = 0; i < 5000; i++) timer.add(60_000, () => fired.push(i))?.cancel();
    assert.equal(timer.pending, 0);
    const last = new Promise<void>((resolve) => {
      timer.add(10, () => {
        fired.push(-1);
        resolve();
      });
    });
    const cancelled = timer.add(10, () => fired.push(-2));
    cancelled?.cancel();
    cancelled?.cancel();
    await last;
    assert.deepEqual(fired, [-1]);
    assert.equal(timer.pending, 0);
  });

  it('keeps no cancelled deadline of a duration set only once (a job limit: what is left of the run)', async () => {
    // With a maximum run duration, each job's limit is the time left of the run: a duration of its
    // own, so a lane of its own. Jobs that end in time must not leave their lane behind until the
    // run's end (a leak of every job of the run).
    const held = deadlines.held;
    const runEnds = performance.now() + 3_600_000;
    for (let i = 0; i < 2000; i++) {
      const outcome = await withTimeLimit(
        Promise.resolve({ result: { id: i } as never }),
        { ms: runEnds - performance.now() - i / 7 },
        () => ({ id: -1 }) as never,
      );
      assert.deepEqual(outcome, { result: { id: i } });
    }
    assert.equal(deadlines.held, held, 'deadlines still kept after every job ended');
    const timer = new DeadlineTimer();
    for (let i = 0; i < 1000; i++) timer.add(10_000 + i / 3, () => {})?.cancel();
    assert.equal(timer.held, 0);
  });

  it('a deadline cancelled by one that fired before it (due at the same moment) does not fire', async () => {
    const timer = new DeadlineTimer();
    const fired: string[] = [];
    let second: ReturnType<DeadlineTimer['add']>;
    const done = new Promise<void>((resolve) => {
      timer.add(30, () => {
        fired.push('first');
        second?.cancel();
      });
      second = timer.add(30, () => fired.push('second'));
      timer.add(60, () => resolve());
    });
    await done;
    assert.deepEqual(fired, ['first']);
    assert.equal(timer.pending, 0);
  });

  it('sets no deadline for a non-positive or non-finite duration (no timeout)', () => {
    const timer = new DeadlineTimer();
    for (const ms of [0, -5, Number.NaN, Number.POSITIVE_INFINITY])
      assert.equal(
        timer.add(ms, () => {}),
        undefined,
      );
    assert.equal(timer.pending, 0);
  });

  it('a pending keep-alive deadline holds the process until it fires; one that does not lets it exit', {
    timeout: 120_000,
  }, async () => {
    const held = await runNode([
      '--input-type=module',
      '-e',
      `import { DeadlineTimer } from '${moduleUrl}';
       const t = new DeadlineTimer();
       t.add(60_000, () => console.log('never'), false);
       t.add(50, () => console.log('fired'));`,
    ]);
    assert.equal(held.code, 0, held.stderr);
    assert.equal(held.stdout.trim(), 'fired');
    // Only a deadline that does not keep the process alive is left (and a cancelled one that did).
    const free = await runNode([
      '--input-type=module',
      '-e',
      `import { DeadlineTimer } from '${moduleUrl}';
       const t = new DeadlineTimer();
       t.add(600_000, () => console.log('never'), false);
       t.add(600_000, () => console.log('never either')).cancel();
       console.log('done');`,
    ]);
    assert.equal(free.code, 0, free.stderr);
    assert.equal(free.stdout.trim(), 'done');
  });
});

describe('provider attempts against the real server', () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(async () => {
    await closeAllPools();
    await mock.close();
  });

  it('set no Node timer and make no AbortController per attempt (one shared deadline timer)', async () => {
    const spec = { id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl } };
    const provider = await createProvider(spec, { env: {}, maxConcurrency: 8, retry: DEFAULT_RETRY_POLICY });
    const ask = (i: number) =>
      provider.call({ prompt: `q${i}`, messages: [{ role: 'user', content: `q${i}` }], params: {} });
    await ask(-1); // the pool and its connection exist before counting
    let timers = 0;
    const hook = createHook({
      init(_id, type) {
        // The server in this process sets timers of its own (keep-alive): only assay's count.
        if (type === 'Timeout' && /dist\/src\//.test(new Error().stack ?? '')) timers++;
      },
    });
    const Original = globalThis.AbortController;
    let controllers = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        controllers++;
      }
    };
    hook.enable();
    const attempts = 200;
    try {
      for (let batch = 0; batch < attempts / 8; batch++) {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(batch * 8 + i)));
        assert.ok(answers.every((a) => a.error === undefined && a.attempts === 1));
      }
    } finally {
      hook.disable();
      globalThis.AbortController = Original;
    }
    assert.equal(controllers, 0, 'an AbortController was made for an attempt');
    // Each attempt has a deadline and a stall mark: on Node timers that was two per attempt.
    assert.ok(timers < attempts / 10, `${timers} Node timers for ${attempts} attempts`);
  });
});
