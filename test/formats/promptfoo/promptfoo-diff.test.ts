// The differential harness (test/fixtures/promptfoo-diff/): every config run by assay against the
// scripted grader, each assertion's verdict compared with promptfoo 0.123.1's, recorded in
// expected.json by scripts/promptfoo-diff.js --record. One test per config and verdict class.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rubyExecutable } from '../../../src/scorers/code/ruby.js';
import { runCli } from '../../support/cli.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import {
  classOf,
  compareRows,
  DIFF_DIR,
  diffConfigs,
  OUTPUT_CONFIGS,
  type RowVerdict,
  readExpectations,
  rowsOf,
} from '../../support/promptfoo-diff.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-pf-diff-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: JSON.parse(readFileSync(join(DIFF_DIR, 'answers.json'), 'utf8')) });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

/**
 * Deliberate differences: a grader reply promptfoo cannot read is a failed assertion in promptfoo
 * (score 0) and an `error` in assay (errors are not failures; docs/scoring.md, "Model-graded assertions").
 */
const UNREADABLE = new Set(['rag-unreadable: context-faithfulness verdicts other than yes/no']);

/** Configs that need an interpreter besides Node: skipped (and said so) when it is not installed. */
const rubyMissing = spawnSync(rubyExecutable(), ['-v']).status !== 0;
const NEEDS = new Map([
  ['ruby.yaml', rubyMissing ? `no Ruby interpreter ("${rubyExecutable()}")` : undefined],
]);

const assayRuns = new Map<string, Promise<RowVerdict[]>>();
function runAssay(config: string): Promise<RowVerdict[]> {
  let run = assayRuns.get(config);
  if (!run) {
    run = (async () => {
      const out = join(tmp.dir, `${config}.json`);
      const r = await runCli(
        [
          'eval',
          join(DIFF_DIR, config),
          '--no-progress',
          '-j',
          '2',
          '--runs-dir',
          join(tmp.dir, 'runs'),
          '--output-format',
          'promptfoo',
          '-o',
          out,
        ],
        { env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-mock', OPENAI_API_BASE_URL: undefined } },
      );
      assert.ok([0, 1, 3].includes(r.code), `assay ran ${config} (exit ${r.code}): ${r.stderr.slice(-2000)}`);
      return rowsOf(JSON.parse(readFileSync(out, 'utf8')), { outputs: OUTPUT_CONFIGS.has(config) });
    })();
    assayRuns.set(config, run);
  }
  return run;
}

const expected = readExpectations();

describe('promptfoo 0.123.1 differential: same configs, same grader replies, same verdicts', () => {
  it('every fixture config has recorded expectations', () => {
    assert.deepEqual(Object.keys(expected).sort(), diffConfigs());
  });
  for (const config of diffConfigs()) {
    const rows = expected[config] ?? [];
    const classes = [...new Set(rows.map((r) => classOf(r.description)))];
    for (const cls of classes) {
      const want = rows.filter((r) => classOf(r.description) === cls);
      it(`${config} · ${cls}: ${want.length} test(s) as promptfoo judged them`, {
        skip: NEEDS.get(config),
      }, async () => {
        const got = await runAssay(config);
        const agreeing = want.filter((r) => !UNREADABLE.has(r.description));
        const { differences, compared } = compareRows(agreeing, got);
        assert.equal(
          compared,
          agreeing.reduce((n, r) => n + Math.max(1, r.assertions.length), 0),
        );
        assert.deepEqual(differences, []);
        for (const r of want.filter((w) => UNREADABLE.has(w.description))) {
          const row = got.find((g) => g.description === r.description);
          assert.ok(row, r.description);
          assert.equal(r.success, false, 'promptfoo fails it');
          assert.match(row.error ?? '', /grader/, `${r.description}: an error in assay, quoting the grader`);
        }
      });
    }
  }
});
