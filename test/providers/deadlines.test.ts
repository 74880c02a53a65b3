// The shared deadline timer of provider attempts (src/providers/deadlines.ts): deadlines fire in
// the order they end whatever order they were set in, cancelled ones never fire and do not pile
// up, and only deadlines that ask for it keep the process alive.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DeadlineTimer } from '../../src/providers/deadlines.js';
import { runNode } from '../support/cli.js';
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
