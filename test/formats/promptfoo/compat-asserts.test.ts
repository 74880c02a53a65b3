// promptfoo compatibility cases of lane 4 (spec §11 #16–#30, #34), each run end to end: a config
// loaded by the promptfoo loader, run by the engine, judged from the run log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Case } from '../../../src/core/types.js';
import { scoreCase } from '../../../src/engine/score.js';
import { closePythonWorker } from '../../../src/scorers/code/index.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { tempDir } from '../../support/tmp.js';
import { runConfig } from './run-config.js';

const tmp = tempDir('assay-compat-asserts-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [{ match: '^Choose among 2 outputs', reply: 'Output 1 fits best.' }],
  });
});
after(async () => {
  await mock.close();
  await closePythonWorker();
  tmp.cleanup();
});

/** One test with a fixed output and the given assertions (YAML list items, indented 6). */
function fixedOutput(output: string, asserts: string, extra = ''): string {
  return `prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: x}
    providerOutput: ${JSON.stringify(output)}${extra}
    assert:
${asserts}
`;
}

async function only(config: string) {
  const { results } = await runConfig(tmp.dir, config);
  assert.equal(results.length, 1);
  return results[0];
}

describe('promptfoo compatibility §11: scoring rules', () => {
  it('§11 #16: threshold 0 with one failing assertion passes', async () => {
    const r = await only(
      fixedOutput('hello', '      - type: contains\n        value: nope', '\n    threshold: 0'),
    );
    assert.deepEqual([r.status, r.score, r.reason], ['pass', 0, 'Aggregate score 0.00 ≥ 0 threshold']);
  });

  it('§11 #17: a failing weight-0 assertion and a passing one → pass, score 1', async () => {
    const r = await only(
      fixedOutput(
        'hello',
        '      - type: contains\n        value: nope\n        weight: 0\n      - type: contains\n        value: hell',
      ),
    );
    assert.deepEqual([r.status, r.score], ['pass', 1]);
  });

  it('§11 #18: only weight-0 assertions → pass with score 0; with threshold 0.5 → fail', async () => {
    const asserts = '      - type: contains\n        value: hell\n        weight: 0';
    const r = await only(fixedOutput('hello', asserts));
    assert.deepEqual([r.status, r.score], ['pass', 0]);
    const t = await only(fixedOutput('hello', asserts, '\n    threshold: 0.5'));
    assert.deepEqual([t.status, t.score], ['fail', 0]);
  });

  it('§11 #19: weights 2 (fail) and 1 (pass) with threshold 0.3 → score 1/3, pass', async () => {
    const r = await only(
      fixedOutput(
        'hello',
        '      - type: contains\n        value: nope\n        weight: 2\n      - type: contains\n        value: hell',
        '\n    threshold: 0.3',
      ),
    );
    assert.equal(r.status, 'pass');
    assert.ok(Math.abs(r.score - 1 / 3) < 1e-12);
  });

  it('§11 #20: no output (null) → a failure (not an error), score 0, "No output"', async () => {
    const c: Case = { id: 'c', vars: {}, asserts: [{ type: 'contains', value: 'x' }], metadata: {} };
    const o = await scoreCase(c, { output: null, outputValue: null, vars: {}, prompt: '', response: {} });
    assert.deepEqual([o.status, o.score, o.error], ['fail', 0, 'No output']);
  });

  it('§11 #21: a provider error → the row is an error, counted as an error', async () => {
    const { results, run } = await runConfig(
      tmp.dir,
      `prompts: [hi]
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: "${mock.url}/_/status=500/v1"}
tests:
  - assert:
      - type: contains
        value: hi
`,
      { options: { retry: { maxAttempts: 1 } } },
    );
    assert.equal(results[0].status, 'error');
    assert.match(results[0].error ?? '', /500/);
    assert.equal(run.scorecard.counts.error, 1);
    assert.equal(run.scorecard.counts.pass, 0);
  });

  it('§11 #22: contains with an empty value is an error, not a failed assertion', async () => {
    const c: Case = { id: 'c', vars: {}, asserts: [{ type: 'contains', value: '' }], metadata: {} };
    const o = await scoreCase(c, { output: 'abc', outputValue: 'abc', vars: {}, prompt: '', response: {} });
    assert.equal(o.status, 'error');
    // The loader refuses it before anything runs (every row would be an error).
    await assert.rejects(only(fixedOutput('abc', "      - type: contains\n        value: ''")), /contains/);
  });

  it('§11 #23: contains with value 0 matches output "10"', async () => {
    const r = await only(fixedOutput('10', '      - type: contains\n        value: 0'));
    assert.equal(r.status, 'pass');
  });

  it('§11 #24: equals an object compares JSON deeply, key order aside', async () => {
    const asserts = '      - type: equals\n        value: {a: 1, b: 2}';
    assert.equal((await only(fixedOutput('{"b":2,"a":1}', asserts))).status, 'pass');
    assert.equal((await only(fixedOutput('{"a":"1","b":2}', asserts))).status, 'fail');
  });

  it('§11 #25: equals an object vs text that is not JSON fails; not-equals passes', async () => {
    assert.equal(
      (await only(fixedOutput('not json', '      - type: equals\n        value: {a: 1}'))).status,
      'fail',
    );
    assert.equal(
      (await only(fixedOutput('not json', '      - type: not-equals\n        value: {a: 1}'))).status,
      'pass',
    );
  });

  it('§11 #26: is-json accepts 42; contains-json needs an object ([1,2] fails, prose around one passes)', async () => {
    assert.equal((await only(fixedOutput('42', '      - type: is-json'))).status, 'pass');
    assert.equal((await only(fixedOutput('[1,2]', '      - type: contains-json'))).status, 'fail');
    assert.equal(
      (await only(fixedOutput('text {"a":1} text', '      - type: contains-json'))).status,
      'pass',
    );
  });

  it('§11 #27: regex (?i)abc is not JavaScript: the assertion fails with "Invalid regex pattern"', async () => {
    const r = await only(fixedOutput('abc', "      - type: regex\n        value: '(?i)abc'"));
    assert.equal(r.status, 'fail');
    assert.match(r.reason, /Invalid regex pattern/);
  });

  it('§11 #28: javascript returning 0.5 passes (score 0.5); 0 fails; 0.5 under threshold 0.6 fails', async () => {
    const js = (code: string, extra = '') =>
      fixedOutput('x', `      - type: javascript\n        value: '${code}'${extra}`);
    assert.deepEqual([(await only(js('0.5'))).status, (await only(js('0.5'))).score], ['pass', 0.5]);
    const zero = await only(js('0'));
    assert.deepEqual([zero.status, zero.score], ['fail', 0]);
    const under = await only(js('0.5', '\n        threshold: 0.6'));
    assert.deepEqual([under.status, under.score], ['fail', 0.5]);
  });

  it('§11 #29: {pass: true, score: 0.1} with threshold 0.5 passes from JavaScript, fails from Python', async () => {
    const js = await only(
      fixedOutput(
        'x',
        `      - type: javascript\n        value: "({pass: true, score: 0.1, reason: 'r'})"\n        threshold: 0.5`,
      ),
    );
    assert.equal(js.status, 'pass');
    const py = await only(
      fixedOutput(
        'x',
        "      - type: python\n        value: \"{'pass': True, 'score': 0.1, 'reason': 'r'}\"\n        threshold: 0.5",
      ),
    );
    assert.equal(py.status, 'fail');
  });

  it('§11 #30: not-javascript returning {pass: true, score: 0.9} fails with score 0.9', async () => {
    const r = await only(
      fixedOutput(
        'x',
        `      - type: not-javascript\n        value: "({pass: true, score: 0.9, reason: 'r'})"`,
      ),
    );
    assert.deepEqual([r.status, r.score], ['fail', 0.9]);
  });

  it('§11 #34: select-best over 2 prompts, grader answers 1 → prompt 2 passes, prompt 1 fails with score 0', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['First: {{q}}', 'Second: {{q}}']
providers: [echo]
tests:
  - vars: {q: hi}
    assert:
      - type: contains
        value: hi
      - type: select-best
        value: the more ordinal answer
        provider:
          id: openai:chat:judge
          config: {apiBaseUrl: "${mock.baseUrl}"}
        rubricPrompt: 'Choose among {{ outputs | length }} outputs: {{ criteria }}'
`,
    );
    assert.deepEqual(
      results.map((r) => [r.output, r.status, r.score]),
      [
        ['First: hi', 'fail', 0],
        ['Second: hi', 'pass', 1],
      ],
    );
    assert.equal(results[0].reason, 'Output not selected: the more ordinal answer');
    assert.deepEqual(
      results[1].verdicts.map((v) => [v.type, v.pass]),
      [
        ['contains', true],
        ['select-best', true],
      ],
    );
  });
});
