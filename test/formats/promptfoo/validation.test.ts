// Mistakes the loader reports before anything runs (exit 2, file:line:col), where a run would
// otherwise turn them into an error per job or, worse, a green run that checked nothing.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { Diagnostic } from '../../../src/core/types.js';
import { printable } from '../../../src/formats/promptfoo/context.js';
import { errorsOf, loadErrors, loadText, writeSuite } from './helpers.js';

const at = (diags: Diagnostic[]): string[] => diags.map((d) => `${d.line ?? ''}:${d.col ?? ''} ${d.message}`);

const withAsserts = (asserts: string, extra = '') =>
  errorsOf(`prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one, expected: one}
    assert:
${asserts}${extra}`);

describe('assertion values checked at load', () => {
  it('rejects an empty or missing needle, positioned at the assertion', async () => {
    const diags = await withAsserts(`      - type: contains
        value: ""
      - type: not-icontains
      - type: starts-with
        value: ''
      - type: regex
      - type: equals
      - type: contains-any
        value: []
      - type: icontains-all
`);
    assert.deepEqual(at(diags), [
      '6:9 tests[0].assert[0]: contains needs a non-empty value, got an empty string',
      '8:9 tests[0].assert[1]: not-icontains needs a non-empty value, got no value',
      '9:9 tests[0].assert[2]: starts-with needs a non-empty value, got an empty string',
      '11:9 tests[0].assert[3]: regex needs a non-empty value, got no value',
      '12:9 tests[0].assert[4]: equals needs a value, got no value',
      '13:9 tests[0].assert[5]: contains-any needs a non-empty list, got an empty list',
      '15:9 tests[0].assert[6]: icontains-all needs a non-empty value, got no value',
    ]);
  });

  it('leaves a templated value to run time, and accepts equals ""', async () => {
    const suite = await loadText(`prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one, expected: one, list: "a, b"}
    assert:
      - type: contains
        value: '{{expected}}'
      - type: contains-any
        value: '{{list}}'
      - type: not-equals
        value: ""
`);
    assert.equal(suite.cases[0].asserts.length, 3);
  });

  it('reports an empty __expected cell value in a CSV row at its line', async () => {
    const diags = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n', {
      't.csv': 'q,__expected\nfine,contains:one\nbad,contains:\n',
    });
    assert.deepEqual(
      diags.map((d) => `${d.file.split('/').pop()}:${d.line} ${d.message}`),
      ['t.csv:3 tests[1].assert[0]: contains needs a non-empty value, got an empty string'],
    );
  });

  it('compiles a literal JSON schema: an invalid one is a load error', async () => {
    const diags = await withAsserts(`      - type: is-json
        value: {type: objekt}
      - type: contains-json
        value:
          type: object
          properties: {a: {type: strng}}
`);
    assert.equal(diags.length, 2);
    assert.match(diags[0].message, /^tests\[0\]\.assert\[0\]: is-json: Invalid JSON schema: .*data\/type/);
    assert.equal(`${diags[0].line}:${diags[0].col}`, '6:9');
    assert.match(diags[1].message, /^tests\[0\]\.assert\[1\]: contains-json: Invalid JSON schema/);
  });

  it('checks weights and thresholds', async () => {
    const diags = await withAsserts(`      - type: contains
        value: one
        weight: -1
      - type: contains
        value: one
        threshold: -0.5
      - type: contains
        value: one
        threshold: .nan
      - type: contains
        value: one
        weight: .inf
`);
    assert.deepEqual(at(diags), [
      '8:17 assertion `weight` must not be negative, got -1',
      '14:20 assertion `threshold` must be a finite number, got .nan',
      '17:17 assertion `weight` must be a finite number, got .inf',
    ]);
    // An assertion threshold has no upper bound: it may be milliseconds (latency) or dollars.
    const ok = await loadText(`prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    threshold: 1
    assert:
      - type: contains
        value: one
        threshold: 250
`);
    assert.equal(ok.cases[0].asserts[0].threshold, 250);
  });

  // promptfoo 0.123.1 runs a test threshold outside [0, 1] (recorded: -1 passes a failed test).
  it('warns about a test threshold outside [0, 1] (in a test, the defaultTest and a CSV __threshold) and runs it', async () => {
    const suite = await loadText(
      `prompts: ["{{q}}"]
providers: [echo]
defaultTest:
  threshold: -0.1
tests:
  - vars: {q: one}
    threshold: 1.5
  - vars: {q: two}
  - file://t.csv
`,
      { 't.csv': 'q,__threshold\nthree,2\n' },
    );
    assert.deepEqual(
      suite.cases.map((c) => c.scoring?.threshold),
      [1.5, -0.1, 2],
    );
    assert.deepEqual(
      suite.warnings.map((d) => `${d.file.split('/').pop()}:${d.line} ${d.message}`),
      [
        'promptfooconfig.yaml:4 `threshold` -0.1 is outside [0, 1], the range of scores: the test always passes',
        'promptfooconfig.yaml:7 `threshold` 1.5 is outside [0, 1], the range of scores: the test can never pass',
        't.csv:2 `threshold` 2 is outside [0, 1], the range of scores: the test can never pass',
      ],
    );
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: two}
    threshold: .inf
`);
    assert.deepEqual(
      diags.map((d) => `${d.line} ${d.message}`),
      ['5 `threshold` must be a finite number, got .inf'],
    );
  });
});

describe('templates compiled at load', () => {
  it('reports syntax errors and unknown filters in prompts, chat prompt leaves, prefix/suffix, values and metrics', async () => {
    const diags = await errorsOf(
      `prompts:
  - "Say {{ q | uper }}"
  - "Ask {% if q %}{{ q }}"
  - file://chat.json
  - "A literal {{ left open is kept as text"
providers: [echo]
tests:
  - vars: {q: one}
    options:
      prefix: "{{ q | nope }}: "
      suffix: "{% endif %}"
    assert:
      - type: contains
        value: "{{ q | bogus }}"
      - type: contains-any
        value: [ok, "{{ q }"]
      - type: contains
        value: one
        metric: "{{ q | upper }"
`,
      { 'chat.json': '[{"role": "user", "content": "{{ q | shout }}"}]' },
    );
    assert.deepEqual(at(diags), [
      '2:5 prompt "Say {{ q | uper }}": template error: unknown filter "uper"',
      '3:5 prompt "Ask {% if q %}{{ q }}": template error: parseIf: expected elif, else, or endif, got end of file',
      '4:5 prompt "chat.json: [{\\"role\\":\\"user\\",\\"content\\":\\"{{ q | shout }}\\"}]": template error: unknown filter "shout"',
      '14:16 tests[0].assert[0].value: template error: unknown filter "bogus"',
      '16:21 tests[0].assert[1].value[1]: template error: [Line 1, Column 6] expected variable end',
      '19:17 tests[0].assert[2].metric: template error: [Line 1, Column 14] expected variable end',
      '10:15 `options.prefix`: template error: unknown filter "nope"',
      '11:15 `options.suffix`: template error: [Line 1, Column 4] unknown block tag: endif',
    ]);
  });
});

describe('likely typos are errors, other unknown fields warnings', () => {
  it('in tests, assertions and providers, with a did-you-mean', async () => {
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers:
  - id: echo
    lable: mine
tests:
  - vars: {q: one}
    asserts:
      - type: contains
        value: one
  - vars: {q: two}
    assert:
      - type: contains
        vaule: two
      - type: contains
        value: two
        wieght: 2
`);
    assert.deepEqual(at(diags), [
      '4:5 unknown provider field "lable" (did you mean "label"?)',
      '7:5 unknown test field "asserts" (did you mean "assert"?)',
      '13:9 tests[1].assert[0]: unknown assertion field "vaule" (did you mean "value"?)',
      '16:9 tests[1].assert[1]: unknown assertion field "wieght" (did you mean "weight"?)',
    ]);
  });

  it('keeps legitimate promptfoo fields and warns about unrelated ones', async () => {
    const suite = await loadText(`prompts: ["{{q}}"]
providers:
  - id: echo
    label: mine
    owner: qa
tests:
  - description: d
    vars: {q: one}
    metadata: {m: 1}
    threshold: 0.5
    providers: [mine]
    prompts: ["{{q}}"]
    options: {prefix: "", provider: echo}
    team: search
    assert:
      - type: equals
        value: one
        normalizeUnicode: true
        rubricPrompt: unused
        config: {x: 1}
        owner: qa
`);
    assert.deepEqual(
      suite.warnings.map((w) => w.message),
      [
        'unknown provider field "owner" ignored',
        'unknown test field "team" is ignored',
        'tests[0].assert[0]: unknown assertion field "owner" is ignored',
      ],
    );
  });

  it('suggests a provider id close to an unknown one', async () => {
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers: [ehco, "opnai:gpt-4o", "openai:chta:gpt-4o", "sagemaker:my-endpoint"]
tests:
  - vars: {q: one}
`);
    assert.deepEqual(
      diags.map((d) => d.message.replace(/; assay supports: .*$/, '')),
      [
        'unknown provider "ehco" (did you mean "echo"?)',
        'unknown provider "opnai:gpt-4o" (did you mean "openai:gpt-4o"?)',
        'unknown provider "openai:chta:gpt-4o" (did you mean "openai:chat:gpt-4o"?)',
        'unknown provider "sagemaker:my-endpoint"',
      ],
    );
  });

  it('names a key that looks like `type` when the type is missing', async () => {
    const diags = await withAsserts('      - tpye: contains\n        value: one\n');
    assert.deepEqual(at(diags), [
      `6:9 Invalid assertion at tests[0].assert[0]: missing required 'type' property (found "tpye": did you mean "type"?)`,
    ]);
  });
});

describe('provider endpoint checked at load', () => {
  it('reports an apiBaseUrl that is not http(s), or a bad apiHost, where it was written', async () => {
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers:
  - id: openai:chat:gpt-4o-mini
    config: {apiBaseUrl: "localhost:8000/v1"}
  - id: openai:chat:gpt-4o
    config: {apiHost: "bad host"}
tests:
  - vars: {q: one}
`);
    assert.deepEqual(at(diags), [
      '4:26 provider `config.apiBaseUrl` must be an http(s) URL, got "localhost:8000/v1"',
      '6:23 provider `config.apiHost` must be a host name, got "bad host"',
    ]);
    // An unset variable is a warning (validation may run without it); empty means "not set".
    const suite = await loadText(`prompts: ["{{q}}"]
providers:
  - id: openai:chat:gpt-4o-mini
    config: {apiBaseUrl: "{{ env.ASSAY_UNSET_BASE_URL }}"}
  - id: openai:chat:gpt-4o
    config: {apiHost: "", apiBaseUrl: "http://127.0.0.1:8000/v1"}
tests:
  - vars: {q: one}
`);
    assert.deepEqual(at(suite.warnings), [
      '4:26 provider `config.apiBaseUrl` is "{{ env.ASSAY_UNSET_BASE_URL }}": its variable is not set here',
    ]);
  });
});

