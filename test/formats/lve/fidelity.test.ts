// Issue 25, LVE: what LVE's own pipeline (LVE.run with the dummy model, pydantic's TestInstance)
// answers for a lambda returning a string or number, a prompt ending in a prefill, and a multi-run
// checker on a plain prompt, recorded in test/fixtures/lve/fidelity.json by generate-fidelity.py,
// and assay's verdicts on the same LVEs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { evaluate } from '../../../src/evaluate.js';
import { closePythonWorker } from '../../../src/runtime/python-worker.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';
import { instance, writeLve } from './helpers.js';

interface Recorded {
  test: Record<string, unknown>;
  args: Record<string, unknown>;
  result: { passed?: boolean; response?: unknown; error?: string };
}
const recorded = JSON.parse(readFileSync(fixture('lve', 'fidelity.json'), 'utf8')) as Record<
  string,
  Recorded
>;
const tmp = tempDir('assay-lve-fidelity-');
after(async () => {
  await closePythonWorker();
  tmp.cleanup();
});

let n = 0;
/** Writes the LVE with its one instance, runs it with assay, and returns the instance's result. */
async function runLve(rec: Recorded): Promise<JobResult> {
  const root = join(tmp.dir, `r${n++}`);
  writeLve(root, 'dummy/case/dummy--dummy', rec.test, { instances: instance(rec.args, '') });
  const run = await evaluate({
    suitePath: join(root, 'repository', 'dummy', 'case', 'dummy--dummy'),
    runsDir: join(root, 'runs'),
    cache: false,
    env: { PATH: process.env.PATH ?? '' },
  });
  const lines = readFileSync(join(run.runDir, 'results.jsonl'), 'utf8').trim().split('\n');
  assert.equal(lines.length, 1);
  return JSON.parse(lines[0]) as JobResult;
}

describe('LVE fidelity: LVE.run() and assay agree', () => {
  for (const [name, rec] of Object.entries(recorded)) {
    const want = rec.result;
    it(`${name}: ${want.error ? `an error (${want.error.split(':')[0]})` : `passed=${want.passed}, response ${JSON.stringify(want.response)}`}`, async () => {
      const r = await runLve(rec);
      if (want.error) {
        assert.equal(r.status, 'error', `assay: ${r.status} ${r.reason}`);
        if (want.error.includes('score_callback')) assert.match(r.reason, /score_callback/);
        else if (want.error.includes('must have a variable name'))
          assert.match(r.reason, /every one needs a "variable"/);
        else assert.match(r.reason, /cannot record as the instance's passed/);
        return;
      }
      assert.notEqual(r.status, 'error', r.reason);
      assert.equal(r.output, want.response);
      const details = r.verdicts[0]?.details as { passed?: boolean } | undefined;
      assert.equal(details?.passed, want.passed, r.reason);
    });
  }
});
