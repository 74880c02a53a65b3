// CSV `__threshold`, `__config:…:threshold` and `__metadata:key[]` cells read as promptfoo 0.123.1
// reads them: a number is the whole trimmed cell (`0` included, `0.5abc` and `Infinity` none), and
// every `\,` of a list item is a comma. test/fixtures/promptfoo/csv-columns/promptfoo-0.123.1.json
// holds what promptfoo itself gave for columns.csv.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../support/tmp.js';
import { errorsOf, evalAgainstRecorded, located } from './helpers.js';

const tmp = tempDir('assay-csv-columns-');
after(() => tmp.cleanup());

/** One result of a promptfoo JSON output, the fields compared here. */
interface PfResult {
  testIdx: number;
  vars: { q: string };
  testCase: { threshold?: number; metadata?: Record<string, unknown> };
  success: boolean;
  score: number;
}

describe('CSV number and list columns: as promptfoo 0.123.1 reads them', () => {
  it('__threshold 0 is kept, 0.5abc and Infinity are no number, every \\, of a tag is a comma', async () => {
    const { code, output, recorded, results } = await evalAgainstRecorded<PfResult>('csv-columns', tmp.dir);
    // promptfoo exits 100 for the failing row; assay's code for a failed test is 1.
    assert.equal(code, 1, output);
    const rows = results.map((r) => ({
      q: r.vars.q,
      threshold: r.testCase.threshold ?? null,
      metadata: r.testCase.metadata ?? {},
      pass: r.success,
      score: r.score,
    }));
    assert.deepStrictEqual(rows, (recorded as { rows: unknown }).rows);
  });

  it('a __config threshold that is not a whole number is a load error at its row', async () => {
    const errors = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n', {
      't.csv': 'q,__expected,__config:__expected:threshold\nx,contains:x,0.5abc\n',
    });
    assert.deepEqual(
      located(errors).map((l) => l.replace(/^.*t\.csv/, 't.csv')),
      [
        't.csv:2: Invalid numeric value "0.5abc" for config key "threshold" in column "__config:__expected:threshold"',
      ],
    );
  });
});
