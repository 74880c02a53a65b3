// The reports a program gets from the library (the package entry) are the CLI's: a run made with
// evaluate() and rendered with the exported renderers and writeReport matches, byte for byte, what
// `assay report` prints or writes for the same run.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  evaluate,
  outputFormatNames,
  readManifest,
  renderMarkdown,
  renderSummary,
  scorecardOfRun,
  writeHtmlReport,
  writeJunit,
  writeReport,
} from '../../src/index.js';
import { runCli } from '../support/cli.js';
import { CAPITALS } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-library-renderers-');
after(() => tmp.cleanup());

let runDir: string;

before(async () => {
  const suite = join(tmp.dir, 'promptfooconfig.yaml');
  writeFileSync(suite, CAPITALS);
  const run = await evaluate({ suitePath: suite, runsDir: join(tmp.dir, 'runs'), cache: false });
  runDir = run.runDir;
});

/** Streams a renderer into a file and reads it back. */
async function streamed(write: (out: Writable) => Promise<void>): Promise<string> {
  const file = join(tmp.dir, `streamed-${Math.random().toString(16).slice(2)}`);
  const out = createWriteStream(file);
  await write(out);
  out.end();
  await once(out, 'close');
  return readFileSync(file, 'utf8');
}

describe('the library renderers', () => {
  it('console and Markdown: the text assay report prints', async () => {
    const manifest = readManifest(runDir);
    const card = await scorecardOfRun(runDir);
    const cli = await runCli(['report', runDir]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(renderSummary(manifest, card, runDir, { color: false }), cli.stdout);
    const md = await runCli(['report', runDir, '--format', 'markdown']);
    assert.equal(md.code, 0, md.stderr);
    assert.equal(renderMarkdown(manifest, card), md.stdout);
    assert.match(md.stdout, /Capitals \(report test\)/);
  });

  it('JUnit and HTML: the files assay report writes, by writeReport and by the streaming renderers', async () => {
    const card = await scorecardOfRun(runDir);
    const junit = await runCli(['report', runDir, '--format', 'junit']);
    assert.equal(junit.code, 0, junit.stderr);
    assert.match(junit.stdout, /^<\?xml/);
    const written = await writeReport(runDir, join(tmp.dir, 'lib.xml'));
    assert.deepEqual(written, [join(tmp.dir, 'lib.xml')]);
    assert.equal(readFileSync(written[0], 'utf8'), junit.stdout);
    assert.equal(await streamed((out) => writeJunit(runDir, card, out)), junit.stdout);

    const html = await runCli(['report', runDir, '-o', join(tmp.dir, 'cli.html')]);
    assert.equal(html.code, 0, html.stderr);
    const cliHtml = readFileSync(join(tmp.dir, 'cli.html'), 'utf8');
    assert.match(cliHtml, /^<!doctype html>/);
    await writeReport(runDir, join(tmp.dir, 'lib.html'));
    assert.equal(readFileSync(join(tmp.dir, 'lib.html'), 'utf8'), cliHtml);
    assert.equal(await streamed((out) => writeHtmlReport(runDir, card, out)), cliHtml);
  });

  it('writeReport takes any registered format by name (csv-raw), and the names are listed', async () => {
    assert.ok(outputFormatNames().includes('csv-raw'));
    const [file] = await writeReport(runDir, join(tmp.dir, 'rows.txt'), { format: 'csv-raw' });
    const cli = await runCli(['report', runDir, '--format', 'csv-raw']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(readFileSync(file, 'utf8'), cli.stdout);
    assert.match(cli.stdout, /^key,caseId,description/);
  });
});
