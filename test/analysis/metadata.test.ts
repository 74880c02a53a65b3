// Breakdowns by case metadata for suites that declare none: keys that group the cases (a few
// values, cases without the key in `(none)`), not keys that name them (an id per case).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MAX_METADATA_GROUPS, metadataBreakdowns } from '../../src/analysis/metadata.js';
import { evalSuite } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-metadata-');
after(() => tmp.cleanup());

describe('metadata breakdowns', () => {
  it('breaks a run down by its grouping keys only, with the cases lacking a key as (none)', async () => {
    const n = MAX_METADATA_GROUPS + 8;
    const tests = [...Array(n).keys()].map((i) => {
      const meta = [`id: t${i}`, `lang: ${i % 2 === 0 ? 'en' : 'fr'}`];
      if (i < 5) meta.push('tier: hard');
      return `  - vars: { n: ${i} }\n    metadata: { ${meta.join(', ')} }\n    assert:\n      - type: contains\n        value: '${i % 5 === 0 ? 'absent' : `n ${i}`}'`;
    });
    const dir = join(tmp.dir, 'run');
    mkdirSync(dir);
    const run = await evalSuite(
      dir,
      `prompts: ['n {{n}}']\nproviders: [echo]\ntests:\n${tests.join('\n')}\n`,
    );
    assert.equal(run.code, 1, run.stderr);
    const breakdowns = await metadataBreakdowns(run.runDir);
    assert.deepEqual(
      breakdowns.map((b) => [b.by, b.groups.map((g) => [g.value, g.pass, g.fail])]),
      [
        [
          'lang',
          [
            ['en', 8, 2],
            ['fr', 8, 2],
          ],
        ],
        [
          'tier',
          [
            ['(none)', 12, 3],
            ['hard', 4, 1],
          ],
        ],
      ],
    );
    const en = breakdowns[0].groups[0].passRate;
    assert.ok(en.low < 0.8 && en.high > 0.8 && en.n === 10);
  });
});
