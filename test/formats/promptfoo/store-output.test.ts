// promptfoo's `options.storeOutputAs` (issue 22): a test's output kept under a var that the later
// tests see. The rows promptfoo 0.123.1 writes for it are compared whole in promptfoo-diff.test.ts
// (test/fixtures/promptfoo-diff/store-output.yaml); these check concurrency, transforms, resume and
// what assay refuses.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { evaluate } from '../../../src/evaluate.js';
import { tempDir } from '../../support/tmp.js';
import { errorsOf, located } from './helpers.js';
import { readResults, runConfig } from './run-config.js';

const tmp = tempDir('assay-store-output-');
after(tmp.cleanup);

// Two prompts: promptfoo keeps one register for the eval, so the second prompt's row of a test
// already sees what the first prompt's row of that test stored.
const CONFIG = `prompts:
  - "A {{topic}} [{{saved}}]"
  - "B {{topic}} [{{saved}}]"
providers: [echo]
tests:
  - vars: {topic: zero, saved: none}
  - vars: {topic: one, saved: own}
    options: {storeOutputAs: saved, transform: "output.toUpperCase()"}
  - vars: {topic: two}
    assert: [{type: javascript, value: "context.vars.saved === 'B ONE [A ONE [OWN]]'"}]
  - vars: {topic: three, saved: mine}
`;
const EXPECTED = [
  'A zero [none]',
  'B zero [none]',
  'A ONE [OWN]',
  'B ONE [A ONE [OWN]]',
  'A two [B ONE [A ONE [OWN]]]',
  'B two [B ONE [A ONE [OWN]]]',
  'A three [B ONE [A ONE [OWN]]]',
  'B three [B ONE [A ONE [OWN]]]',
];

describe('options.storeOutputAs', () => {
  it('later tests see the last stored output (after transforms) over their own var, in order, whatever -j', async () => {
    for (const maxConcurrency of [1, 8]) {
      const { results } = await runConfig(tmp.dir, CONFIG, { options: { maxConcurrency } });
      assert.deepEqual(
        results.map((r) => r.output),
        EXPECTED,
        `-j ${maxConcurrency}`,
      );
      // The assertion saw the stored var; the row keeps the test's own vars, as promptfoo's does.
      assert.deepEqual(
        results.map((r) => r.status),
        ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'],
      );
      assert.deepEqual(results[7].case.varsAsWritten, { topic: 'three', saved: 'mine' });
    }
  });

  it('a resumed run recovers the stored var from the outputs the first run recorded', async () => {
    const whole = await runConfig(tmp.dir, CONFIG);
    assert.deepEqual(
      whole.results.map((r) => r.output),
      EXPECTED,
    );
    // The run stopped after the storing test: the log keeps its rows, and a resume runs the rest.
    const log = join(whole.run.runDir, 'results.jsonl');
    const kept = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => JSON.parse(l).caseIndex <= 1);
    assert.equal(kept.length, 4);
    writeFileSync(log, `${kept.join('\n')}\n`);
    const resumed = await evaluate({
      suitePath: join(dirname(whole.run.runDir), '..', 'promptfooconfig.yaml'),
      resume: whole.run.runDir,
      cache: false,
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.deepEqual(
      readResults(resumed.runDir, resumed).map((r) => [r.output, r.status]),
      EXPECTED.map((o) => [o, 'pass']),
    );
  });

  it('refuses a storeOutputAs that is not a var name, at its line (exit 2 before any call)', async () => {
    const diags = await errorsOf(
      'prompts: ["{{x}}"]\nproviders: [echo]\ntests:\n  - vars: {x: 1}\n    options:\n      storeOutputAs: [a]\n',
    );
    assert.deepEqual(
      located(diags).map((l) => l.replace(/^.*promptfooconfig\.yaml/, 'promptfooconfig.yaml')),
      ['promptfooconfig.yaml:6:22 `options.storeOutputAs` must be a var name (a string), got ["a"]'],
    );
  });

  it('refuses storeOutputAs with a prompt that reads _conversation (not supported yet), at its line', async () => {
    const diags = await errorsOf(
      'prompts: ["{{_conversation | length}} {{x}}"]\nproviders: [echo]\ntests:\n  - vars: {x: 1}\n    options: {storeOutputAs: y}\n',
    );
    assert.equal(diags.length, 1);
    assert.match(
      located(diags)[0],
      /promptfooconfig\.yaml:5:\d+ `options\.storeOutputAs` in a suite whose prompt reads `_conversation` is not supported/,
    );
  });
});
