// Review of issue 11: "a run is complete only after its outputs are". `assay merge -o FILE` marks
// the merged run complete before FILE is written and never records FILE as pending: when the file
// cannot be written (or the merge is killed while writing it), the run looks whole and
// `assay report` does not say that an output is missing.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-merge-outputs-');
after(() => tmp.cleanup());

describe('assay merge -o (review of issue 11)', () => {
  it('an output that was not written is recorded as pending in the merged run', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      "prompts: ['hi {{n}}']\nproviders: [echo]\ntests:\n  - vars: {n: 1}\n  - vars: {n: 2}\n  - vars: {n: 3}\n",
    );
    const shards = join(dir, 'shards');
    for (const s of ['1/2', '2/2']) {
      const r = await runCli(['eval', '--no-progress', '--runs-dir', shards, '--shard', s], {
        cwd: dir,
        env: cleanEnv,
      });
      assert.equal(r.code, 0, r.stderr);
    }
    // `blocker` is a file, so blocker/out.json cannot be written.
    writeFileSync(join(dir, 'blocker'), '');
    const mergedRuns = join(dir, 'merged');
    const m = await runCli(
      [
        'merge',
        ...readdirSync(shards).map((d) => join(shards, d)),
        '--runs-dir',
        mergedRuns,
        '-o',
        'blocker/out.json',
      ],
      { cwd: dir, env: cleanEnv },
    );
    assert.notEqual(m.code, 0);
    const run = join(mergedRuns, readdirSync(mergedRuns).filter((d) => !d.startsWith('.'))[0]);
    const manifest = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8')) as {
      outputsPending?: string[];
    };
    assert.deepEqual(manifest.outputsPending, [join(dir, 'blocker', 'out.json')]);
  });
});
