import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../../src/core/errors.js';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { providerPatterns } from '../../../src/providers/registry.js';
import { fixture } from '../../support/paths.js';
import { errorsOf, loadErrors, loadText, located, shown, writeSuite } from './helpers.js';

describe('diagnostics', () => {
  it('reports every problem of a config at once, each at file:line:col', async () => {
    const diags = await loadErrors(fixture('promptfoo', 'errors', 'promptfooconfig.yaml'));
    const config = shown('errors', 'promptfooconfig.yaml');
    const csv = shown('errors', 'cases.csv');
    assert.deepEqual(located(diags), [
      // A malformed YAML line; what parsed is still validated.
      `${config}:6:1 invalid YAML: All mapping items must start at the same column`,
      // A missing referenced file (a prompt, then a test file).
      `${config}:2:5 prompt file missing-prompt.txt: file not found`,
      // A bad provider id.
      `${config}:5:5 unknown provider "nope:model"; assay supports: ${providerPatterns().join(', ')}`,
      `${config}:15:5 test file missing-tests.yaml: file not found`,
      // A CSV row problem, at the row's line.
      `${csv}:3: Invalid numeric value "abc" for config key "threshold" in column "__config:__expected:threshold"`,
      // An unknown (typo'd) assertion type, at the type's value.
      `${config}:10:15 tests[0].assert[0]: unknown assertion type "contians" (did you mean "contains"?)`,
      // A missing type, at the assertion.
      `${config}:14:9 Invalid assertion at tests[1].assert[0]: missing required 'type' property (received {"value":"foo"})\nHint: in YAML, keep all of an assertion's properties under the same list item:\n  assert:\n    - type: python\n      value: file://script.py   # no '-' before 'value'`,
    ]);
    assert.ok(diags.every((d) => d.severity === 'error'));
  });

  it('reports a malformed YAML line and a typo in the same file', async () => {
    const diags = await errorsOf(`prompts: ["{{q}}"]
providers: [echo]
  stray: 1
tests:
  - vars: {q: one}
    assert:
      - type: equal
        value: one
`);
    assert.deepEqual(
      diags.map((d) => `${d.line}:${d.col} ${d.message}`),
      [
        '3:1 invalid YAML: All mapping items must start at the same column',
        '7:15 tests[0].assert[0]: unknown assertion type "equal" (did you mean "equals"?)',
      ],
    );
  });

  it('a broken standalone .json tests file gets one positioned JSON error, not YAML ones', async () => {
    const config = "prompts: ['{{q}}']\nproviders: [echo]\ntests: file://t.json\n";
    const broken = '[\n{"vars": {"q": "x"}},\n{"vars": {"q": "y"} "assert": []}\n]';
    const diags = await loadErrors(writeSuite({ 'promptfooconfig.yaml': config, 't.json': broken }));
    assert.equal(diags.length, 1, located(diags).join('\n'));
    assert.equal(diags[0].line, 3);
    assert.match(diags[0].message, /^invalid JSON: /);
    assert.match(diags[0].file, /t\.json$/);
    // What promptfoo's YAML reading accepts in a .json file (a trailing comma) still loads.
    const lenient = await loadText(config, { 't.json': '[{"vars": {"q": "x"},}]' });
    assert.equal(lenient.cases.length, 1);
  });

  it('warns, with its position, of a prompt tag left open and of a fixed regex that cannot compile', async () => {
    // Both run as promptfoo runs them (the tag sent as literal text; the regex failing every test,
    // spec §11 #27), but neither is what the writer meant: validate says so before any call.
    const suite = await loadText(`prompts: ['Hello {{ name ']
providers: [echo]
tests:
  - vars: {name: x}
    assert:
      - type: regex
        value: '[z-a]+'
      - type: regex
        value: '{{ pattern }}'
`);
    const warnings = located(suite.warnings);
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0], /:1:\d+ prompt "Hello \{\{ name ": "\{\{ name" is never closed/);
    assert.match(
      warnings[1],
      /:6:\d+ tests\[0\]\.assert\[0\]: regex: the pattern is not a valid JavaScript regular expression/,
    );
  });

  it('reads a file:// var outside the suite folder as promptfoo does, but warns and records it', async () => {
    const elsewhere = writeSuite({ 'secret.txt': 'not for the suite' });
    const outsideFile = join(dirname(elsewhere), 'secret.txt');
    const suite = await loadText(`prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: 'file://${outsideFile}'}
  - vars: {q: inside}
`);
    assert.equal(suite.cases[0].vars.q, 'not for the suite');
    assert.equal(suite.source.outside?.length, 1);
    assert.match(suite.source.outside?.[0] ?? '', /secret\.txt$/);
    const warnings = suite.warnings.map((w) => w.message);
    assert.ok(
      warnings.some((w) => /^reads .*secret\.txt, which is outside the suite's folder/.test(w)),
      warnings.join('\n'),
    );
  });

  it('formats the InputError message as file:line:col lines', async () => {
    const path = fixture('promptfoo', 'errors', 'promptfooconfig.yaml');
    await assert.rejects(loadPromptfooSuite(path), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.match(err.message, new RegExp(`^${shown('errors', 'promptfooconfig.yaml')}:6:1: invalid YAML`));
      return true;
    });
  });

  it('reports a missing config file', async () => {
    await assert.rejects(loadPromptfooSuite(fixture('promptfoo', 'nowhere.yaml')), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.equal(err.diagnostics[0].message, 'config file not found');
      return true;
    });
  });

  it('rejects a config that is not a mapping', async () => {
    const diags = await errorsOf('- just\n- a list\n');
    assert.deepEqual(
      diags.map((d) => d.message),
      ['a promptfoo config must be a mapping with `prompts`, `providers` and `tests`'],
    );
  });

  it('warns about ignored top-level keys and other keys (promptfoo keeps them quietly: $ref targets, notes)', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers: [echo]
redteam: {purpose: x}
evaluateOptions: {maxConcurrency: 2}
tests:
  - vars: {q: one}
customKey: {anything: 1}
`);
    assert.deepEqual(
      suite.warnings.map((d) => `${d.line}:${d.col} ${d.message}`),
      [
        '4:1 `redteam` is ignored by assay: red-team generation is not part of assay',
        '8:1 unknown top-level key "customKey" is ignored',
      ],
    );
    assert.deepEqual(suite.runDefaults, { maxConcurrency: 2 });
  });

  it('rejects a top-level key that is a likely typo (a green run that tested nothing)', async () => {
    const diags = await errorsOf(`
prompt: ["{{q}}"]
providers: [echo]
test:
  - vars: {q: one}
    assert: [{type: contains, value: one}]
`);
    assert.deepEqual(
      diags.map((d) => `${d.line}:${d.col} ${d.message}`),
      [
        '2:1 unknown top-level key "prompt" (did you mean "prompts"?)',
        '4:1 unknown top-level key "test" (did you mean "tests"?)',
      ],
    );
  });

  it('refuses top-level features that come later', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
extensions: [file://hooks.js]
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      ['`extensions` (lifecycle hooks) is not supported by assay yet (it comes in a later version)'],
    );
  });
});
