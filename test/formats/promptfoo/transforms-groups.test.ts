// Transforms, per-test providers, assert-sets and cross-row groups through the promptfoo loader,
// the engine and the run log (resume and shards included).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../../src/core/errors.js';
import type { JobResult } from '../../../src/core/types.js';
import { evaluate } from '../../../src/evaluate.js';
import { closePythonWorker } from '../../../src/scorers/code/index.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { tempDir } from '../../support/tmp.js';
import { readResults, runConfig } from './run-config.js';

const tmp = tempDir('assay-pf-transforms-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: '^Choose among', reply: '0' },
      { match: '^capital', reply: '  Paris  ' },
    ],
  });
});
after(async () => {
  await mock.close();
  await closePythonWorker();
  tmp.cleanup();
});

describe('output transforms (§2.1 step 9, §5.1)', () => {
  it('applies the provider transform, then the test transform, then the assertion transform', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['hello {{name}}']
providers:
  - id: echo
    transform: output + '|p'
tests:
  - vars: {name: Ada}
    options:
      transform: output + '|t:' + context.vars.name + ':' + context.prompt.raw.split(' ')[0]
    assert:
      - type: equals
        value: 'hello Ada|p|t:Ada:hello'
      - type: equals
        value: 'HELLO ADA|P|T:ADA:HELLO'
        transform: output.toUpperCase()
`,
    );
    assert.equal(results[0].status, 'pass', results[0].reason);
    // The run log keeps the output as the test's transforms left it (what the assertions saw first).
    assert.equal(results[0].output, 'hello Ada|p|t:Ada:hello');
  });

  it('takes defaultTest.options.transform; postprocess is its legacy name; files run too', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['{{q}}']
providers: [echo]
defaultTest:
  options:
    transform: file://t.mjs:twice
tests:
  - vars: {q: ab}
    assert: [{type: equals, value: abab}]
  - vars: {q: cd}
    options: {postprocess: output.toUpperCase()}
    assert: [{type: equals, value: CDCD}]
  - vars: {q: ef}
    options: {transform: file://t.py}
    assert: [{type: equals, value: '[ef]'}]
`,
      {
        files: {
          't.mjs': 'export function twice(output) { return output + output; }\n',
          't.py': 'def get_transform(output, context):\n    return "[" + output + "]"\n',
        },
      },
    );
    // options merge key by key: the default transform stays beside the test's postprocess, and wins.
    assert.deepEqual(
      results.map((r) => [r.output, r.status]),
      [
        ['abab', 'pass'],
        ['cdcd', 'fail'],
        ['[ef]', 'pass'],
      ],
    );
  });

  it('a transform that throws or returns nothing makes the job an error with its message', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: 'not json'}
    options: {transform: JSON.parse(output)}
    assert: [{type: is-json}]
  - vars: {q: x}
    assert: [{type: equals, value: x, transform: 'undefined'}]
`,
    );
    assert.equal(results[0].status, 'error');
    assert.match(results[0].error ?? '', /^Transform failed \(JSON\.parse\(output\)\): SyntaxError/);
    assert.equal(results[0].output, 'not json');
    assert.equal(results[1].status, 'error');
    assert.equal(results[1].error, 'Transform function did not return a value (undefined)');
  });

  it('refuses at load time a transform that does not compile or names a missing file', async () => {
    await assert.rejects(
      runConfig(
        tmp.dir,
        `prompts: [x]
providers: [echo]
tests:
  - options: {transform: 'output.('}
    assert: [{type: equals, value: x, transform: file://missing.js}]
`,
      ),
      (err: Error) =>
        err instanceof InputError &&
        /options\.transform: transform does not compile/.test(err.message) &&
        /transform file missing\.js/.test(err.message),
    );
  });
});

describe('per-test provider (§1.5)', () => {
  it('answers the test in place of the provider under test; the row keeps its column', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['capital of {{country}}']
providers: [echo]
tests:
  - vars: {country: France}
    provider:
      id: openai:chat:m
      config: {apiBaseUrl: "${mock.baseUrl}"}
    options: {transform: output.trim()}
    assert: [{type: equals, value: Paris}]
  - vars: {country: Spain}
    assert: [{type: equals, value: capital of Spain}]
`,
    );
    assert.deepEqual(
      results.map((r) => [r.providerId, r.output, r.status]),
      [
        ['echo', 'Paris', 'pass'],
        ['echo', 'capital of Spain', 'pass'],
      ],
    );
  });
});

