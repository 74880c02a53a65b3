// Loading grader settings: provider ids, {id, config}, {text, embedding} maps, rubricPrompt files,
// and the model-graded types assay refuses with their reason.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../../support/cli.js';
import { errorsOf, loadText, located, writeSuite } from './helpers.js';

const HEAD = `prompts: ['{{q}}']
providers: [echo]
`;

describe('promptfoo grader settings', () => {
  it('maps assertion, test and defaultTest providers, including {text, embedding} maps', async () => {
    const suite = await loadText(`${HEAD}defaultTest:
  options:
    provider: {text: {id: openai:chat:judge, config: {temperature: 0}}, embedding: openai:embeddings:e}
tests:
  - vars: {q: a}
    options: {provider: openai:chat:of-test}
    assert:
      - {type: llm-rubric, value: polite}
      - {type: similar, value: hi, provider: {embedding: openai:embedding:own}}
`);
    assert.deepEqual(
      { id: suite.grader?.id, config: suite.grader?.config, embedding: suite.grader?.embedding?.id },
      { id: 'openai:chat:judge', config: { temperature: 0 }, embedding: 'openai:embeddings:e' },
    );
    const [rubric, similar] = suite.cases[0].asserts;
    assert.equal(rubric.grader?.id, 'openai:chat:of-test');
    assert.equal(similar.grader?.id, 'openai:embedding:own');
    assert.equal(similar.grader?.embedding?.id, 'openai:embedding:own');
  });

  it('refuses unknown grader ids and malformed maps at their position', async () => {
    const diags = await errorsOf(`${HEAD}tests:
  - vars: {q: a}
    assert:
      - type: llm-rubric
        value: polite
        provider: nope:judge
      - type: similar
        value: hi
        provider: {text: openai:chat:j, classification: hf:x}
`);
    const lines = located(diags).map((l) => l.replace(/^.*promptfooconfig\.yaml/, 'config'));
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^config:8:19 unknown provider "nope:judge"/);
    assert.match(
      lines[1],
      /^config:11:19 a grader provider map may only have `text` and `embedding` providers/,
    );
  });

  it('reads rubricPrompt files at load and refuses script-made prompts', async () => {
    const suite = await loadText(
      `${HEAD}defaultTest: {options: {provider: openai:chat:j, rubricPrompt: file://rubric.txt}}
tests:
  - vars: {q: a}
    assert: [{type: llm-rubric, value: polite, rubricPrompt: 'Grade {{ output }}'}]
  - vars: {q: b}
    assert: [{type: llm-rubric, value: polite}]
`,
      { 'rubric.txt': 'From file: {{ output }} / {{ rubric }}' },
    );
    assert.equal(suite.cases[0].asserts[0].options?.rubricPrompt, 'Grade {{ output }}');
    assert.equal(suite.cases[1].asserts[0].options?.rubricPrompt, 'From file: {{ output }} / {{ rubric }}');
    const diags = await errorsOf(`${HEAD}tests:
  - vars: {q: a}
    assert: [{type: llm-rubric, value: x, provider: openai:chat:j, rubricPrompt: file://make.js}]
`);
    assert.match(
      diags[0].message,
      /a `rubricPrompt` computed by a script \(file:\/\/make\.js\) is not supported/,
    );
  });

  it('refuses the model-graded types assay cannot run, saying why', async () => {
    const diags = await errorsOf(`${HEAD}tests:
  - vars: {q: a}
    assert:
      - {type: classifier, value: positive}
      - {type: not-moderation}
      - {type: pi, value: is it good?}
      - {type: conversation-relevance}
      - {type: search-rubric, value: current CEO}
`);
    assert.deepEqual(
      diags.map((d) => d.message.replace(/^tests\[0\]\.assert\[\d\]: /, '')),
      [
        'assertion type "classifier" needs a HuggingFace text-classification provider, which assay does not have',
        'assertion type "not-moderation" needs a moderation API (OpenAI\'s /moderations or LlamaGuard on Replicate), which assay does not call',
        'assertion type "pi" is scored by Pi Labs\' remote scoring service, which assay does not call',
        'assertion type "conversation-relevance" judges a multi-turn `_conversation`, a var assay does not provide',
        'assertion type "search-rubric" needs a grader with live web search, which assay does not provide',
      ],
    );
  });

  it('assay validate refuses a graded suite with no grader (exit 2, file:line); --grader makes it valid', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `${HEAD}tests:
  - vars: {q: a}
    assert:
      - type: llm-rubric
        value: polite
`,
    });
    const refused = await runCli(['validate', dirname(path)]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /promptfooconfig\.yaml:6:9: llm-rubric needs a grader model and none is configured: give --grader PROVIDER/,
    );
    const ok = await runCli([
      'validate',
      join(dirname(path), 'promptfooconfig.yaml'),
      '--grader',
      'openai:chat:j',
    ]);
    assert.equal(ok.code, 0, ok.stderr);
  });
});
