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

const key = (row: RecordedRow) => `${row.provider}/${row.description}`;

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

/** assay's rows against promptfoo's: the same rows, outputs, errors (promptfoo's `Error: ` prefix aside) and verdicts. */
export function assertSameRows(got: RecordedRow[], want: RecordedRow[]): void {
  const sorted = (rows: RecordedRow[]) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));
  const g = sorted(got);
  const w = sorted(want);
  assert.deepEqual(g.map(key), w.map(key));
  for (const [i, row] of w.entries()) {
    assert.equal(g[i].success, row.success, `${key(row)}: success`);
    if (row.error !== undefined)
      assert.equal(g[i].error, row.error.replace(/^Error: /, ''), `${key(row)}: error`);
    else {
      assert.equal(g[i].error, undefined, `${key(row)}: error`);
      assert.equal(g[i].output, row.output, `${key(row)}: output`);
    }
  }
}

describe('rows as promptfoo 0.123.1 wrote them', { timeout: 120_000 }, () => {
  it('python:file.py[:function] providers: promptfoo names, default function and options', async () => {
    const { rows, code, stderr } = await assayRows('python-id');
    assert.equal(code, 0, stderr);
    assertSameRows(rows, expectedRows('python-id'));
  });
});

describe('configs promptfoo 0.123.1 refuses', { timeout: 60_000 }, () => {
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
