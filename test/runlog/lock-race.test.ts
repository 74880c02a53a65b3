// Review of issue 11: "a run directory is owned by one process at a time". Two processes that
// take a run's lock at the same moment must never both hold it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const lockModule = fileURLToPath(new URL('../../src/runlog/lock.js', import.meta.url));

/** Starts a process that waits for `startAt` (ms since the epoch), takes the lock, holds it 300 ms. */
function contender(dir: string, startAt: number): Promise<string> {
  const script = `
    import { lockRun } from ${JSON.stringify(lockModule)};
    while (Date.now() < ${startAt}) {}
    try { lockRun(${JSON.stringify(dir)}); process.stdout.write('GOT'); setTimeout(() => {}, 300); }
    catch { process.stdout.write('REFUSED'); }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
  let out = '';
  child.stdout.on('data', (d) => {
    out += String(d);
  });
  return new Promise((resolve) => child.on('close', () => resolve(out)));
}

async function doubleOwners(trials: number, stale: boolean): Promise<number> {
  let both = 0;
  for (let i = 0; i < trials; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'assay-lock-race-'));
    // A lock left by a process that is gone (a SIGKILLed eval).
    if (stale) writeFileSync(join(dir, 'run.lock'), '999999\n');
    const startAt = Date.now() + 200;
    const got = await Promise.all([contender(dir, startAt), contender(dir, startAt)]);
    if (got.every((g) => g === 'GOT')) both++;
    rmSync(dir, { recursive: true, force: true });
  }
  return both;
}

describe('run.lock under contention (review of issue 11)', () => {
  it('two processes taking a free lock at once: one of them is refused', async () => {
    // The lock file exists empty between its creation and the write of the pid; a contender that
    // reads it then takes it for stale (pid 0), removes it and creates its own.
    assert.equal(await doubleOwners(30, false), 0);
  });

  it('two processes taking over a stale lock at once: one of them is refused', async () => {
    // Both read the dead pid, both remove "the stale lock": the second removes the first one's.
    assert.equal(await doubleOwners(30, true), 0);
  });
});
