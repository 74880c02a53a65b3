// A CSV `__expected` cell of a list type (contains-any/-all, icontains-any/-all) is read as
// promptfoo 0.123.1 reads it: double quotes protect commas (`""` and `\"` escape a quote), blank
// items are dropped. test/fixtures/promptfoo/csv-lists/promptfoo-0.123.1.json holds what promptfoo
// itself gave for lists.csv; assay must load the same assertions and give the same verdicts.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../support/tmp.js';
import { evalAgainstRecorded } from './helpers.js';

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
    const run = await evalAgainstRecorded<PfResult>('csv-lists', tmp.dir);
    const recorded = run.recorded as Recorded;
    assert.equal(run.code, 0, run.output);
    const rows = run.results.map((r) => ({
      q: r.vars.q,
      assert: r.testCase.assert.map((a) => ({ type: a.type, value: a.value })),
      pass: r.success,
    }));
    assert.deepStrictEqual(rows, recorded.rows);
  });
});
