// The per-row fast path of CSV test files (csv.ts, CsvRowTests): a plain header's rows give exactly
// the tests, assertions and diagnostics the general path gives (testFromCsvRow, then parseTest);
// any other header is handed back to the general path whole.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DiagnosticBag } from '../../../src/core/errors.js';
import type { LoadContext } from '../../../src/formats/promptfoo/context.js';
import { csvTextTests } from '../../../src/formats/promptfoo/csv.js';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { SuiteFiles } from '../../../src/formats/promptfoo/source.js';
import { parseTest } from '../../../src/formats/promptfoo/test-case.js';
import { ENV, writeSuite } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-csv-rows-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'check.js'), 'module.exports = (output) => output.length > 0;\n');
writeFileSync(join(dir, 'score.py'), 'def get_assert(output, context):\n    return True\n');

/** Every kind of `__expected` cell the mini-language knows, and some it refuses. */
const CELLS = [
  'contains:x',
  'icontains:WRITE ONE',
  String.raw`regex:about \d+ of \d+\.$`,
  'not-contains:y',
  'equals:z',
  'plain text is equals',
  '  padded:  ',
  'similar(.8):hi',
  'levenshtein:hello',
  'levenshtein(2):hello',
  'not-levenshtein:hello',
  'rouge-n(0.5):some text',
  'contains-any: a, b ,c',
  'contains:a, b, c',
  'icontains:"quoted", "list"',
  'icontains-all:a,b',
  'is-json',
  'not-is-json',
  'latency:500',
  'starts-with:Wr',
  'javascript: output.length > 0',
  'fn:output.includes("x")',
  'eval: true',
  'file://check.js',
  'file://missing.js',
  'python: len(output) > 0',
  'file://score.py',
  'grade: is polite',
  'llm-rubric: is polite',
  'contains:{{q}}',
  'contains:{{ q',
  'regex:(',
  'no-such-type:x',
];