describe('empty test sources', () => {
  const files = {
    'empty.csv': '',
    'header.csv': 'q,__expected\n',
    'none.json': '[]',
    'blank.jsonl': '\n\n',
    'nothing.yaml': '# no tests yet\n',
  };

  it('warns about each empty file, and refuses a `tests` whose every source is empty', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `prompts: ["{{q}}"]
providers: [echo]
tests:
  - file://empty.csv
  - file://header.csv
  - file://none.json
  - file://blank.jsonl
  - file://nothing.yaml
`,
      ...files,
    });
    const diags = await loadErrors(path);
    assert.deepEqual(at(diags), ['3:1 no test cases: every source in `tests` is empty']);
    const withOne = await loadText(
      `prompts: ["{{q}}"]
providers: [echo]
tests:
  - file://header.csv
  - file://blank.jsonl
  - vars: {q: one}
`,
      files,
    );
    assert.equal(withOne.cases.length, 1);
    assert.deepEqual(at(withOne.warnings), [
      '4:5 no test cases in header.csv',
      '5:5 no test cases in blank.jsonl',
    ]);
  });

  it('refuses an empty list or an empty standalone file, and keeps the one empty test when tests is absent', async () => {
    assert.deepEqual(at(await errorsOf('prompts: ["hi"]\nproviders: [echo]\ntests: []\n')), [
      '3:1 no test cases: every source in `tests` is empty',
    ]);
    assert.deepEqual(
      at(await errorsOf('prompts: ["hi"]\nproviders: [echo]\ntests: file://header.csv\n', files)),
      ['3:1 no test cases: every source in `tests` is empty'],
    );
    const suite = await loadText('prompts: ["hi"]\nproviders: [echo]\n');
    assert.equal(suite.cases.length, 1);
  });

  it('does not add "no test cases" to a source that failed for another reason', async () => {
    const diags = await errorsOf('prompts: ["hi"]\nproviders: [echo]\ntests: file://missing.csv\n');
    assert.deepEqual(
      diags.map((d) => d.message),
      ['test file missing.csv: file not found'],
    );
  });
});

