// evaluate() in its two halves: prepareRun decides everything and writes nothing; executeRun runs
// and writes, and releases the providers the prepared run built however it ends.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { executeRun, prepareRun } from '../../src/evaluate.js';
import { registerProvider } from '../../src/providers/registry.js';
import { buildSuite } from '../support/suite-builder.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-prepare-execute-');
after(() => tmp.cleanup());

/** `closing:<name>` providers answer "ok" and record when they are closed. */
const closed: string[] = [];
registerProvider({
  pattern: 'closing:<name>',
  matches: (id) => id.startsWith('closing:'),
  load: async () => (spec) => ({
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id }),
    async call() {
      return { output: 'ok', latencyMs: 1 };
    },
    async close() {
      closed.push(spec.id);
    },
  }),
});

function suiteOf(provider: string, n = 3) {
  return buildSuite({
    providers: [{ id: provider }],
    cases: Array.from({ length: n }, (_, i) => ({
      vars: { prompt: `q${i}` },
      asserts: [{ type: 'contains', value: 'ok' }],
    })),
  });
}

describe('prepareRun and executeRun', () => {
  it('prepareRun counts the jobs and makes the manifest, writing nothing; disposing it closes its providers', async () => {
    const runsDir = join(tmp.dir, 'runs-a');
    const cachePath = join(tmp.dir, 'cache-a.sqlite');
    const prepared = await prepareRun({
      suite: suiteOf('closing:a'),
      runsDir,
      repeat: 2,
      cache: { path: cachePath },
      env: {},
    });
    assert.equal(prepared.planned, 6);
    assert.equal(prepared.manifest.plannedJobs, 6);
    assert.deepEqual(
      prepared.resolved.map((r) => r.provider.id),
      ['closing:a'],
    );
    assert.equal(existsSync(runsDir), false, 'no run directory');
    assert.equal(existsSync(cachePath), false, 'no cache file');
    await prepared[Symbol.asyncDispose]();
    assert.deepEqual(closed.splice(0), ['closing:a']);
    await prepared[Symbol.asyncDispose]();
    assert.deepEqual(closed, [], 'released once');
  });

  it('executeRun writes the run, releases the providers and the lock', async () => {
    const runsDir = join(tmp.dir, 'runs-b');
    const result = await executeRun(
      await prepareRun({ suite: suiteOf('closing:b'), runsDir, cache: false, env: {} }),
    );
    assert.equal(result.manifest.status, 'complete');
    assert.equal(result.scorecard.counts.total, 3);
    assert.deepEqual(closed.splice(0), ['closing:b']);
    assert.deepEqual(readdirSync(runsDir).length, 1);
    assert.equal(existsSync(join(result.runDir, 'run.lock')), false);
  });

  it('executeRun that fails before the run (a cache path that cannot be opened) still closes the providers', async () => {
    const runsDir = join(tmp.dir, 'runs-c');
    // A file where the cache's folder should be.
    writeFileSync(join(tmp.dir, 'blocker'), '');
    const prepared = await prepareRun({
      suite: suiteOf('closing:c'),
      runsDir,
      cache: { path: join(tmp.dir, 'blocker', 'cache.sqlite') },
      env: {},
    });
    await assert.rejects(executeRun(prepared));
    assert.deepEqual(closed.splice(0), ['closing:c']);
    assert.equal(existsSync(runsDir), false, 'a bad cache path leaves nothing behind');
  });
});
