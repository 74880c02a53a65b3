// meteor against promptfoo 0.123.1's own METEOR code: the scores of test/fixtures/promptfoo-meteor/
// cases.json were recorded by its handleMeteorAssertion (record.mjs; see SOURCE.md there).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runConfig } from '../../formats/promptfoo/run-config.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';
import { near, run } from './helpers.js';

interface Case {
  name: string;
  output: string;
  value: string | string[];
  inverse?: boolean;
  alpha?: number;
  beta?: number;
  gamma?: number;
  threshold?: number;
}
interface Recorded {
  name: string;
  pass: boolean;
  score: number;
  reason: string;
}

const dir = fixture('promptfoo-meteor');
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Case[];
const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Recorded[];
const tmp = tempDir('assay-meteor-');
after(tmp.cleanup);

describe('meteor: the scores promptfoo 0.123.1 computes', () => {
  it('every case has a recorded verdict', () => {
    assert.deepEqual(
      expected.map((e) => e.name),
      cases.map((c) => c.name),
    );
  });
  for (const c of cases) {
    it(c.name, async () => {
      const want = expected.find((e) => e.name === c.name);
      assert.ok(want);
      const options: Record<string, unknown> = {};
      for (const k of ['alpha', 'beta', 'gamma'] as const) if (c[k] !== undefined) options[k] = c[k];
      const got = await run('meteor', c.value, c.output, {
        spec: { negate: c.inverse === true, threshold: c.threshold, options },
      });
      near(got.score, want.score, `${c.name}: score ${got.score}, promptfoo ${want.score}`);
      assert.equal(got.pass, want.pass);
      assert.equal(got.reason, want.reason);
    });
  }

  it('runs in a promptfoo config (alpha/beta/gamma as assertion fields), one row an error for an empty output', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['{{text}}']
providers: [echo]
tests:
  - vars: {text: the dog barked at night}
    assert: [{type: meteor, value: the dog is barking at the night, alpha: 0.5, beta: 2, gamma: 0.8, threshold: 0.4}]
  - vars: {text: ''}
    assert: [{type: meteor, value: the dog}]
`,
    );
    const want = expected.find((e) => e.name === 'parameters');
    assert.ok(want);
    near(results[0].verdicts[0].score, want.score);
    assert.equal(results[0].status, want.pass ? 'pass' : 'fail');
    assert.equal(results[1].status, 'error');
    assert.match(results[1].error ?? '', /meteor.*empty output/);
  });
});