/** A CSV cell, quoted when it must be. */
const cell = (text: string): string => (/[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

function context(): LoadContext {
  return { bag: new DiagnosticBag(), files: new SuiteFiles(dir), env: {} };
}

/**
 * Each row of `text` as parseTest gives it (positions resolved, so the two ways compare), with the
 * diagnostics, read the fast way and the general way; and how many rows took the fast way.
 */
function bothWays(text: string) {
  const read = (general: boolean) => {
    const ctx = context();
    const tests = csvTextTests(ctx, text, 't.csv', { general });
    const warnings = { varsAssert: false };
    const parsed = tests.map((t, i) => {
      const p = parseTest(ctx, t, `tests[${i}]`, false, warnings);
      return p && { ...p, at: p.at() };
    });
    const diagnostics = [...ctx.bag.errors, ...ctx.bag.warnings];
    return { parsed, diagnostics, fast: tests.filter((t) => 'parsed' in t).length };
  };
  return { fast: read(false), general: read(true) };
}

function assertSameBothWays(text: string, fastRows: number): void {
  const { fast, general } = bothWays(text);
  assert.equal(general.fast, 0);
  assert.equal(fast.fast, fastRows, 'rows read the fast way');
  assert.deepStrictEqual(fast.parsed, general.parsed);
  assert.deepStrictEqual(fast.diagnostics, general.diagnostics);
}

describe('CSV rows: the fast path gives what the general path gives', () => {
  it('every kind of __expected cell, repeated across rows, with descriptions and metadata', () => {
    const header = 'q,__expected1,__expected2,__description,__metadata:topic,__metadata:tags[],notes';
    const rows = CELLS.flatMap((c, i) => [
      [`q${i}`, c, 'contains:x', i % 3 === 0 ? '' : `row ${i}`, i % 2 ? 'math' : '', 'a\\,b, c', ''],
      // The same cell again (the cache), in the other column, and blank cells.
      [`q${i}b`, '', c, '', '', '', `n${i}`],
      // A cell's problem names its place in the row's list (`tests[5].assert[1]`).
      [`q${i}c`, 'contains:x', c, '', '', '', ''],
    ]);
    const text = `${[header, ...rows.map((r) => r.map(cell).join(','))].join('\n')}\n`;
    assertSameBothWays(text, rows.length);
    // Not vacuous: the cells gave assertions and problems.
    const { fast } = bothWays(text);
    assert.ok(fast.parsed.some((p) => (p?.asserts?.length ?? 0) === 2));
    assert.ok(fast.diagnostics.some((d) => d.message.includes('missing.js')));
    assert.ok(
      fast.diagnostics.some((d) => d.message.includes('no-such-type') || d.message.includes('regex')),
    );
  });

  it('quoted cells, a quoted cell over several lines, CRLF, a byte-order mark, relaxed quotes', () => {
    const texts = [
      'q,__expected\n"a, quoted ""cell""",contains:a\nplain,"contains:x, y"\n',
      'q,__expected\n"multi\nline",contains:multi\nnext,icontains:NEXT\n',
      'q,__expected\r\none,contains:one\r\ntwo,contains:two\r\n',
      '\ufeffq,__expected\none,contains:one\n',
      'q,__expected\nHe said "hi",contains:hi\nplain,contains:plain\n',
      'q,__expected\n,\n,\n',
      'q,__expected\n',
      'q,__expected\nlast,contains:last',
    ];
    for (const text of texts) {
      const rows = Math.max(0, csvTextTests(context(), text, 't.csv', { general: true }).length);
      assertSameBothWays(text, rows);
    }
  });

  it('warns about a column once when strict quotes fail part way and relaxed quotes read the file', () => {
    const text = 'q,_expected,__metadata\nfirst,x,m\nHe said "hi",y,m\n';
    for (const general of [false, true]) {
      const ctx = context();
      const tests = csvTextTests(ctx, text, 't.csv', { general });
      for (const [i, t] of tests.entries()) parseTest(ctx, t, `tests[${i}]`, false, { varsAssert: false });
      assert.equal(tests.length, 2);
      assert.deepStrictEqual(
        ctx.bag.warnings.map((w) => `${w.line} ${w.message.slice(0, 40)}`),
        ['1 You used a single underscore for the key', '1 The "__metadata" column requires a key, '],
      );
    }
  });

  it('var names and values: dots, unicode, constructor, __proto__, an empty name, numbers kept as text', () => {
    const text = [
      'q,a.b,constructor,__proto__,café,__metadata:tags[],__expected,',
      '0012,1.50,true,p,é,"a\\,b\\,c, d",contains:0012,',
      ' 1e3 ,-0,null,,  ,,"contains-any:""x, y"",,z",tail',
      'same,,,,,,contains:0012,',
    ].join('\n');
    assertSameBothWays(`${text}\n`, 3);
    const { fast } = bothWays(`${text}\n`);
    // promptfoo keeps CSV values as text; `__proto__` names no var (assignment cannot set it).
    assert.deepStrictEqual(fast.parsed[0]?.vars, {
      q: '0012',
      'a.b': '1.50',
      constructor: 'true',
      café: 'é',
      '': '',
    });
    assert.equal(fast.parsed[1]?.vars?.q, ' 1e3 ');
    assert.deepStrictEqual(fast.parsed[0]?.metadata, { tags: ['a,b,c', 'd'] });
  });

  it('hands back whole headers the fast path does not read', () => {
    const headers: [string, string][] = [
      ['q,__prefix,__expected', 'x,P: ,contains:x'],
      ['q,__suffix', 'x, S'],
      ['q,__providerOutput,__expected', 'x,out,contains:out'],
      ['q,__metric,__expected', 'x,acc,contains:x'],
      ['q,__threshold,__expected', 'x,0.5,contains:x'],
      ['q,__config:__expected:threshold,__expected', 'x,0.5,contains:x'],
      ['q,__config:bad,__expected', 'x,0.5,contains:x'],
      ['q,__metadata,__expected', 'x,m,contains:x'],
      ['q,_expected', 'x,contains:x'],
      ['q,_description', 'x,d'],
      ['assert,__expected', 'x,contains:x'],
      ['q,q,__expected', 'x,y,contains:x'],
      ['q, q ,__expected', 'x,y,contains:x'],
      ['q,__expected,__expected', 'x,contains:x,contains:y'],
    ];
    for (const [header, row] of headers) {
      const text = `${header}\n${row}\n${row}\n`;
      assertSameBothWays(text, 0);
    }
  });

  it('a suite read whole and streamed gives the same cases and ids', async () => {
    const rows = CELLS.filter((c) => !/missing|regex:\(|no-such|\{\{ q/.test(c)).map(
      (c, i) => `q${i},${cell(c)},contains:q,row ${i % 2 ? i : ''}`,
    );
    const config = writeSuite({
      'promptfooconfig.yaml': 'prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n',
      't.csv': `q,__expected1,__expected2,__description\n${rows.join('\n')}\n`,
      'check.js': 'module.exports = (output) => output.length > 0;\n',
      'score.py': 'def get_assert(output, context):\n    return True\n',
    });
    const whole = await loadPromptfooSuite(config, { env: ENV });
    const streamed = await loadPromptfooSuite(config, { env: ENV, streamAboveBytes: 0 });
    assert.ok(streamed.stream, 'streamed');
    const plain = (cases: typeof whole.cases) => cases.map((c) => JSON.parse(JSON.stringify(c)));
    assert.equal(whole.cases.length, rows.length);
    assert.deepStrictEqual(plain([...streamed.stream]), plain(whole.cases));
  });
});
