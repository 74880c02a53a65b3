// Excel test files (§1.4): workbooks are written by the test with the same library that reads them.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import * as XLSX from '@e965/xlsx';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { ENV, loadErrors, plain, writeSuite } from './helpers.js';

type Sheet = unknown[][];

/** A workbook's bytes, one sheet per entry, in order. */
function workbook(sheets: Record<string, Sheet>): Buffer {
  const book = XLSX.utils.book_new();
  for (const [name, rows] of Object.entries(sheets)) {
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), name);
  }
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

/** Writes a config whose `tests` is `ref`, plus the workbook `t.xlsx`; returns the config path. */
function suiteWith(tests: string, sheets: Record<string, Sheet>): string {
  const path = writeSuite({
    'promptfooconfig.yaml': `prompts: ["{{q}}"]\nproviders: [echo]\ntests: ${tests}\n`,
  });
  writeFileSync(join(dirname(path), 't.xlsx'), workbook(sheets));
  return path;
}

const SHEETS: Record<string, Sheet> = {
  First: [
    ['q', '__expected'],
    ['one', 'contains:one'],
  ],
  Second: [
    ['q', '__expected', '__description'],
    ['two', 'icontains:TWO', 'named'],
    ['three', '', ''],
  ],
};

describe('XLSX test files (§1.4)', () => {
  it('reads the first sheet by default, with CSV row rules and Row #n descriptions', async () => {
    const suite = await loadPromptfooSuite(suiteWith('file://t.xlsx', SHEETS), { env: ENV });
    assert.deepEqual(
      suite.cases.map((c) => [c.vars.q, c.description]),
      [['one', 'Row #1']],
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'contains', value: 'one' }]);
    assert.ok(suite.source.files?.includes('t.xlsx'), 'the workbook counts in the content hash');
  });

  it('drops a row whose cells are all empty, as promptfoo does', async () => {
    const sheets = {
      S: [
        ['q', '__expected'],
        ['a', ''],
        ['', ''],
        ['b', 'contains:b'],
      ],
    };
    const suite = await loadPromptfooSuite(suiteWith('file://t.xlsx', sheets), { env: ENV });
    assert.deepEqual(
      suite.cases.map((c) => [c.vars.q, c.description, c.provenance?.source?.line]),
      [
        ['a', 'Row #1', 2],
        ['b', 'Row #2', 4],
      ],
    );
  });

  it('selects a sheet by name or by 1-based index, and positions rows at their sheet row', async () => {
    for (const ref of ['file://t.xlsx#Second', 'file://t.xlsx#2']) {
      const suite = await loadPromptfooSuite(suiteWith(ref, SHEETS), { env: ENV });
      assert.deepEqual(
        suite.cases.map((c) => [c.vars.q, c.description, c.asserts.map((a) => a.type)]),
        [
          ['two', 'named', ['icontains']],
          ['three', 'Row #2', []],
        ],
        ref,
      );
      assert.deepEqual(
        suite.cases.map((c) => [c.provenance?.source?.file.split('/').pop(), c.provenance?.source?.line]),
        [
          ['t.xlsx#Second', 2],
          ['t.xlsx#Second', 3],
        ],
      );
    }
  });

  it('reads workbooks listed among other tests and given as {path}', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml':
        'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: inline}\n  - file://t.xlsx#Second\n  - path: file://t.xlsx\n',
    });
    writeFileSync(join(dirname(path), 't.xlsx'), workbook(SHEETS));
    const suite = await loadPromptfooSuite(path, { env: ENV });
    assert.deepEqual(
      suite.cases.map((c) => c.vars.q),
      ['inline', 'two', 'three', 'one'],
    );
  });

  it('keeps cell types as the sheet has them: numbers, booleans, dates as serial numbers', async () => {
    const sheets = {
      S: [
        ['q', 'n', 'flag', 'day', '__expected', '__threshold'],
        ['x', 42, true, new Date(Date.UTC(2024, 0, 1)), 7, 0.5],
      ],
    };
    const suite = await loadPromptfooSuite(suiteWith('file://t.xlsx', sheets), { env: ENV });
    const [c] = suite.cases;
    assert.equal(c.vars.n, 42);
    assert.equal(c.vars.flag, true);
    // promptfoo reads without cellDates, so a date is its Excel serial day number.
    assert.equal(typeof c.vars.day, 'number');
    assert.equal(Math.floor(c.vars.day as number), 45292);
    // A numeric __expected cell is read as its text.
    assert.deepEqual(plain(c.asserts), [{ type: 'equals', value: '7' }]);
    assert.equal(c.scoring?.threshold, 0.5);
  });

  it('names the file and the sheets available for a bad sheet name or index', async () => {
    const byName = await loadErrors(suiteWith('file://t.xlsx#Third', SHEETS));
    assert.deepEqual(
      byName.map((d) => d.message),
      ['test file t.xlsx: sheet "Third" not found; the sheets are "First", "Second"'],
    );
    assert.equal(byName[0].line, 3);
    const byIndex = await loadErrors(suiteWith('file://t.xlsx#3', SHEETS));
    assert.deepEqual(
      byIndex.map((d) => d.message),
      ['test file t.xlsx: sheet index 3 is out of range: the workbook has 2 sheets (1-2): "First", "Second"'],
    );
  });

  it('refuses an empty sheet, a sheet of empty cells, a missing file and a file that is not a workbook', async () => {
    const empty = await loadErrors(suiteWith('file://t.xlsx#2', { A: [['q']], B: [] }));
    assert.deepEqual(
      empty.map((d) => d.message),
      ['sheet "B" of t.xlsx is empty or contains no data rows'],
    );
    const blank = await loadErrors(
      suiteWith('file://t.xlsx', {
        A: [
          ['q', 'r'],
          ['', ' '],
        ],
      }),
    );
    assert.deepEqual(
      blank.map((d) => d.message),
      ['sheet "A" of t.xlsx contains only empty cells below its headers'],
    );
    const missing = await loadErrors(suiteWith('file://other.xlsx', SHEETS));
    assert.deepEqual(
      missing.map((d) => d.message),
      ['test file other.xlsx: file not found'],
    );
    const path = writeSuite({
      'promptfooconfig.yaml': 'prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://bad.xlsx\n',
      'bad.xlsx': 'PK\u0003\u0004 not really a zip',
    });
    const bad = await loadErrors(path);
    assert.equal(bad.length, 1);
    assert.match(bad[0].message, /^test file bad\.xlsx is not a readable Excel workbook: /);
  });
});
