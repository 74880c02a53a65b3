// A test hook, off unless ASSAY_TEST_PAUSE names a point: there the process says so on stderr and
// waits (until the file ASSAY_TEST_RELEASE exists, else until it is killed; at most 10 minutes),
// so a test can kill it, or start a rival, at a known moment instead of after a guessed delay.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Pauses at `point` when ASSAY_TEST_PAUSE names it (see the file comment); else returns at once. */
export async function testPause(point: string): Promise<void> {
  if (process.env.ASSAY_TEST_PAUSE !== point) return;
  process.stderr.write(`assay: test pause at ${point}\n`);
  const release = process.env.ASSAY_TEST_RELEASE;
  for (let i = 0; i < 30_000; i++) {
    if (release && existsSync(release)) return;
    await sleep(20);
  }
}

/** testPause for synchronous code: the same line on stderr, the same wait, blocking. */
export function testPauseSync(point: string): void {
  if (process.env.ASSAY_TEST_PAUSE !== point) return;
  process.stderr.write(`assay: test pause at ${point}\n`);
  const release = process.env.ASSAY_TEST_RELEASE;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 30_000; i++) {
    if (release && existsSync(release)) return;
    Atomics.wait(cell, 0, 0, 20);
  }
}
