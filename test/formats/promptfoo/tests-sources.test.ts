import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorsOf, loadFixture, loadText, shown } from './helpers.js';

const describeCases = (cases: { description?: string; vars: Record<string, unknown> }[]) =>
  cases.map((c) => [c.vars.q, c.description]);

describe('test sources (§1.4)', () => {
  it('mixes inline tests, files, globs and {path} objects in list order', async () => {
    const suite = await loadFixture('test-files');
    assert.deepEqual(describeCases(suite.cases), [
      ['inline', undefined],
      // YAML via the glob loader: test cases.
      ['list-1', 'from list'],
      ['list-2', undefined],
      // JSON and JSONL in a list: JSON.parse, no automatic descriptions.
      ['json-1', undefined],
      ['json-2', 'named'],
      ['jsonl-1', 'kept in a list'],
      ['jsonl-2', undefined],
      // A glob: every match, sorted.
      ['glob-a', undefined],
      ['glob-b', undefined],
      // {path: x.yaml} goes to the standalone reader, which reads YAML as CSV-style rows.
      ['row-1', 'Row #1'],
      ['row-2', 'second row'],
    ]);
    assert.deepEqual(
      suite.cases[9].asserts.map((a) => [a.type, a.value]),
      [['contains', 'row']],
    );
  });

  it('positions each test at its file and line', async () => {
    const suite = await loadFixture('test-files');
    assert.deepEqual(
      suite.cases.map((c) => `${c.provenance?.source?.file}:${c.provenance?.source?.line}`),
      [
        `${shown('test-files', 'promptfooconfig.yaml')}:4`,
        `${shown('test-files', 'cases', 'list.yaml')}:1`,
        `${shown('test-files', 'cases', 'list.yaml')}:6`,
        `${shown('test-files', 'cases', 'more.json')}:2`,
        `${shown('test-files', 'cases', 'more.json')}:3`,
        `${shown('test-files', 'cases', 'lines.jsonl')}:1`,
        `${shown('test-files', 'cases', 'lines.jsonl')}:3`,
        `${shown('test-files', 'globbed', 'a.yaml')}:1`,
        `${shown('test-files', 'globbed', 'b.yaml')}:1`,
        `${shown('test-files', 'cases', 'rows.yaml')}:1`,
        `${shown('test-files', 'cases', 'rows.yaml')}:3`,
      ],
    );
  });

  it('gives standalone JSON rows a default description', async () => {
    const suite = await loadFixture('test-files', 'standalone-json.yaml');
    assert.deepEqual(describeCases(suite.cases), [
      ['json-1', 'Row #1'],
      ['json-2', 'named'],
    ]);
  });

  it('overwrites descriptions of standalone JSONL rows with Row #n (§11 #10)', async () => {
    const suite = await loadFixture('test-files', 'standalone-jsonl.yaml');
    assert.deepEqual(describeCases(suite.cases), [
      ['jsonl-1', 'Row #1'],
      ['jsonl-2', 'Row #2'],
    ]);
  });

  it('reads a single YAML file string as test cases', async () => {
    const suite = await loadFixture('test-files', 'single-yaml.yaml');
    assert.deepEqual(describeCases(suite.cases), [
      ['list-1', 'from list'],
      ['list-2', undefined],
    ]);
  });

  it('warns that a {path} YAML file is read as CSV-style rows when it looks like test cases', async () => {
    const suite = await loadText('prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  path: cases.yaml\n', {
      'cases.yaml': '- vars: {q: a}\n  assert: [{type: contains, value: a}]\n',
    });
    assert.deepEqual(suite.cases[0].vars, { vars: { q: 'a' }, assert: [{ type: 'contains', value: 'a' }] });
    assert.match(suite.warnings[0].message, /is read as CSV-style rows here/);
  });

  it('reports a glob that matches nothing, a missing file and unsupported sources', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - file://nothing/*.yaml
  - file://missing.json
  - file://tests.txt
  - file://gen.py:make_tests
  - file://sheet.xlsx
  - https://docs.google.com/spreadsheets/d/abc
  - 42
`);
    assert.deepEqual(
      diags.map((d) => [d.line, d.message]),
      [
        [5, 'No test files found for path: file://nothing/*.yaml'],
        [6, 'test file missing.json: file not found'],
        [7, 'Unsupported file type for test file: tests.txt'],
        [8, 'test generator file://gen.py:make_tests: file not found'],
        [9, 'test file sheet.xlsx: file not found'],
        [
          10,
          'tests from the Google Sheet https://docs.google.com/spreadsheets/d/abc need network access (and Google credentials for a private sheet); assay reads suites offline and fetches nothing while loading one. Download it with File → Download → Comma-separated values (.csv) and use `tests: file://sheet.csv`',
        ],
        [11, 'tests[0] must be a mapping (a test case), got 42'],
      ],
    );
  });

  it('reports invalid JSON and JSONL with their positions', async () => {
    const diags = await errorsOf(
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - file://a.json\n  - file://b.jsonl\n',
      { 'a.json': '[\n  {"vars": {"q": 1}},\n  {"vars": }\n]\n', 'b.jsonl': '{"vars": {"q": 1}}\n{oops}\n' },
    );
    assert.deepEqual(
      diags.map((d) => [d.file.split('/').pop(), d.line]),
      [
        ['a.json', 3],
        ['b.jsonl', 2],
      ],
    );
    assert.match(diags[0].message, /^invalid JSON: /);
  });
});
