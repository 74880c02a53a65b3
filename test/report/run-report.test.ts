// Every eval writes its run's report.html and ends by printing its file:// link: after the summary
// and its failure list, so a failing run points at where to look. The page is the one `assay report
// --format html` writes for the same run.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { scorecardOfRun } from '../../src/analysis/scorecard.js';
import { writeRunReport } from '../../src/cli/outputs.js';
import { runCli } from '../support/cli.js';
import { CAPITALS, evalSuite } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-run-report-');
after(() => tmp.cleanup());

describe('the report of every run', () => {
  it('is written into the run directory and its link is the last line, after the failures', async () => {
    const dir = join(tmp.dir, 'capitals');
    mkdirSync(dir);
    const run = await evalSuite(dir, CAPITALS);
    assert.equal(run.code, 1, run.stderr);
    const page = join(run.runDir, 'report.html');
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.at(-1), `Report: ${pathToFileURL(page).href}`);
    // The failure list (a failing case's name) comes before the link.
    const failure = run.stdout.indexOf('capital of Japan');
    assert.ok(failure >= 0 && failure < run.stdout.lastIndexOf('Report: '), run.stdout);
    const html = readFileSync(page, 'utf8');
    assert.match(html, /^<!doctype html>/);
    const again = await runCli(['report', run.runDir, '-o', join(tmp.dir, 'again.html')]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(readFileSync(join(tmp.dir, 'again.html'), 'utf8'), html);
  });

  it('--no-report writes none and prints no link', async () => {
    const dir = join(tmp.dir, 'no-report');
    mkdirSync(dir);
    const run = await evalSuite(dir, CAPITALS, ['--no-report']);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(existsSync(join(run.runDir, 'report.html')), false);
    assert.doesNotMatch(run.stdout, /^Report: /m);
  });

  it('a run of more results than a page can hold gets none, and is told how to write it', async () => {
    const dir = join(tmp.dir, 'large');
    mkdirSync(dir);
    const run = await evalSuite(dir, CAPITALS, ['--no-report']);
    const card = await scorecardOfRun(run.runDir);
    // The limit lowered below this run's size stands for a run of 200,000 results.
    const written = await writeRunReport(run.runDir, card, card.counts.total - 1);
    assert.equal(written, undefined);
    assert.equal(existsSync(join(run.runDir, 'report.html')), false);
    assert.ok(await writeRunReport(run.runDir, card, card.counts.total));
    assert.ok(existsSync(join(run.runDir, 'report.html')));
  });
});