describe('assert-set through the loader (§5.6)', () => {
  it('scores the set as one assertion with its threshold, weight and metric', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['the cat sat']
providers: [echo]
tests:
  - assert:
      - type: assert-set
        threshold: 0.5
        metric: style
        assert:
          - type: contains
            value: cat
          - type: contains
            value: dog
      - type: contains
        value: sat
`,
    );
    assert.equal(results[0].status, 'pass');
    assert.equal(results[0].score, 0.75);
    assert.deepEqual(results[0].namedScores, { style: 0.5 });
    assert.deepEqual(
      results[0].verdicts[0].children?.map((v) => v.pass),
      [true, false],
    );
  });

  it('refuses a set inside a set, and a set without an assert list', async () => {
    await assert.rejects(
      runConfig(
        tmp.dir,
        `prompts: [x]
providers: [echo]
tests:
  - assert:
      - type: assert-set
        assert:
          - type: assert-set
            assert: [{type: equals, value: x}]
      - type: assert-set
`,
      ),
      (err: Error) =>
        /assert-set must not have child assert-sets/.test(err.message) &&
        /tests\[0\]\.assert\[1\]: assert-set must have an `assert` property/.test(err.message),
    );
  });
});

describe('cross-row groups in the run log', () => {
  const config = (baseUrl: string) => `prompts: ['A {{q}}', 'B {{q}}']
providers: [echo]
defaultTest:
  options:
    provider:
      id: openai:chat:judge
      config: {apiBaseUrl: "${baseUrl}"}
    rubricPrompt: 'Choose among {{ outputs | length }}: {{ criteria }}'
tests:
  - vars: {q: one}
    assert: [{type: select-best, value: best}]
  - vars: {q: two}
    assert: [{type: max-score}, {type: contains, value: B}]
  - vars: {q: three}
    assert: [{type: contains, value: three}]
`;

  it('judges each group whole, with several trials', async () => {
    const { results } = await runConfig(tmp.dir, config(mock.baseUrl), { options: { repeat: 2 } });
    const summary = results.map((r) => `${r.caseIndex}.${r.trial} ${r.output} ${r.status}`);
    assert.deepEqual(summary, [
      '0.0 A one pass',
      '0.0 B one fail',
      '0.1 A one pass',
      '0.1 B one fail',
      '1.0 A two fail',
      '1.0 B two pass',
      '1.1 A two fail',
      '1.1 B two pass',
      '2.0 A three pass',
      '2.0 B three pass',
      '2.1 A three pass',
      '2.1 B three pass',
    ]);
  });

  it('shards keep groups whole, and the shards together give the unsharded verdicts', async () => {
    const dir = join(tmp.dir, 'sharded');
    const { run: whole } = await runConfig(dir, config(mock.baseUrl));
    const all: JobResult[] = [];
    for (let index = 0; index < 3; index++) {
      const run = await evaluate({
        suitePath: whole.suite.source.path,
        runsDir: join(dir, `runs-${index}`),
        cache: false,
        shard: { index, count: 3 },
        env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'k' },
      });
      all.push(...readResults(run.runDir, run));
    }
    const key = (r: JobResult) => `${r.key} ${r.status} ${r.score}`;
    assert.deepEqual(all.map(key).sort(), readResults(whole.runDir, whole).map(key).sort());
  });

  it('a resume runs a group again whole when only part of it is in the log', async () => {
    const { run } = await runConfig(tmp.dir, config(mock.baseUrl));
    const path = join(run.runDir, 'results.jsonl');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as JobResult);
    // Keep one row of the select-best group (case 0) and every other row.
    const firstOfCase0 = parsed.findIndex((r) => r.caseIndex === 0);
    const kept = lines.filter((_, i) => parsed[i].caseIndex !== 0 || i === firstOfCase0);
    writeFileSync(path, `${kept.join('\n')}\n`);
    const resumed = await evaluate({
      suitePath: run.suite.source.path,
      resume: run.runDir,
      cache: false,
      env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'k' },
    });
    assert.equal(resumed.resumedJobs, 4, 'the lone row of the partial group was dropped');
    const after = readResults(resumed.runDir, resumed);
    assert.deepEqual(
      after.map((r) => `${r.caseIndex} ${r.output} ${r.status}`),
      ['0 A one pass', '0 B one fail', '1 A two fail', '1 B two pass', '2 A three pass', '2 B three pass'],
    );
  });

  it('refuses select-best without a grader before running anything', async () => {
    // With no key in the environment: with one, promptfoo (and assay) would choose a default grader.
    await assert.rejects(
      runConfig(
        tmp.dir,
        `prompts: [a, b]\nproviders: [echo]\ntests:\n  - assert: [{type: select-best, value: x}]\n`,
        { env: { OPENAI_API_KEY: '' } },
      ),
      /select-best needs a grader model and none is configured/,
    );
  });
});
