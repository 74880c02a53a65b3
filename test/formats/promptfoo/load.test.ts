import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { shortHash } from '../../../src/core/hash.js';
import { fixture } from '../../support/paths.js';
import { errorsOf, loadFixture, loadText, plain } from './helpers.js';

describe('loadPromptfooSuite: the suite', () => {
  it('describes the suite and its sources', async () => {
    const suite = await loadFixture('basic');
    const dir = fixture('promptfoo', 'basic');
    assert.equal(suite.format, 'promptfoo');
    assert.equal(suite.name, 'Basic suite');
    assert.equal(suite.basePath, dir);
    assert.equal(suite.source.path, `${dir}/promptfooconfig.yaml`);
    assert.deepEqual(suite.source.files, ['promptfooconfig.yaml', 'prompts/chat.json']);
    const hash = createHash('sha256');
    for (const f of suite.source.files) {
      hash.update(f);
      hash.update('\u0000');
      hash.update(readFileSync(`${dir}/${f}`));
      hash.update('\u0000');
    }
    assert.equal(suite.source.contentHash, hash.digest('hex'));
    assert.equal(suite.id, shortHash(suite.source.contentHash));
    assert.deepEqual(suite.scoring, {});
    assert.deepEqual(suite.warnings, []);
  });

  it('is deterministic', async () => {
    const a = await loadFixture('basic');
    const b = await loadFixture('basic');
    assert.deepEqual(a, b);
  });

  it('names a suite without description after its file', async () => {
    const suite = await loadFixture('providers');
    assert.equal(suite.name, 'promptfooconfig.yaml');
  });

  it('renders {{ env.NAME }} at load from the env block and the environment, leaving other templates', async () => {
    const suite = await loadFixture('basic');
    assert.deepEqual(suite.env, { GREETING: 'Hello', MODEL: 'gpt-4o-mini' });
    assert.equal(suite.prompts[0].raw, 'Hello, {{name}}! Answer: {{question}}');
    const main = suite.providers.find((p) => p.label === 'main');
    assert.equal(main?.id, 'openai:gpt-4o-mini');
    // An unset variable stays a template, to be supplied at run time.
    assert.deepEqual(main?.config, { apiKey: '{{ env.ASSAY_UNSET_KEY }}' });
  });

  it('renders env templates with filters even when the variable is unset', async () => {
    const suite = await loadText(`
prompts: ["{{ env.NOPE_UNSET | default('fallback') }} {{q}}"]
providers: [echo]
tests:
  - vars: {q: x}
`);
    assert.equal(suite.prompts[0].raw, 'fallback {{q}}');
  });
});

