// JSON `$ref` pointers in configs and test files (§1.1), resolved as json-schema-ref-parser does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { ENV, errorsOf, loadText, plain, writeSuite } from './helpers.js';

describe('$ref pointers (§1.1)', () => {
  it('replaces local pointers anywhere in the config, with escapes in pointer tokens', async () => {
    const suite = await loadText(`prompts: {$ref: '#/shared/prompts'}
providers: [echo]
shared:
  prompts: ["{{q}}"]
  a/b: {type: icontains, value: slash}
assertionTemplates:
  hasOne: {type: contains, value: one}
tests:
  - vars: {q: one}
    assert:
      - $ref: '#/assertionTemplates/hasOne'
      - $ref: '#/shared/a~1b'
`);
    assert.deepEqual(
      suite.prompts.map((p) => p.raw),
      ['{{q}}'],
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [
      { type: 'contains', value: 'one' },
      { type: 'icontains', value: 'slash' },
    ]);
  });

  it('keeps keys written beside $ref, which win over the target’s', async () => {
    const suite = await loadText(`prompts: ["{{q}}"]
providers: [echo]
templates:
  base: {type: contains, value: base, weight: 2}
tests:
  - vars: {q: one}
    assert:
      - $ref: '#/templates/base'
        value: override
`);
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'contains', value: 'override', weight: 2 }]);
  });

  it('follows file refs (with or without a pointer) and refs inside the target file', async () => {
    const suite = await loadText(
      `prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
      - $ref: 'common/asserts.yaml#/contains-one'
      - $ref: 'common/whole.json'
`,
      {
        'common/asserts.yaml': "contains-one: {$ref: '#/inner'}\ninner: {type: contains, value: one}\n",
        'common/whole.json': '{"type": "starts-with", "value": "o"}',
      },
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [
      { type: 'contains', value: 'one' },
      { type: 'starts-with', value: 'o' },
    ]);
    assert.ok(suite.source.files?.includes('common/asserts.yaml'), 'a referenced file counts in the hash');
  });

  it('resolves refs in test files against the file itself', async () => {
    const suite = await loadText('prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - file://cases/t.yaml\n', {
      'cases/t.yaml': "- vars: {q: a}\n  assert: [{$ref: 'lib.yaml#/check'}]\n",
      'cases/lib.yaml': 'check: {type: equals, value: a}\n',
    });
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'equals', value: 'a' }]);
  });

  it('leaves provider tool parameter schemas untouched', async () => {
    const suite = await loadText(`prompts: ["{{q}}"]
providers:
  - id: echo
    config:
      tools:
        - type: function
          function:
            name: f
            parameters: {$ref: '#/definitions/args'}
tests:
  - vars: {q: one}
`);
    const tools = suite.providers[0].config?.tools as { function: { parameters: unknown } }[];
    assert.deepEqual(tools[0].function.parameters, { $ref: '#/definitions/args' });
  });

  it('reports a circular ref, a missing file, a remote target and a malformed pointer', async () => {
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers: [echo]
loop: {a: {$ref: '#/loop'}}
tests:
  - vars: {q: one}
    assert:
      - $ref: '#/loop'
      - $ref: 'gone.yaml#/x'
      - $ref: 'https://example.com/a.yaml'
      - $ref: '#nope'
`);
    assert.deepEqual(
      diags.map((d) => `${d.line} ${d.message}`),
      [
        // Found from the config's own `loop` and again through the assertion: one error.
        `3 $ref "#/loop" is circular: it contains itself`,
        '8 $ref "gone.yaml#/x": gone.yaml: file not found',
        '9 $ref "https://example.com/a.yaml" points at a remote document; assay fetches nothing while loading a suite, so save it next to the config and refer to it by path',
        '10 $ref "#nope": a JSON pointer after "#" must start with "/"',
      ],
    );
  });

  it('reports every $ref, unresolved, when PROMPTFOO_DISABLE_REF_PARSER is set', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml':
        "prompts: ['{{q}}']\nproviders: [echo]\nt: {type: contains, value: a}\ntests:\n  - vars: {q: a}\n    assert: [{$ref: '#/t'}]\n",
    });
    await assert.rejects(
      loadPromptfooSuite(path, { env: { ...ENV, PROMPTFOO_DISABLE_REF_PARSER: 'true' } }),
      /6:21: \$ref "#\/t" is not resolved because PROMPTFOO_DISABLE_REF_PARSER is set/,
    );
  });
});
