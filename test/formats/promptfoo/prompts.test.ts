import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shortHash } from '../../../src/core/hash.js';
import { maybeFilePath } from '../../../src/formats/promptfoo/prompts.js';
import { fixture } from '../../support/paths.js';
import { errorsOf, loadErrors, loadFixture, loadText, located, shown } from './helpers.js';

describe('prompts (§1.2)', () => {
  it('reads every prompt file kind with promptfoo labels', async () => {
    const suite = await loadFixture('prompt-files');
    const chat = '[{"role":"system","content":"Be brief."},{"role":"user","content":"{{q}}"}]';
    assert.deepEqual(
      suite.prompts.map((p) => [p.label, p.raw]),
      [
        // .txt: split on `---` lines, chunks trimmed, empty chunks dropped.
        ['prompts/multi.txt: First prompt about {{q}}.', 'First prompt about {{q}}.'],
        ['prompts/multi.txt: Second prompt: {{q}}', 'Second prompt: {{q}}'],
        // .json: the whole file is one prompt, re-serialised.
        [`prompts/chat.json: ${chat}`, chat],
        // A bare path with a known extension is a file (maybeFilePath); .md and .j2 are whole files.
        [
          'prompts/system.md: # System\n\nAnswer {{q}} carefully.\n...',
          '# System\n\nAnswer {{q}} carefully.\n',
        ],
        ['prompts/template.j2: {% if q %}Q: {{ q }}{% endif %}\n...', '{% if q %}Q: {{ q }}{% endif %}\n'],
        // .jsonl: one prompt per non-empty line.
        [
          'prompts/lines.jsonl: [{"role":"user","content":"one {{q}}"}]',
          '[{"role":"user","content":"one {{q}}"}]',
        ],
        [
          'prompts/lines.jsonl: [{"role":"user","content":"two {{q}}"}]',
          '[{"role":"user","content":"two {{q}}"}]',
        ],
        // .yaml: parsed and re-serialised as JSON.
        [
          'prompts/chat.yaml: [{"role":"user","content":"{{q}} from yaml"}]',
          '[{"role":"user","content":"{{q}} from yaml"}]',
        ],
        // An entry label prefixes file labels.
        ['Labelled: prompts/single.txt: Single {{q}}', 'Single {{q}}'],
        // A path-like string whose glob finds nothing is literal text.
        ['What is 2/3?', 'What is 2/3?'],
        // A glob expands to every match, in order.
        ['globbed/a.txt: Glob A {{q}}', 'Glob A {{q}}'],
        ['globbed/b.txt: Glob B {{q}}', 'Glob B {{q}}'],
      ],
    );
  });

  it('uses the given id or a short hash of the raw text', async () => {
    const suite = await loadFixture('prompt-files');
    const labelled = suite.prompts.find((p) => p.label.startsWith('Labelled'));
    assert.equal(labelled?.id, 'labelled');
    assert.equal(suite.prompts[0].id, shortHash('First prompt about {{q}}.'));
    assert.equal(new Set(suite.prompts.map((p) => p.id)).size, suite.prompts.length);
  });

  it('records prompt files in the content hash, in read order', async () => {
    const suite = await loadFixture('prompt-files');
    assert.deepEqual(suite.source.files, [
      'promptfooconfig.yaml',
      'prompts/multi.txt',
      'prompts/chat.json',
      'prompts/system.md',
      'prompts/template.j2',
      'prompts/lines.jsonl',
      'prompts/chat.yaml',
      'prompts/single.txt',
      'globbed/a.txt',
      'globbed/b.txt',
    ]);
  });

  it('reads the legacy {path: label} map', async () => {
    const suite = await loadFixture('prompt-files', 'legacy.yaml');
    assert.deepEqual(
      suite.prompts.map((p) => [p.label, p.raw]),
      [
        ['Single: prompts/single.txt: Single {{q}}', 'Single {{q}}'],
        ['Topic', 'Tell me about {{q}}'],
      ],
    );
  });

  it('reads a single string, and objects with id, label, raw and config', async () => {
    const one = await loadText('prompts: "Hello {{q}}"\nproviders: [echo]\ntests: [{vars: {q: a}}]\n');
    assert.deepEqual(one.prompts, [
      { id: shortHash('Hello {{q}}'), label: 'Hello {{q}}', raw: 'Hello {{q}}' },
    ]);
    const objects = await loadText(`
prompts:
  - id: p1
    raw: "A {{q}}"
    config: {temperature: 0.3}
  - label: Second
    raw: "B {{q}}"
providers: [echo]
tests: [{vars: {q: a}}]
`);
    assert.deepEqual(objects.prompts, [
      { id: 'p1', label: 'A {{q}}', raw: 'A {{q}}', config: { temperature: 0.3 } },
      { id: shortHash('B {{q}}'), label: 'Second', raw: 'B {{q}}' },
    ]);
  });

  it('defaults to {{prompt}} with a warning when prompts are missing', async () => {
    const warned = await loadText('providers: [echo]\ntests: [{vars: {q: a}}]\n');
    assert.deepEqual(
      warned.prompts.map((p) => p.raw),
      ['{{prompt}}'],
    );
    assert.deepEqual(
      warned.warnings.map((w) => w.message),
      ['no `prompts` given; using the default prompt "{{prompt}}"'],
    );
    const quiet = await loadText('providers: [echo]\ntests: [{vars: {prompt: hi}}]\n');
    assert.deepEqual(quiet.warnings, []);
  });

  it('rejects an empty prompt list', async () => {
    const diags = await errorsOf('prompts: []\nproviders: [echo]\n');
    assert.deepEqual(
      diags.map((d) => d.message),
      ['You must provide at least 1 prompt'],
    );
  });

  it('rejects a path-like string that names no prompt file, and a missing prompt function, positioned', async () => {
    const diags = await loadErrors(fixture('promptfoo', 'prompt-files', 'bad-path.yaml'));
    const file = shown('prompt-files', 'bad-path.yaml');
    assert.deepEqual(located(diags), [
      `${file}:2:5 There are no prompts in "Answer yes/no" (promptfoo reads a string with "/", "\\", "*" or a file extension as a file path; write literal text with a newline, e.g. as a YAML block, to use it as a prompt)`,
      `${file}:3:5 prompt file build_prompt.js: file not found`,
    ]);
  });

  it('refuses remote prompts (a cloud service) and missing executable or CSV prompt files', async () => {
    const diags = await errorsOf(`
prompts:
  - exec:./make.sh
  - file://make.sh
  - langfuse://my-prompt
  - file://prompts.csv
providers: [echo]
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'executable prompt make.sh: file not found',
        'prompt file make.sh: file not found',
        "a prompt from langfuse is fetched from that service's cloud with your credentials, which assay does not do (it loads suites offline); export the prompt to a file and use file://",
        // A CSV prompt file is read now (test/fixtures/promptfoo/last-mile/csv-prompts); a missing one is an error.
        'prompt file prompts.csv: file not found',
      ],
    );
  });

  it('treats multi-line text as a literal even with a slash', async () => {
    const suite = await loadText(
      'prompts:\n  - |\n    Answer yes/no:\n    {{q}}\nproviders: [echo]\ntests: [{vars: {q: a}}]\n',
    );
    assert.equal(suite.prompts[0].raw, 'Answer yes/no:\n{{q}}\n');
  });
});

describe('maybeFilePath', () => {
  it('follows promptfoo', () => {
    assert.equal(maybeFilePath('file://x'), true);
    assert.equal(maybeFilePath('prompt.txt'), true);
    assert.equal(maybeFilePath('gen.py:make'), true);
    assert.equal(maybeFilePath('a.md'), true);
    assert.equal(maybeFilePath('What is 2/3?'), true);
    assert.equal(maybeFilePath('Use * here'), true);
    assert.equal(maybeFilePath('Hello {{name}}'), false);
    assert.equal(maybeFilePath('line one\nline/two'), false);
    assert.equal(maybeFilePath('portkey://x/y'), false);
  });
});