describe('loadPromptfooSuite: defaultTest merge (§1.6)', () => {
  it('puts default assertions first, merges vars, options and metadata', async () => {
    const suite = await loadFixture('basic');
    const [capital, noDefaults] = suite.cases;
    assert.deepEqual(capital.vars, { name: 'World', question: 'What is the capital of France?' });
    assert.deepEqual(plain(capital.asserts), [
      { type: 'icontains', value: '{{name}}' },
      { type: 'contains', value: 'Paris', weight: 2, metric: 'accuracy' },
      { type: 'contains', value: 'London', negate: true },
    ]);
    assert.equal(capital.scoring?.threshold, 0.5);
    assert.deepEqual(capital.metadata, { topic: 'geo' });
    assert.deepEqual(capital.preparation?.options, {
      prefix: 'P: ',
      suffix: ' Thanks.',
      params: { temperature: 0.5 },
    });
    assert.equal(capital.description, 'capital');

    // §11 #15: disableDefaultAsserts drops the default assertions; an empty prefix falls back.
    assert.deepEqual(plain(noDefaults.asserts), [{ type: 'equals', value: '4' }]);
    assert.deepEqual(noDefaults.vars, { name: 'Ada', question: '2+2?' });
    assert.deepEqual(noDefaults.preparation?.options, { prefix: 'P: ', params: { temperature: 0.5 } });
    assert.deepEqual(noDefaults.only, { providers: ['echo'], prompts: ['Concise'] });
  });

  it('takes threshold, providers and prompts from the test when set, else from defaultTest', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers: [echo, openai:gpt-4o]
defaultTest:
  threshold: 0.7
  providers: [echo]
  metadata: {team: a, level: 1}
tests:
  - vars: {q: one}
  - vars: {q: two}
    threshold: 0.2
    providers: [openai]
    metadata: {level: 2}
`);
    const [one, two] = suite.cases;
    assert.equal(one.scoring?.threshold, 0.7);
    assert.deepEqual(one.only, { providers: ['echo'] });
    assert.deepEqual(one.metadata, { team: 'a', level: 1 });
    assert.equal(two.scoring?.threshold, 0.2);
    assert.deepEqual(two.only, { providers: ['openai'] });
    assert.deepEqual(two.metadata, { team: 'a', level: 2 });
  });

  it('reads defaultTest from a file', async () => {
    const suite = await loadText(
      `
prompts: ["{{q}}"]
providers: [echo]
defaultTest: file://default.yaml
tests:
  - vars: {q: one}
`,
      { 'default.yaml': 'vars: {lang: en}\nassert:\n  - type: contains\n    value: one\n' },
    );
    assert.deepEqual(suite.cases[0].vars, { lang: 'en', q: 'one' });
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'contains', value: 'one' }]);
    assert.deepEqual(suite.source.files, ['promptfooconfig.yaml', 'default.yaml']);
  });

  it('uses top-level metadata as default metadata only when defaultTest has none (§1.1)', async () => {
    const base = `
prompts: ["{{q}}"]
providers: [echo]
metadata: {suite: top}
tests:
  - vars: {q: one}
    metadata: {own: 1}
`;
    const withoutDefault = await loadText(base);
    assert.deepEqual(withoutDefault.cases[0].metadata, { suite: 'top', own: 1 });
    const withDefault = await loadText(`${base}defaultTest:\n  metadata: {from: default}\n`);
    assert.deepEqual(withDefault.cases[0].metadata, { from: 'default', own: 1 });
  });

  it('runs one empty test (with the defaults) when there are no tests', async () => {
    const suite = await loadText(`
prompts: ["Say hi"]
providers: [echo]
defaultTest:
  assert:
    - type: contains
      value: hi
`);
    assert.equal(suite.cases.length, 1);
    assert.deepEqual(suite.cases[0].vars, {});
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'contains', value: 'hi' }]);
  });

  it('applies options.provider as the grader of its assertions, and defaultTest.options.provider as the suite grader', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers: [echo]
defaultTest:
  options:
    provider: openai:gpt-4o-mini
    rubricPrompt: Grade it
tests:
  - vars: {q: one}
    assert:
      - type: contains
        value: one
  - vars: {q: two}
    options:
      provider: {id: openai:gpt-4o, config: {temperature: 0}}
    assert:
      - type: contains
        value: two
      - type: contains
        value: t
        provider: echo
`);
    assert.equal(suite.grader?.id, 'openai:gpt-4o-mini');
    const [one, two] = suite.cases;
    assert.deepEqual(plain(one.asserts), [
      { type: 'contains', value: 'one', options: { rubricPrompt: 'Grade it' } },
    ]);
    assert.deepEqual(plain(two.asserts), [
      {
        type: 'contains',
        value: 'two',
        grader: { id: 'openai:gpt-4o', config: { temperature: 0 } },
        options: { rubricPrompt: 'Grade it' },
      },
      { type: 'contains', value: 't', grader: { id: 'echo' }, options: { rubricPrompt: 'Grade it' } },
    ]);
  });
});

