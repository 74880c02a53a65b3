// promptfoo `derivedMetrics` (spec §6.3): parsed and checked at load, computed per prompt × provider
// column after each result, shown in the console's Metrics section and in promptfoo's JSON output
// (`prompts[].metrics.namedScores`, where promptfoo stores them).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/tmp.js';
import { loadErrors, loadText, located, writeSuite } from './helpers.js';

const tmp = tempDir('assay-derived-');
after(() => tmp.cleanup());

// Three rows: tp (contains "yes") totals 2, fp (contains "no") totals 1. weight 0 keeps the
// bookkeeping assertions out of the rows' verdicts, as promptfoo's F1 recipe does.
const CONFIG = `description: derived
prompts: ['answer {{q}}']
providers: [echo]
derivedMetrics:
  - name: precision
    value: tp / (tp + fp)
  - name: fp_rate
    value: fp / __count
  - name: doubled
    value: round(precision * 2, 2)
defaultTest:
  assert:
    - {type: icontains, value: 'yes', metric: tp, weight: 0}
    - {type: icontains, value: 'no', metric: fp, weight: 0}
tests:
  - vars: {q: 'yes'}
  - vars: {q: 'yes'}
  - vars: {q: 'no'}
`;

describe('promptfoo derivedMetrics', () => {
  it('loads into the suite scoring, in order', async () => {
    const suite = await loadText(CONFIG);
    assert.deepEqual(suite.scoring.derivedMetrics, [
      { name: 'precision', expression: 'tp / (tp + fp)' },
      { name: 'fp_rate', expression: 'fp / __count' },
      { name: 'doubled', expression: 'round(precision * 2, 2)' },
    ]);
    assert.ok(!suite.warnings.some((w) => w.message.includes('derivedMetrics')), 'no longer ignored');
  });

  it('refuses an invalid expression at load, at the value, naming the character', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
providers: [echo]
derivedMetrics:
  - name: ok
    value: a + b
  - name: broken
    value: 'tp / (tp + fp'
  - name: nameless
  - value: 1 + 1
tests: [{vars: {q: x}}]
`,
    });
    const lines = located(await loadErrors(path)).map((l) => l.replace(/^.*promptfooconfig\.yaml:/, ''));
    assert.deepEqual(lines, [
      '7:12 derivedMetrics[1] ("broken"): invalid expression at character 14 of "tp / (tp + fp": expected ")" but found the end of the expression',
      '8:5 derivedMetrics[2] ("nameless"): `value` must be an expression such as "tp / (tp + fp)"',
      '9:5 derivedMetrics[3].name must be a non-empty string',
    ]);
  });

  it('refuses a derivedMetrics that is not a list', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `prompts: ['{{q}}']\nproviders: [echo]\nderivedMetrics: {f1: x}\ntests: [{vars: {q: x}}]\n`,
    });
    const lines = located(await loadErrors(path));
    assert.equal(lines.length, 1);
    assert.match(lines[0], /:3:17 `derivedMetrics` must be a list of \{name, value\} entries$/);
  });

  it('computes them over the column and writes them to the console and the promptfoo JSON', async () => {
    const dir = join(tmp.dir, 'run');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'promptfooconfig.yaml'), CONFIG);
    const run = await runCli(['eval', '--no-progress', '-o', 'pf.json', '--output-format', 'promptfoo'], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^ {2}precision \(derived\): 0\.667$/m);
    assert.match(run.stdout, /^ {2}fp_rate \(derived\): 0\.333$/m);
    assert.match(run.stdout, /^ {2}doubled \(derived\): 1\.330$/m);
    const out = JSON.parse(readFileSync(join(dir, 'pf.json'), 'utf8'));
    const metrics = out.results.prompts[0].metrics;
    assert.equal(metrics.namedScores.tp, 2);
    assert.equal(metrics.namedScores.fp, 1);
    assert.equal(metrics.namedScores.precision, 2 / 3);
    assert.equal(metrics.namedScores.fp_rate, 1 / 3);
    assert.equal(metrics.namedScores.doubled, 1.33);
    assert.deepEqual(metrics.namedScoreWeights, { tp: 3, fp: 3 });
  });
});
