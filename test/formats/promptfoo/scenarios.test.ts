// promptfoo `scenarios` (§1.7): data entries crossed with tests, merged as promptfoo's evaluator does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorsOf, loadText } from './helpers.js';

const HEAD = 'prompts: ["{{q}} {{lang}}"]\nproviders: [echo]\n';

describe('scenarios (§1.7)', () => {
  it('crosses every data entry with every test, after the ordinary tests, in order', async () => {
    const suite = await loadText(`${HEAD}tests:
  - vars: {q: plain, lang: none}
scenarios:
  - config:
      - vars: {lang: fr}
      - vars: {lang: de}
    tests:
      - vars: {q: hello}
      - vars: {q: bye}
  - config:
      - vars: {lang: es}
`);
    assert.deepEqual(
      suite.cases.map((c) => `${c.vars.q}/${c.vars.lang}`),
      ['plain/none', 'hello/fr', 'bye/fr', 'hello/de', 'bye/de', 'undefined/es'],
    );
  });

  it('merges fields: the test wins, vars and metadata merge, assertions are the data’s then the test’s', async () => {
    const suite = await loadText(`${HEAD}defaultTest:
  vars: {lang: default, extra: d}
  metadata: {suite: s}
  assert: [{type: contains, value: DEFAULT}]
  options: {prefix: 'D: '}
scenarios:
  - description: greetings
    config:
      - description: French
        vars: {lang: fr}
        metadata: {data: one}
        threshold: 0.5
        assert: [{type: contains, value: DATA}]
        options: {suffix: ' (data options are dropped)'}
    tests:
      - vars: {q: hello}
        metadata: {test: two}
        assert: [{type: contains, value: TEST}]
      - description: own
        vars: {q: bye, lang: it}
        threshold: 0.75
        options: {prefix: 'T: '}
`);
    const [first, second] = suite.cases;
    assert.equal(first.description, 'French');
    assert.deepEqual(first.vars, { lang: 'fr', extra: 'd', q: 'hello' });
    assert.deepEqual(
      first.asserts.map((a) => a.value),
      ['DEFAULT', 'DATA', 'TEST'],
    );
    assert.deepEqual(first.metadata, {
      suite: 's',
      data: 'one',
      test: 'two',
      conversationId: '__scenario_0__',
    });
    assert.equal(first.scoring?.threshold, 0.5);
    assert.deepEqual(first.preparation?.options, { prefix: 'D: ' });

    assert.equal(second.description, 'own');
    assert.deepEqual(second.vars, { lang: 'it', extra: 'd', q: 'bye' });
    assert.equal(second.scoring?.threshold, 0.75);
    assert.deepEqual(second.preparation?.options, { prefix: 'T: ' });
    assert.deepEqual(
      second.asserts.map((a) => a.value),
      ['DEFAULT', 'DATA'],
    );
    assert.ok(
      suite.warnings.some((w) => w.message.startsWith('`options` in scenarios[0].config[0] are ignored')),
      'a warning that the data options are dropped',
    );
  });

  it('numbers conversation ids per (scenario, data) pair and keeps one the user set', async () => {
    const suite = await loadText(`${HEAD}scenarios:
  - config: [{vars: {lang: a}}, {vars: {lang: b}, metadata: {conversationId: mine}}]
    tests: [{vars: {q: x}}, {vars: {q: y}}]
  - config: [{vars: {lang: c}}]
    tests: [{vars: {q: z}}]
`);
    assert.deepEqual(
      suite.cases.map((c) => c.metadata.conversationId),
      ['__scenario_0__', '__scenario_0__', 'mine', 'mine', '__scenario_2__'],
    );
  });

  it('reads scenarios, their config and their tests from files', async () => {
    const suite = await loadText(`${HEAD}scenarios:\n  - file://scenario.yaml\n`, {
      'scenario.yaml': 'config: file://data.yaml\ntests: file://tests.json\n',
      'data.yaml': '- vars: {lang: fr}\n- vars: {lang: de}\n',
      'tests.json': '[{"vars": {"q": "hi"}}]',
    });
    assert.deepEqual(
      suite.cases.map((c) => `${c.vars.q}/${c.vars.lang}`),
      ['hi/fr', 'hi/de'],
    );
    assert.ok(suite.source.files?.includes('data.yaml'));
  });

  it('runs no placeholder test when only scenarios are given, and expands list vars', async () => {
    const suite = await loadText(`${HEAD}scenarios:
  - config: [{vars: {lang: [en, fr]}}]
    tests: [{vars: {q: hi}}]
`);
    assert.deepEqual(
      suite.cases.map((c) => `${c.vars.q}/${c.vars.lang}`),
      ['hi/en', 'hi/fr'],
    );
  });

  it('checks scenario assertions and references with positioned errors', async () => {
    const diags = await errorsOf(`${HEAD}scenarios:
  - config:
      - vars: {lang: fr}
        assert: [{value: no-type}]
    tests:
      - providers: [nope]
  - tests: []
  - 42
`);
    assert.deepEqual(
      diags.map((d) => `${d.line} ${d.message.split('\n')[0]}`),
      [
        `6 Invalid assertion at scenarios[0].config[0].assert[0]: missing required 'type' property (received {"value":"no-type"})`,
        '9 scenarios[1] needs a `config` list (the data each of its tests runs with)',
        '10 scenarios[2] must be a mapping with `config` and `tests`, got 42',
        '8 scenarios[0].config[0].tests[0] references provider "nope" which does not exist. Available providers: echo',
      ],
    );
  });
});