describe('YAML merge keys (<<: *base), as js-yaml reads them', () => {
  it('work in the config, test files, defaultTest files and provider files', async () => {
    const suite = await loadText(
      `prompts: ["{{q}} {{r}}"]
providers: [file://providers.yaml]
defaultTest: file://default.yaml
base: &base
  vars: {q: one, r: base}
tests:
  - <<: *base
    assert: [{type: contains, value: one}]
  - file://more.yaml
`,
      {
        'providers.yaml': 'common: &c {temperature: 0}\nid: echo\nconfig:\n  <<: *c\n  seed: 1\n',
        'default.yaml': 'm: &m {owner: qa}\nmetadata:\n  <<: *m\n',
        'more.yaml': '- &t\n  vars: {q: two, r: x}\n- <<: *t\n  description: merged\n',
      },
    );
    assert.deepEqual(
      suite.cases.map((c) => c.vars),
      [
        { q: 'one', r: 'base' },
        { q: 'two', r: 'x' },
        { q: 'two', r: 'x' },
      ],
    );
    assert.equal(suite.cases[2].description, 'merged');
    assert.deepEqual(suite.cases[0].metadata, { owner: 'qa' });
    assert.deepEqual(suite.providers[0].config, { temperature: 0, seed: 1 });
  });
});

