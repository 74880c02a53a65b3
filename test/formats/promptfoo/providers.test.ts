import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { providerPatterns } from '../../../src/providers/registry.js';
import { fixture } from '../../support/paths.js';
import { errorsOf, loadErrors, loadFixture, loadText, located, shown } from './helpers.js';

describe('providers (§1.3)', () => {
  it('reads ids, option objects, the map form and provider files', async () => {
    const suite = await loadFixture('providers');
    assert.deepEqual(
      suite.providers.map(({ source: _s, ...p }) => p),
      [
        { id: 'echo' },
        { id: 'openai:chat:gpt-4o-mini', config: { temperature: 0.2 } },
        { id: 'openai:gpt-4o', label: 'fancy', prompts: ['second'] },
        { id: 'openai:gpt-4.1', label: 'from-file', config: { max_tokens: 10 } },
        // The map form's key is the provider built; its inner id is the name it runs under (promptfoo).
        { id: 'openai:o3', kind: 'openai:chat:o3' },
      ],
    );
    assert.deepEqual(suite.source.files, ['promptfooconfig.yaml', 'providers.yaml']);
    assert.deepEqual(suite.providers[3].source, {
      file: shown('providers', 'providers.yaml'),
      line: 1,
      col: 7,
    });
  });

  it('warns when both providers and targets are set, and uses providers', async () => {
    const suite = await loadFixture('providers');
    assert.deepEqual(
      suite.warnings.map((w) => w.message),
      ['both `providers` and `targets` are set; using `providers`'],
    );
  });

  it('accepts targets as an alias and a single string', async () => {
    const suite = await loadText('prompts: [x]\ntargets: echo\n');
    assert.deepEqual(
      suite.providers.map((p) => p.id),
      ['echo'],
    );
  });

  it('turns test provider filters into Case.only (§11 #38)', async () => {
    const suite = await loadFixture('providers');
    assert.deepEqual(
      suite.cases.map((c) => c.only),
      [{ providers: ['openai'] }, { providers: [] }, { providers: ['openai:*'], prompts: ['second'] }],
    );
  });

  it('reports unknown ids, duplicates, refused fields and custom providers, positioned', async () => {
    const diags = await loadErrors(fixture('promptfoo', 'providers', 'bad.yaml'));
    const file = shown('providers', 'bad.yaml');
    assert.deepEqual(located(diags), [
      `${file}:5:5 unknown provider "bedrock:claude"; assay supports: ${providerPatterns().join(', ')}`,
      `${file}:8:5 provider "file://custom_provider.py": file not found`,
      `${file}:4:9 two providers share the name "echo"; give one of them a distinct \`label\``,
    ]);
  });

  it('rejects a config without providers', async () => {
    for (const providers of ['', 'providers: []\n']) {
      const diags = await errorsOf(`prompts: [x]\n${providers}`);
      assert.deepEqual(
        diags.map((d) => d.message),
        ['no providers: set `providers` to at least one provider id (for example `echo`)'],
      );
    }
  });

  it('reports references to providers and prompts that do not exist (§11 #39, §4.2)', async () => {
    const diags = await loadErrors(fixture('promptfoo', 'providers', 'refs.yaml'));
    const file = shown('providers', 'refs.yaml');
    assert.deepEqual(located(diags), [
      `${file}:8:15 defaultTest references provider "missing-default" which does not exist. Available providers: echo, fancy (openai:gpt-4o)`,
      `${file}:12:17 Test #1 ("first") references provider "nope" which does not exist. Available providers: echo, fancy (openai:gpt-4o)`,
      `${file}:14:15 Test #2 references prompt "no-such-prompt" which does not exist.\nAvailable prompts: [69604f75f272, {{q}}]`,
    ]);
  });

  it('warns when a provider lists a prompt that matches nothing', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers:
  - id: echo
    prompts: [ghost]
tests: [{vars: {q: a}}]
`);
    assert.deepEqual(
      suite.warnings.map((w) => w.message),
      ['provider "echo" lists prompt "ghost", which matches no prompt'],
    );
  });

  it('checks grader providers too', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: a}
    assert:
      - type: contains
        value: a
        provider: bogus:model
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [`unknown provider "bogus:model"; assay supports: ${providerPatterns().join(', ')}`],
    );
  });
});
