// Reports of the runs that break naive reporters: a run with no result at all, and a run where
// every job is an error (the provider refused every connection). Each report is still whole:
// the HTML opens and says what there is, the JUnit XML is valid, the Markdown counts right.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { browserMissing, launchBrowser } from '../support/browser.js';
import { repoRoot } from '../support/paths.js';
import { evalSuite } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const XSD = join(repoRoot, 'test', 'fixtures', 'junit', 'junit.xsd');
const noXmllint = spawnSync('xmllint', ['--version']).error ? 'no xmllint' : undefined;
const missing = browserMissing();
const tmp = tempDir('assay-edge-reports-');
const dirs = { empty: join(tmp.dir, 'empty'), errors: join(tmp.dir, 'errors') };
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;

/** A 127.0.0.1 port nothing listens on (a server was there a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const OUTPUTS = ['-o', 'r.html', '-o', 'r.xml', '-o', 'r.md'];

before(async () => {
  mkdirSync(dirs.empty);
  mkdirSync(dirs.errors);
  const empty = await evalSuite(
    dirs.empty,
    "prompts: ['hi {{x}}']\nproviders: [echo]\ntests:\n  - vars: { x: 1 }\n",
    ['--filter-pattern', 'matches-no-test', ...OUTPUTS],
  );
  assert.equal(empty.code, 0, empty.stderr);
  const port = await closedPort();
  const errors = await evalSuite(
    dirs.errors,
    `prompts: ['hi {{x}}']\nproviders:\n  - id: openai:chat:m\n    config: { apiBaseUrl: 'http://127.0.0.1:${port}/v1', apiKey: sk-test }\ntests:\n  - vars: { x: 1 }\n  - vars: { x: 2 }\n`,
    ['--max-retries', '0', ...OUTPUTS],
  );
  assert.equal(errors.code, 3, errors.stderr);
  if (!missing) browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  tmp.cleanup();
});

describe('reports of edge runs', () => {
  it('JUnit of an empty run and of an all-error run is valid, with the errors as <error>', {
    skip: noXmllint,
  }, () => {
    for (const dir of [dirs.empty, dirs.errors]) {
      const r = spawnSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'r.xml')], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    const xml = readFileSync(join(dirs.errors, 'r.xml'), 'utf8');
    assert.equal(xml.match(/<error message="[^"]*ECONNREFUSED/g)?.length, 2);
    assert.match(readFileSync(join(dirs.empty, 'r.xml'), 'utf8'), /<testsuites [^>]*tests="0"/);
  });

  it('Markdown counts them', () => {
    assert.match(
      readFileSync(join(dirs.empty, 'r.md'), 'utf8'),
      /\*\*0 jobs\*\*: 0 passed · 0 failed · 0 errors/,
    );
    const md = readFileSync(join(dirs.errors, 'r.md'), 'utf8');
    assert.match(md, /^## ❌ /);
    assert.match(md, /\*\*2 jobs\*\*: 0 passed · 0 failed · 2 errors/);
    assert.equal(md.split('\n').filter((l) => l.startsWith('| ⚠️ error | x=')).length, 2);
  });

  it('the HTML of an empty run says so; of an all-error run, shows why each failed', {
    skip: missing,
  }, async () => {
    assert.ok(browser);
    const page = await browser.context.newPage();
    await page.goto(`file://${join(dirs.empty, 'r.html')}`);
    await page.waitForSelector('html[data-ready="true"]');
    assert.equal(await page.locator('#summary').innerText(), 'This run has no results.');
    await page.goto(`file://${join(dirs.errors, 'r.html')}#status=error`);
    await page.waitForSelector('html[data-ready="true"]');
    assert.equal(await page.locator('[data-figure="error"] .value').innerText(), '2');
    assert.equal(await page.locator('.matrix td.error').count(), 2);
    await page.keyboard.press('j');
    const view = page.locator('#case-view');
    await view.waitFor({ state: 'visible' });
    assert.equal(await view.locator('h2').innerText(), 'x=1');
    assert.match(await view.locator('pre.reason').innerText(), /ECONNREFUSED/);
    assert.equal(await view.locator('pre.output').innerText(), '(no output)');
    await page.close();
  });
});