describe('messages', () => {
  it('positions an unresolved alias, with no follow-up error', async () => {
    const diags = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: *nope\n');
    assert.deepEqual(at(diags), [
      '4:11 invalid YAML: unresolved alias *nope (no anchor &nope is set before it)',
    ]);
    const inTests = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.yaml\n', {
      't.yaml': '- vars: {q: 1}\n  assert: *gone\n',
    });
    assert.deepEqual(at(inTests), [
      '2:11 invalid YAML: unresolved alias *gone (no anchor &gone is set before it)',
    ]);
  });

  it('names the right line of a JSONL file', async () => {
    const diags = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.jsonl\n', {
      't.jsonl': '{"vars": {"q": 1}}\n\n[1, 2]\n"text"\n{"vars": {"q": }\n',
    });
    assert.deepEqual(
      diags.map((d) => `${d.line}:${d.col ?? ''} ${d.message.replace(/ in \S+ must/, ' must')}`),
      [
        '3: the test case on line 3 of t.jsonl must be an object, got [1,2]',
        '4: the test case on line 4 of t.jsonl must be an object, got "text"',
        `5:16 invalid JSON: Unexpected token '}', "{"vars": {"q": }" is not valid JSON`,
      ].map((line) => line.replace(/ of t\.jsonl/, ` of ${diags[0].file}`)),
    );
  });

  it('reports a broken .json config as invalid JSON, positioned', async () => {
    const path = writeSuite({ 'promptfooconfig.yaml': '' });
    const json = join(dirname(path), 'promptfooconfig.json');
    writeFileSync(json, '{\n  "prompts": ["hi"],\n  "providers": ["echo"],\n}\n');
    const diags = await loadErrors(json);
    assert.equal(diags.length, 1);
    assert.match(diags[0].message, /^invalid JSON: /);
    assert.equal(diags[0].line, 4);
  });

  it('says vars must be a mapping (or file:// paths) for a list of plain strings', async () => {
    const diags = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: [a, b]\n');
    assert.deepEqual(at(diags), ['4:11 `vars` must be a mapping (or file:// paths), got ["a","b"]']);
  });

  it('gives a $ref that points at nothing one error, without a "missing type" hint', async () => {
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers: [echo]
templates:
  has-one: {type: contains, value: one}
tests:
  - vars: {q: one}
    assert:
      - $ref: '#/templates/has-two'
`);
    assert.deepEqual(at(diags), [
      '8:15 $ref "#/templates/has-two" points at nothing: there is no /templates/has-two',
    ]);
    // The same in a test file, and for whole sections: one error each, no cascade.
    const more = await errorsOf(
      `prompts: ["{{q}}"]
providers: {$ref: '#/nope'}
p: [echo]
tests:
  - file://t.yaml
`,
      { 't.yaml': "- $ref: '#/x'\n- vars: {q: one}\n  assert: {$ref: '#/y'}\n" },
    );
    assert.deepEqual(
      more.map((d) => `${d.file.split('/').pop()}:${d.line}:${d.col}`),
      ['promptfooconfig.yaml:2:19', 't.yaml:1:9', 't.yaml:3:18'],
    );
  });

  it('escapes control characters quoted from a binary file', async () => {
    const bytes = Buffer.from([0x00, 0x01, 0x1b, 0x5b, 0x32, 0x4a, 0x07, 0xff, 0xfe, 0x9b]);
    const path = writeSuite({
      'promptfooconfig.yaml':
        'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - file://t.json\n  - file://t.yaml\n',
    });
    writeFileSync(join(dirname(path), 't.json'), bytes);
    writeFileSync(join(dirname(path), 't.yaml'), bytes);
    const diags = await loadErrors(path);
    assert.ok(diags.length >= 2);
    for (const d of diags) {
      assert.doesNotMatch(d.message, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
    assert.match(diags[0].message, /^invalid JSON: .*\\x00\\x01\\x1b\[2J\\x07/);
  });

  it('elides an excerpt that is mostly unprintable', () => {
    assert.equal(printable('tab\there\nnext'), 'tab\\there\nnext');
    assert.equal(
      printable(`got "${'\u0000'.repeat(20)}" in x.bin`),
      'got "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00… (binary content elided)',
    );
  });
});
