// `vars: file://…` (a whole vars map from files, §1.5) and PDF var values (§2.3).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { ENV, errorsOf, loadText, writeSuite } from './helpers.js';

const HEAD = 'prompts: ["{{q}}"]\nproviders: [echo]\n';

/** A one-page PDF showing `text` in Helvetica, with a correct cross-reference table. */
function minimalPdf(text: string): string {
  const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  return `${pdf}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}

describe('vars from files (§1.5)', () => {
  it('reads a vars map from a file, and merges a list of files in order (later wins)', async () => {
    const suite = await loadText(
      `${HEAD}tests:\n  - vars: file://vars/base.yaml\n  - vars: [file://vars/base.yaml, vars/over.json]\n`,
      { 'vars/base.yaml': 'q: base\nlang: en\n', 'vars/over.json': '{"q": "over"}' },
    );
    assert.deepEqual(
      suite.cases.map((c) => c.vars),
      [
        { q: 'base', lang: 'en' },
        { q: 'over', lang: 'en' },
      ],
    );
  });

  it('expands a glob in sorted order and resolves paths against the test file’s folder', async () => {
    const suite = await loadText(`${HEAD}tests: file://cases/tests.yaml\n`, {
      'cases/tests.yaml': '- vars: file://v/*.yaml\n',
      'cases/v/a.yaml': 'q: a\nonly_a: 1\n',
      'cases/v/b.yaml': 'q: b\n',
    });
    assert.deepEqual(suite.cases[0].vars, { q: 'b', only_a: 1 });
  });

  it('still expands list vars and loads file:// values from a vars file', async () => {
    const suite = await loadText(`${HEAD}tests:\n  - vars: file://vars.yaml\n`, {
      'vars.yaml': 'q: [x, y]\ndoc: file://doc.txt\n',
      'doc.txt': ' text \n',
    });
    assert.deepEqual(
      suite.cases.map((c) => c.vars),
      [
        { q: 'x', doc: 'text' },
        { q: 'y', doc: 'text' },
      ],
    );
  });

  it('reports a missing file, a glob with no match and a file that is not a mapping', async () => {
    const diags = await errorsOf(
      `${HEAD}tests:\n  - vars: file://missing.yaml\n  - vars: file://none/*.yaml\n  - vars: file://list.yaml\n`,
      { 'list.yaml': '- a\n- b\n' },
    );
    assert.deepEqual(
      diags.map((d) => `${d.file.split('/').pop()}:${d.line} ${d.message}`),
      [
        'promptfooconfig.yaml:4 vars file missing.yaml: file not found',
        'promptfooconfig.yaml:5 no vars files match file://none/*.yaml',
        'list.yaml:1 a vars file must hold a mapping of var names to values, got ["a","b"]',
      ],
    );
  });
});

describe('PDF vars (§2.3)', () => {
  it('gives a file://doc.pdf var the text of the document, with pdf-parse 2’s page markers', async () => {
    const suite = await loadText(`${HEAD}tests:\n  - vars: {q: file://doc.pdf}\n`, {
      'doc.pdf': minimalPdf('Quarterly revenue grew 12 percent'),
    });
    assert.equal(suite.cases[0].vars.q, 'Quarterly revenue grew 12 percent\n\n-- 1 of 1 --');
    assert.ok(suite.source.files?.includes('doc.pdf'));
  });

  it('gives the raw text with PROMPTFOO_DISABLE_PDF_AS_TEXT, and reports a broken PDF at the var', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `${HEAD}tests:\n  - vars: {q: file://doc.pdf}\n`,
      'doc.pdf': minimalPdf('Hello'),
    });
    const raw = await loadPromptfooSuite(path, { env: { ...ENV, PROMPTFOO_DISABLE_PDF_AS_TEXT: 'true' } });
    assert.match(String(raw.cases[0].vars.q), /^%PDF-1\.4\n/);

    const diags = await errorsOf(`${HEAD}tests:\n  - vars: {q: file://doc.pdf}\n`, {
      'doc.pdf': '%PDF-1.4\ngarbage',
    });
    assert.equal(diags.length, 1);
    assert.match(diags[0].message, /^var "q": file doc\.pdf: not a readable PDF: /);
    assert.equal(diags[0].line, 4);
  });
});
