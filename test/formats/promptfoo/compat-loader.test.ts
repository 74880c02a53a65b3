// promptfoo compatibility cases of the loader lane (spec §11 #1–#15, #40–#43, #47, #48), each
// through the real loader and, for rendering, the engine's prompt builder.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPrompt } from '../../../src/engine/prompt.js';
import { errorsOf, loadText, plain, varsOf } from './helpers.js';

const CSV_CONFIG = 'prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n';

/** The assertions of the single case a one-row CSV produces. */
async function csvRow(header: string, row: string) {
  const suite = await loadText(CSV_CONFIG, { 't.csv': `q,${header}\nquestion,${row}\n` });
  assert.equal(suite.cases.length, 1);
  return suite.cases[0];
}

describe('promptfoo compatibility: loader cases (§11)', () => {
  it('§11 #1: __config:__expected1:threshold addresses the first non-blank __expected* column', async () => {
    const c = await csvRow('__expected1,__expected2,__config:__expected1:threshold', ',contains:x,0.5');
    assert.deepEqual(plain(c.asserts), [{ type: 'contains', value: 'x', threshold: 0.5 }]);
    assert.equal(c.metadata.threshold, 0.5);
  });

  it('§11 #2: CSV latency:500 is a latency assertion with value "500" and threshold 0.75', async () => {
    const c = await csvRow('__expected', 'latency:500');
    assert.deepEqual(plain(c.asserts), [{ type: 'latency', value: '500', threshold: 0.75 }]);
  });

  it('§11 #3: CSV levenshtein:hello gets threshold 0.75', async () => {
    const c = await csvRow('__expected', 'levenshtein:hello');
    assert.deepEqual(plain(c.asserts), [{ type: 'levenshtein', value: 'hello', threshold: 0.75 }]);
  });

  it('§11 #4: not-levenshtein loads as a negated levenshtein with its threshold', async () => {
    const suite = await loadText(
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: helo}\n    assert:\n      - {type: not-levenshtein, value: hello, threshold: 2}\n',
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [
      { type: 'levenshtein', negate: true, value: 'hello', threshold: 2 },
    ]);
  });

  it('§11 #5: CSV similar(.8):hi is equals with the whole text', async () => {
    const c = await csvRow('__expected', 'similar(.8):hi');
    assert.deepEqual(plain(c.asserts), [{ type: 'equals', value: 'similar(.8):hi' }]);
  });

  it('§11 #6: CSV contains-any: a, b ,c splits and trims', async () => {
    const c = await csvRow('__expected', '"contains-any: a, b ,c"');
    assert.deepEqual(plain(c.asserts), [{ type: 'contains-any', value: ['a', 'b', 'c'] }]);
  });

  // §11 #7 and #8 describe older promptfoo; 0.123.1 (csv-columns.test.ts has its recorded answers)
  // keeps a 0 threshold and unescapes every \\, of an item.
  it('§11 #7 (0.123.1): CSV __threshold 0 is a threshold of 0', async () => {
    const c = await csvRow('__expected,__threshold', 'contains:q,0');
    assert.equal(c.scoring?.threshold, 0);
  });

  it('§11 #8 (0.123.1): CSV __metadata:tags[] unescapes every \\, of each item', async () => {
    const c = await csvRow('__metadata:tags[]', '"a\\,b\\,c, d"');
    assert.deepEqual(c.metadata.tags, ['a,b,c', 'd']);
  });

  it('§11 #9: a CSV _expected column warns and becomes a var', async () => {
    const suite = await loadText(CSV_CONFIG, { 't.csv': 'q,_expected\nquestion,x\n' });
    assert.equal(suite.cases[0].vars._expected, 'x');
    assert.deepEqual(suite.cases[0].asserts, []);
    assert.ok(
      suite.warnings.some((w) => w.message.includes('Did you mean to use "__expected" instead?')),
      'a single-underscore warning',
    );
  });

  it('§11 #10: a standalone JSONL file overwrites descriptions with Row #n', async () => {
    const suite = await loadText('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.jsonl\n', {
      't.jsonl': '{"description": "X", "vars": {"q": 1}}\n{"vars": {"q": 2}}\n',
    });
    assert.deepEqual(
      suite.cases.map((c) => c.description),
      ['Row #1', 'Row #2'],
    );
  });

  it('§11 #11: only a list whose first element is a string expands', async () => {
    const rows = async (vars: string) =>
      varsOf((await loadText(`prompts: ["{{a}}"]\nproviders: [echo]\ntests:\n  - vars: ${vars}\n`)).cases);
    assert.deepEqual(await rows('{a: [1, 2]}'), [{ a: [1, 2] }]);
    assert.deepEqual(await rows("{a: ['x', 1]}"), [{ a: 'x' }, { a: 1 }]);
    assert.deepEqual(await rows('{a: [], b: [p, q]}'), [
      { a: [], b: 'p' },
      { a: [], b: 'q' },
    ]);
  });

  it('§11 #12: the first var varies slowest', async () => {
    const suite = await loadText(
      "prompts: ['{{a}}{{b}}']\nproviders: [echo]\ntests:\n  - vars: {a: [x, y], b: ['1', '2']}\n",
    );
    assert.deepEqual(varsOf(suite.cases), [
      { a: 'x', b: '1' },
      { a: 'x', b: '2' },
      { a: 'y', b: '1' },
      { a: 'y', b: '2' },
    ]);
  });

  it('§11 #13: a file:// var glob matching nothing aborts the load', async () => {
    const diags = await errorsOf(
      'prompts: ["{{a}}"]\nproviders: [echo]\ntests:\n  - vars: {a: "file://missing/*.txt"}\n',
    );
    assert.deepEqual(
      diags.map((d) => d.message),
      ['No files found for variable a: file://missing/*.txt'],
    );
  });

  it('§11 #14: a file://data.json var is the trimmed file text', async () => {
    const suite = await loadText(
      'prompts: ["{{a}}"]\nproviders: [echo]\ntests:\n  - vars: {a: file://data.json}\n',
      { 'data.json': '\n  {"k": 1}\n\n' },
    );
    assert.equal(suite.cases[0].vars.a, '{"k": 1}');
  });

  it('§11 #15: default assertions come first; disableDefaultAsserts drops them', async () => {
    const suite = await loadText(`prompts: ["{{q}}"]
providers: [echo]
defaultTest:
  assert: [{type: contains, value: A}]
tests:
  - vars: {q: one}
    assert: [{type: contains, value: B}]
  - vars: {q: two}
    options: {disableDefaultAsserts: true}
    assert: [{type: contains, value: B}]
`);
    assert.deepEqual(
      suite.cases.map((c) => c.asserts.map((a) => a.value)),
      [['A', 'B'], ['B']],
    );
  });

  it('§11 #40: a JSON chat prompt renders a var with quotes as valid, escaped, pretty JSON', async () => {
    const suite = await loadText(
      `prompts: ['{"role":"user","content":"{{q}}"}']\nproviders: [echo]\ntests:\n  - vars: {q: 'say "hi"'}\n`,
    );
    const { text } = buildPrompt(suite.cases[0], suite.prompts[0], {});
    assert.equal(text, '{\n  "role": "user",\n  "content": "say \\"hi\\""\n}');
    assert.deepEqual(JSON.parse(text), { role: 'user', content: 'say "hi"' });
  });

  it('§11 #41: a prefix is prepended before rendering and may use vars', async () => {
    const suite = await loadText(`prompts: ['Hi {{name}}']
providers: [echo]
tests:
  - vars: {name: Ada, who: P}
    options: {prefix: '{{who}}: '}
`);
    assert.equal(buildPrompt(suite.cases[0], suite.prompts[0], {}).text, 'P: Hi Ada');
  });

  it('§11 #42: a var that refers to another var is resolved', async () => {
    const suite = await loadText(
      "prompts: ['{{x}}']\nproviders: [echo]\ntests:\n  - vars: {x: 'hello {{y}}', y: world}\n",
    );
    assert.equal(buildPrompt(suite.cases[0], suite.prompts[0], {}).text, 'hello world');
  });

  it('§11 #43: an undefined var renders as empty text without an error', async () => {
    const suite = await loadText(
      "prompts: ['[{{nope}}] {{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: here}\n",
    );
    assert.equal(buildPrompt(suite.cases[0], suite.prompts[0], {}).text, '[] here');
  });

  it('§11 #47: a test with only a description is a load error', async () => {
    const diags = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - description: only\n');
    assert.equal(diags.length, 1);
    assert.match(
      diags[0].message,
      /^Test case must contain one of the following properties: assert, vars, options, metadata, provider, providerOutput, threshold\./,
    );
    assert.equal(diags[0].line, 4);
  });

  it('§11 #48: an assertion without a type is a load error with an indentation hint', async () => {
    const diags = await errorsOf(
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: a}\n    assert:\n      - value: foo\n',
    );
    assert.equal(diags.length, 1);
    assert.match(diags[0].message, /missing required 'type' property/);
    assert.match(
      diags[0].message,
      /Hint: in YAML, keep all of an assertion's properties under the same list item/,
    );
    assert.equal(diags[0].line, 6);
  });
});
