// Configs whose rows promptfoo 0.123.1 wrote are recorded beside them (expected.json, by
// scripts/promptfoo-http-record.js <dir>): assay runs each with the real CLI and must write the same
// rows — provider, output, error and verdict per test.
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../../support/cli.js';
import { type RecordedRow, recordedRow } from '../../support/http-record.js';
import { repoRoot } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-recorded-');
after(() => tmp.cleanup());

const key = (row: RecordedRow) => `${row.provider}/${row.prompt}/${row.description}`;

/** Runs the fixture `name` with assay and returns its rows and the CLI's exit and stderr. */
async function assayRows(name: string): Promise<{ rows: RecordedRow[]; code: number; stderr: string }> {
  const dir = join(tmp.dir, name);
  cpSync(join(repoRoot, 'test', 'fixtures', 'promptfoo', name), dir, { recursive: true });
  const out = join(dir, 'out.json');
  const r = await runCli(
    [
      'eval',
      'promptfooconfig.yaml',
      '--no-progress',
      '-j',
      '1',
      '--runs-dir',
      join(dir, 'runs'),
      '--output-format',
      'promptfoo',
      '-o',
      out,
    ],
    { cwd: dir },
  );
  let rows: RecordedRow[] = [];
  try {
    rows = JSON.parse(readFileSync(out, 'utf8')).results.results.map((row: unknown) => recordedRow(row, ''));
  } catch {
    // no output: the caller asserts on the exit code
  }
  return { rows, code: r.code, stderr: r.stderr };
}

function expectedRows(name: string): RecordedRow[] {
  return JSON.parse(
    readFileSync(join(repoRoot, 'test', 'fixtures', 'promptfoo', name, 'expected.json'), 'utf8'),
  ).rows as RecordedRow[];
}

/** assay's rows against promptfoo's: the same rows, outputs, errors (the text after each tool's prefix) and verdicts. */
export function assertSameRows(
  got: RecordedRow[],
  want: RecordedRow[],
  fields: ('vars' | 'testVars')[] = [],
): void {
  const sorted = (rows: RecordedRow[]) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));
  const g = sorted(got);
  const w = sorted(want);
  assert.deepEqual(g.map(key), w.map(key));
  for (const [i, row] of w.entries()) {
    assert.equal(g[i].success, row.success, `${key(row)}: success`);
    if (row.error !== undefined) {
      // assay names the assertion in front of a scorer's error (`contains: …`); promptfoo names the class.
      const text = row.error.replace(/^Error: /, '');
      assert.ok(
        g[i].error?.endsWith(text),
        `${key(row)}: error ${JSON.stringify(g[i].error)}, promptfoo ${JSON.stringify(text)}`,
      );
    } else {
      assert.equal(g[i].error, undefined, `${key(row)}: error`);
      assert.equal(g[i].output, row.output, `${key(row)}: output`);
    }
    for (const field of fields) assert.deepEqual(g[i][field], row[field], `${key(row)}: ${field}`);
  }
}

describe('rows as promptfoo 0.123.1 wrote them', { timeout: 300_000 }, () => {
  it('python:file.py[:function] providers: promptfoo names, default function and options', async () => {
    const { rows, code, stderr } = await assayRows('python-id');
    assert.equal(code, 0, stderr);
    assertSameRows(rows, expectedRows('python-id'));
  });
});

describe('config habits promptfoo 0.123.1 tolerates', { timeout: 300_000 }, () => {
  it('runs them as promptfoo does: list values error their rows only, is-json false, a throwing script', async () => {
    const { rows, code, stderr } = await assayRows('habits');
    assert.equal(code, 3, stderr); // error rows; promptfoo exits 100
    assertSameRows(rows, expectedRows('habits'));
    // Said, not refused: each habit is a warning on its line.
    assert.match(
      stderr,
      /promptfooconfig\.yaml:8:1: warning: unknown top-level key "questions" is ignored\n/,
    );
    assert.match(stderr, /promptfooconfig\.yaml:10:1: warning: unknown top-level key "vars" is ignored/);
    assert.match(
      stderr,
      /promptfooconfig\.yaml:7:13: warning: results file "\.\/output" has no extension, so it is not written/,
    );
    assert.match(
      stderr,
      /promptfooconfig\.yaml:15:7: warning: a grader `provider` without an `id` is ignored/,
    );
    assert.match(
      stderr,
      /:20:14: warning: tests\[0\]\.assert\[0\]: not-contains has a list value: each of its rows is an error, as in promptfoo/,
    );
  });

  it('labels prompt files with the path as written and spells file:// vars as promptfoo does', async () => {
    const { rows, code, stderr } = await assayRows('labels');
    assert.equal(code, 0, stderr);
    assertSameRows(rows, expectedRows('labels'), ['vars', 'testVars']);
    assert.ok(!JSON.stringify(rows).includes(tmp.dir), 'no absolute path of this machine in the rows');
  });
});

describe('configs promptfoo 0.123.1 refuses', { timeout: 300_000 }, () => {
  it('a bare `openai` provider: refused before any call, positioned, as promptfoo refuses it', async () => {
    const recorded = JSON.parse(
      readFileSync(join(repoRoot, 'test', 'fixtures', 'promptfoo', 'bare-openai', 'expected.json'), 'utf8'),
    );
    assert.match(recorded.refused, /Could not identify provider: openai/);
    const { code, stderr } = await assayRows('bare-openai');
    assert.equal(code, 2, stderr);
    assert.match(
      stderr,
      /promptfooconfig\.yaml:2:\d+: unknown provider "openai": name a model, as promptfoo requires too/,
    );
  });
});
