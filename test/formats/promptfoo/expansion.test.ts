import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorsOf, loadText, plain, varsOf } from './helpers.js';

const suiteWith = (vars: string, extra = '') =>
  loadText(`
prompts: ["{{a}}"]
providers: [echo]
tests:
  - description: expanded
    vars: ${vars}
    metadata: {m: 1}
    assert:
      - type: contains
        value: x
${extra}`);

describe('var expansion (§2.2)', () => {
  it('expands only arrays whose first element is a string (§11 #11)', async () => {
    assert.deepEqual(varsOf((await suiteWith('{a: [1, 2]}')).cases), [{ a: [1, 2] }]);
    assert.deepEqual(varsOf((await suiteWith("{a: ['x', 1]}")).cases), [{ a: 'x' }, { a: 1 }]);
    assert.deepEqual(varsOf((await suiteWith('{a: [], b: [p, q]}')).cases), [
      { a: [], b: 'p' },
      { a: [], b: 'q' },
    ]);
    assert.deepEqual(varsOf((await suiteWith('{a: [{k: 1}, {k: 2}]}')).cases), [{ a: [{ k: 1 }, { k: 2 }] }]);
  });

  it('varies the first key slowest (§11 #12)', async () => {
    const suite = await suiteWith("{a: [x, y], b: ['1', '2']}");
    assert.deepEqual(varsOf(suite.cases), [
      { a: 'x', b: '1' },
      { a: 'x', b: '2' },
      { a: 'y', b: '1' },
      { a: 'y', b: '2' },
    ]);
  });

  it('gives each combination the same description, assertions and metadata, and its own id', async () => {
    const suite = await suiteWith('{a: [x, y]}');
    assert.equal(suite.cases.length, 2);
    for (const c of suite.cases) {
      assert.equal(c.description, 'expanded');
      assert.deepEqual(c.metadata, { m: 1 });
      assert.deepEqual(plain(c.asserts), [{ type: 'contains', value: 'x' }]);
    }
    assert.notEqual(suite.cases[0].id, suite.cases[1].id);
  });

  it('does not expand with options.disableVarExpansion', async () => {
    const suite = await suiteWith('{a: [x, y]}', '    options: {disableVarExpansion: true}\n');
    assert.deepEqual(varsOf(suite.cases), [{ a: ['x', 'y'] }]);
    assert.equal(suite.cases[0].preparation?.options, undefined);
  });

  it('expands defaultTest vars too, after the merge', async () => {
    const suite = await loadText(`
prompts: ["{{a}} {{b}}"]
providers: [echo]
defaultTest:
  vars: {b: [p, q]}
tests:
  - vars: {a: one}
`);
    assert.deepEqual(varsOf(suite.cases), [
      { b: 'p', a: 'one' },
      { b: 'q', a: 'one' },
    ]);
  });

  it('expands a file:// glob into one case per file and rejects one that matches nothing', async () => {
    const suite = await loadText(
      'prompts: ["{{doc}}"]\nproviders: [echo]\ntests:\n  - vars: {doc: "file://docs/*.txt", plain: file://docs/a.txt}\n',
      { 'docs/a.txt': 'A', 'docs/b.txt': 'B' },
    );
    // Each case gets the file's text (§2.3), loaded at suite load.
    assert.deepEqual(varsOf(suite.cases), [
      { doc: 'A', plain: 'A' },
      { doc: 'B', plain: 'A' },
    ]);
    const diags = await errorsOf(
      'prompts: ["{{doc}}"]\nproviders: [echo]\ntests:\n  - vars: {doc: "file://none/*.txt"}\n',
    );
    assert.deepEqual(
      diags.map((d) => d.message),
      ['No files found for variable doc: file://none/*.txt'],
    );
  });
});