describe('loadPromptfooSuite: assertions', () => {
  it('keeps value, threshold, weight, metric; extras and config go to options', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: not-equals
        value: {a: 1}
        threshold: 0.4
        weight: 0
        metric: m
        config: {k: v}
        normalizeUnicode: true
`);
    assert.deepEqual(plain(suite.cases[0].asserts), [
      {
        type: 'equals',
        negate: true,
        value: { a: 1 },
        threshold: 0.4,
        weight: 0,
        metric: 'm',
        options: { config: { k: 'v' }, normalizeUnicode: true },
      },
    ]);
  });

  it('loads file:// expected values (.txt trimmed, .json/.yaml parsed) into the suite', async () => {
    const suite = await loadText(
      `
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: contains
        value: file://expected.txt
      - type: is-json
        value: file://schema.yaml
      - type: contains-any
        value: [file://expected.txt, literal]
`,
      { 'expected.txt': '  hello \n', 'schema.yaml': 'type: object\n' },
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [
      { type: 'contains', value: 'hello' },
      { type: 'is-json', value: { type: 'object' } },
      { type: 'contains-any', value: ['hello', 'literal'] },
    ]);
    assert.deepEqual(suite.source.files, ['promptfooconfig.yaml', 'expected.txt', 'schema.yaml']);
  });

  it('reports a missing type with the YAML indentation hint (§11 #48)', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: contains
        value: x
      - value: foo
`);
    assert.equal(diags.length, 1);
    assert.match(
      diags[0].message,
      /Invalid assertion at tests\[0\]\.assert\[1\]: missing required 'type' property/,
    );
    assert.match(
      diags[0].message,
      /Hint: in YAML, keep all of an assertion's properties under the same list item/,
    );
    assert.equal(diags[0].line, 9);
    assert.equal(diags[0].col, 9);
  });

  it('names an unknown type and suggests the closest one, with or without not-', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: icontain
        value: a
      - type: not-regx
        value: a
      - type: totally-unknown
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'tests[0].assert[0]: unknown assertion type "icontain" (did you mean "icontains"?)',
        'tests[0].assert[1]: unknown assertion type "not-regx" (did you mean "not-regex"?)',
        'tests[0].assert[2]: unknown assertion type "totally-unknown"',
      ],
    );
  });

  it('says a promptfoo type assay lacks is unsupported, not unknown', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: moderation
        value: [harassment]
      - type: not-trace-span-count
        value: x
      - type: human
        value: best
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'tests[0].assert[0]: assertion type "moderation" needs a moderation API (OpenAI\'s /moderations or LlamaGuard on Replicate), which assay does not call',
        'tests[0].assert[1]: assertion type "not-trace-span-count" is a promptfoo type assay does not support yet',
        'tests[0].assert[2]: assertion type "human" is a promptfoo type assay does not support yet',
      ],
    );
  });

  it("reports the scorer's own validation, positioned", async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: contains
        value: true
`);
    assert.equal(diags.length, 1);
    assert.match(diags[0].message, /^tests\[0\]\.assert\[0\]: "contains" needs a string or number value/);
    assert.equal(diags[0].line, 7);
  });

  it('checks field types', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - type: contains
        value: a
        weight: heavy
        threshold: "0.5"
        metric: 3
      - not an object
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'assertion `threshold` must be a finite number, got "0.5"',
        'assertion `weight` must be a finite number, got "heavy"',
        'assertion `metric` must be a string, got 3',
        'Invalid assertion at tests[0].assert[1]: expected an object, but got string ("not an object")',
      ],
    );
  });
});

describe('loadPromptfooSuite: test cases (§1.5)', () => {
  it('rejects a test with none of the required fields (§11 #47)', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - description: only
`);
    assert.equal(diags.length, 1);
    assert.match(
      diags[0].message,
      /^Test case must contain one of the following properties: assert, vars, options, metadata, provider, providerOutput, threshold\. Instead got: \{"description":"only"\}$/,
    );
    assert.equal(diags[0].line, 5);
  });

  it('accepts a test that only sets threshold or providerOutput', async () => {
    const suite = await loadText(`
prompts: ["x"]
providers: [echo]
tests:
  - threshold: 0
  - providerOutput: {tool: call}
`);
    assert.equal(suite.cases[0].scoring?.threshold, 0);
    assert.deepEqual(suite.cases[1].replay?.output, { tool: 'call' });
  });

  it('maps unknown options to provider params', async () => {
    const suite = await loadText(`
prompts: ["x"]
providers: [echo]
tests:
  - options: {temperature: 0.1, response_format: {type: json_object}, disableVarExpansion: true}
`);
    assert.deepEqual(suite.cases[0].preparation?.options, {
      params: { temperature: 0.1, response_format: { type: 'json_object' } },
    });
  });

  it('warns about an assert key inside vars and unknown test fields', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars:
      q: one
      assert: [{type: contains, value: one}]
    owner: qa-team
`);
    assert.deepEqual(
      suite.warnings.map((w) => w.message),
      [
        'unknown test field "owner" is ignored',
        "Found 'assert' key in vars. This is likely a mistake in your configuration: 'assert' should be unindented so it is under the test itself, not vars",
      ],
    );
  });

  it('refuses features that come later, each with a clear message', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: zero}
  - vars: {q: one}
    assertScoringFunction: file://score.js
    options:
      transformVars: file://t.js
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        '`transformVars` is not supported by assay yet (it comes in a later version)',
        // assertScoringFunction runs now (last-mile/scoring-function); a missing file is refused.
        'assertScoringFunction score.js: file not found',
      ],
    );
  });
});
