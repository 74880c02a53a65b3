// A CSV `__expected` cell of a list type (contains-any/-all, icontains-any/-all) is read as
// promptfoo 0.123.1 reads it: double quotes protect commas (`""` and `\"` escape a quote), blank
// items are dropped. test/fixtures/promptfoo/csv-lists/promptfoo-0.123.1.json holds what promptfoo
// itself gave for lists.csv; assay must load the same assertions and give the same verdicts.
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../../support/cli.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-csv-lists-');
after(() => tmp.cleanup());

/** One result of a promptfoo JSON output, the fields compared here. */
interface PfResult {
  testIdx: number;
  vars: { q: string };
  testCase: { assert: { type: string; value: unknown }[] };
  success: boolean;
}

interface Recorded {
  rows: { q: string; assert: { type: string; value: unknown }[]; pass: boolean }[];
}

describe('CSV list cells: as promptfoo 0.123.1 reads them', () => {
  it('quoted items, escaped quotes and blank items give promptfoo’s lists and verdicts', async () => {
    cpSync(fixture('promptfoo', 'csv-lists'), tmp.dir, { recursive: true });
    const recorded = JSON.parse(readFileSync(join(tmp.dir, 'promptfoo-0.123.1.json'), 'utf8')) as Recorded;
    const run = await runCli(
      ['eval', '--no-progress', '--no-cache', '-o', 'pf.json', '--output-format', 'promptfoo'],
      { cwd: tmp.dir, env: cleanEnv },
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const out = JSON.parse(readFileSync(join(tmp.dir, 'pf.json'), 'utf8'));
    const rows = (out.results.results as PfResult[])
      .sort((a, b) => a.testIdx - b.testIdx)
      .map((r) => ({
        q: r.vars.q,
        assert: r.testCase.assert.map((a) => ({ type: a.type, value: a.value })),
        pass: r.success,
      }));
    assert.deepStrictEqual(rows, recorded.rows);
  });
});
