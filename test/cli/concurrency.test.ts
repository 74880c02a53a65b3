// `-j N` as the server sees it: the real CLI against the real mock on 127.0.0.1, with every request
// held by the server, so what is measured is how many requests assay has open at once — never
// how fast anything is.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { waitFor } from '../support/processes.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-concurrency-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

/** Runs `tests` tests at `-j j` (the default when undefined) while the server holds every request: it must see `expected` at once. */
async function peakWhileHeld(tests: number, j: number | undefined, expected: number): Promise<void> {
  const dir = writeWordSuite(join(tmp.dir, `suite-${tests}-${j ?? 'default'}`), {
    tests,
    baseUrl: mock.baseUrl,
    prompt: 'Repeat',
  });
  mock.resetStats();
  const release = mock.hold();
  const args = ['eval', '-c', join(dir, 'promptfooconfig.yaml'), '--no-cache', '--no-progress'];
  args.push('--runs-dir', join(dir, 'runs'));
  if (j !== undefined) args.push('-j', String(j));
  const running = runCli(args, { env: cleanEnv });
  let exited = false;
  void running.then(() => {
    exited = true;
  });
  try {
    // Nothing is answered: assay opens requests until its concurrency is used up, then waits.
    const reached = await waitFor(() => exited || mock.stats().inFlight >= expected);
    assert.equal(exited, false, 'the run ended while the server held every request');
    assert.equal(
      reached,
      true,
      `the server saw ${mock.stats().inFlight} requests in flight, not ${expected}`,
    );
  } finally {
    release();
  }
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  const stats = mock.stats();
  assert.equal(stats.requests, tests);
  // Never more than asked for, held or not.
  assert.equal(stats.maxInFlight, expected);
}

describe('concurrency at the server', () => {
  it('-j 40: the server sees 40 requests in flight at once (pool, limiter and pump all let them through)', async () => {
    await peakWhileHeld(120, 40, 40);
  });

  it('the default -j (8) reaches the server as 8 requests in flight', async () => {
    await peakWhileHeld(30, undefined, 8);
  });
});
