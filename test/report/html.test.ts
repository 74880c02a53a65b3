// The HTML report in a real browser (Debian's Chromium through playwright-core), generated from
// real runs: the figures on the page are the scorecard's, the filters, search, case view and
// keyboard work, hostile model output stays text, and it reads at 1280×800, narrow, and printed.
// Screenshots are kept in test-artifacts/ (git-ignored) for a person to look at.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { wilson } from '../../src/analysis/stats.js';
import type { Scorecard } from '../../src/core/scorecard.js';
import { formatRate } from '../../src/report/console.js';
import { browserMissing, launchBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { CAPITALS, evalSuite, manyTests, XSS_IMG, XSS_SCRIPT } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const ARTIFACTS = join(repoRoot, 'test-artifacts');
const missing = browserMissing();
if (missing) process.stdout.write(`# HTML report browser tests skipped: ${missing}\n`);

const tmp = tempDir('assay-html-');
let capitals: { runDir: string; stdout: string; html: string; card: Scorecard };
let many: { html: string; card: Scorecard };
let pramana: { html: string; card: Scorecard };
let json: { html: string };
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
const pageErrors: string[] = [];

async function scorecard(dir: string, runDir: string): Promise<Scorecard> {
  const r = await runCli(['report', runDir, '--json'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Scorecard;
}

before(async () => {
  const a = join(tmp.dir, 'capitals');
  mkdirSync(a);
  const run = await evalSuite(a, CAPITALS, ['-o', 'report.html']);
  assert.equal(run.code, 1, run.stderr);
  capitals = { ...run, html: join(a, 'report.html'), card: await scorecard(a, run.runDir) };
  const b = join(tmp.dir, 'many');
  mkdirSync(b);
  const big = await evalSuite(b, manyTests(130, 4));
  // `assay report --format html` renders a past run into its run directory.
  const r = await runCli(['report', '--format', 'html'], { cwd: b });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Wrote .*report\.html/);
  many = { html: join(big.runDir, 'report.html'), card: await scorecard(b, big.runDir) };
  // A pramana suite: breakdowns by category and difficulty, and a model-graded assertion.
  const p = join(tmp.dir, 'pramana');
  mkdirSync(p);
  const pr = await runCli(
    [
      'eval',
      join(repoRoot, 'examples', 'pramana'),
      '--tier',
      'cheap',
      '-p',
      'echo',
      '--no-progress',
      '-o',
      'p.html',
    ],
    { cwd: p },
  );
  assert.equal(pr.code, 1, pr.stderr);
  const prRun = /Run written to (.*)/.exec(pr.stdout)?.[1] ?? '';
  pramana = { html: join(p, 'p.html'), card: await scorecard(p, prRun) };
  // A reply that is JSON (the echo of a JSON var), written compactly by the model.
  const j = join(tmp.dir, 'json');
  mkdirSync(j);
  const jr = await evalSuite(
    j,
    `prompts: ['{{payload}}']\nproviders: [echo]\ntests:\n  - vars:\n      payload: '{"b":[1,2],"a":"</pre><b>x</b>"}'\n    assert:\n      - type: is-json\n`,
    ['-o', 'j.html'],
  );
  assert.equal(jr.code, 0, jr.stderr);
  json = { html: join(j, 'j.html') };
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!missing) browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  tmp.cleanup();
});

async function open(file: string, hash = ''): Promise<Page> {
  assert.ok(browser);
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  // Nothing leaves the file: any request but the file itself fails the test.
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith('file://')) return route.continue();
    pageErrors.push(`network request: ${route.request().url()}`);
    return route.abort();
  });
  await page.goto(`file://${file}${hash}`);
  await page.waitForSelector('html[data-ready="true"]');
  return page;
}

/**
 * Waits until the matrix shows `n` rows. Polled from here: the page's content security policy
 * forbids evaluating strings in it, as it should (page.waitForFunction would need that).
 */
async function rowsAre(page: Page, n: number): Promise<void> {
  const rows = page.locator('.matrix tbody tr');
  for (let waited = 0; (await rows.count()) !== n; waited += 50) {
    if (waited > 10_000) assert.fail(`the matrix shows ${await rows.count()} rows, not ${n}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const figure = (page: Page, name: string): Promise<string> =>
  page.locator(`[data-figure="${name}"] .value`).innerText();

describe('the HTML report', { skip: missing }, () => {
  it('is one file with no network reference, its data escaped', () => {
    const text = readFileSync(capitals.html, 'utf8');
    assert.doesNotMatch(text, /<(?:link|img|iframe)\b|src=["']?https?:|@import/i);
    // The hostile reply is in the data only in escaped form: it cannot end the data's <script>.
    assert.ok(!text.includes(XSS_SCRIPT));
    assert.ok(!text.includes('<img src=x'));
    assert.ok(text.includes('\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned = 1'));
    assert.match(text, /Content-Security-Policy" content="default-src &#39;none&#39;;/);
  });

  it('shows the scorecard’s counts and pass rate, and each column’s', async () => {
    // A run with failures opens on them; `status=all` shows every test.
    const page = await open(capitals.html, '#status=all');
    const c = capitals.card.counts;
    assert.equal(await figure(page, 'total'), String(c.total));
    assert.equal(await figure(page, 'pass'), String(c.pass));
    assert.equal(await figure(page, 'fail'), String(c.fail));
    assert.equal(await figure(page, 'error'), String(c.error));
    assert.equal(await figure(page, 'skip'), String(c.skip));
    const rate = capitals.card.passRate;
    const pct = (x: number): string => (x * 100).toFixed(1);
    assert.equal(await figure(page, 'passRate'), `${pct(rate.value)}% (${pct(rate.low)}–${pct(rate.high)}%)`);
    const heads = await page.locator('.matrix .col-head').allInnerTexts();
    assert.equal(heads.length, capitals.card.cells.length);
    for (const cell of capitals.card.cells)
      assert.ok(
        heads.some((h) => h.includes(cell.promptLabel) && h.includes(`${cell.pass} pass, ${cell.fail} fail`)),
        `${cell.promptLabel} in ${heads.join(' | ')}`,
      );
    // Every job is a cell, coloured by its status: the page's tally is the scorecard's.
    assert.equal(await page.locator('.matrix td.pass').count(), c.pass);
    assert.equal(await page.locator('.matrix td.fail').count(), c.fail);
    // Cases are named by their description with its vars filled in, the id beside it.
    const names = await page.locator('.matrix .case-name').allInnerTexts();
    assert.deepEqual(names.slice(0, 3), ['capital of France', 'capital of Japan', 'capital of Peru']);
    assert.match(names[4], /^country=\{"a": \[1, 2\], "b": "json"\}$/);
    await page.screenshot({ path: join(ARTIFACTS, 'report-1280x800.png'), fullPage: true });
    await page.close();
    assert.deepEqual(pageErrors, []);
  });

  it('a click on “failures” shows only failing tests, and the link keeps the view', async () => {
    const page = await open(capitals.html);
    await page.getByLabel('failures').check();
    const rows = page.locator('.matrix tbody tr');
    const failingTests = new Set(capitals.card.failures.map((f) => f.caseId)).size;
    assert.equal(await rows.count(), failingTests);
    for (const row of await rows.all()) assert.ok((await row.locator('td.fail, td.error').count()) > 0);
    assert.equal(await page.locator('.matrix td.pass').count(), 0);
    assert.match(page.url(), /#status=fail$/);
    // The same link opened afresh shows the same view.
    const again = await open(capitals.html, '#status=fail');
    assert.equal(await again.locator('.matrix tbody tr').count(), failingTests);
    assert.equal(await again.getByLabel('failures').isChecked(), true);
    await page.close();
    await again.close();
  });

  it('search finds a case by its vars, outputs and reasons; metadata narrows', async () => {
    const page = await open(capitals.html, '#status=all');
    await page.locator('#search').fill('peru');
    await page.waitForURL(/q=peru/);
    await rowsAre(page, 1);
    assert.equal(await page.locator('.matrix .case-name').innerText(), 'capital of Peru');
    await page.locator('#search').fill('expected output to contain "tokyo"');
    await page.waitForURL(/q=expected/);
    await rowsAre(page, 1);
    assert.equal(await page.locator('.matrix .case-name').innerText(), 'capital of Japan');
    assert.match(page.url(), /q=expected/);
    await page.locator('#search').fill('');
    await page.locator('#meta').selectOption({ label: 'region=asia (1)' });
    await page.waitForURL(/meta=%5B%22region%22%2C%22asia%22%5D/);
    await rowsAre(page, 1);
    assert.equal(await page.locator('.matrix .case-name').innerText(), 'capital of Japan');
    // Keys and values may hold '=': the filter still finds exactly their cases.
    await page.locator('#meta').selectOption({ label: 'a=b=c=d (1)' });
    await page.waitForURL(/a%3Db/);
    await page.locator('.matrix .case-name', { hasText: 'capital of France' }).waitFor();
    await rowsAre(page, 1);
    await page.close();
  });

  it('the case view shows messages, output, every verdict and where the test is written', async () => {
    const page = await open(capitals.html, '#status=all');
    await page.locator('.matrix tbody tr').nth(2).locator('button.cell').first().click();
    const view = page.locator('#case-view');
    await view.waitFor({ state: 'visible' });
    assert.equal(await view.locator('h2').innerText(), 'capital of Peru');
    assert.match(await view.locator('.where').innerText(), /promptfooconfig\.yaml:\d+/);
    const verdicts = await view.locator('.verdicts tbody tr').allInnerTexts();
    assert.equal(verdicts.length, 2);
    // Each verdict shows what the assertion expected.
    assert.match(verdicts[0], /fail\s+icontains\s+lima\s+0\.000\s+—\s+Expected output to contain "lima"/);
    assert.match(verdicts[1], /fail\s+javascript\s+output\.length < 5\s/);
    assert.equal(await view.locator('.msg pre').first().innerText(), 'What is the capital of Peru?');
    assert.equal(await view.locator('pre.output').innerText(), 'What is the capital of Peru?');
    await page.screenshot({ path: join(ARTIFACTS, 'report-case-view.png') });
    // A JSON output is pretty-printed (it is not JSON here: the echo wraps it in the question).
    await page.keyboard.press('Escape');
    await view.waitFor({ state: 'hidden' });
    await page.close();
  });

  it('keeps a hostile reply inert and shows it as text', async () => {
    const page = await open(capitals.html, '#status=all');
    await page.locator('#search').fill('pwned');
    await page.waitForURL(/q=pwned/);
    await rowsAre(page, 1);
    await page.locator('button.cell').first().click();
    const output = await page.locator('#case-view pre.output').innerText();
    assert.ok(output.includes(XSS_SCRIPT + XSS_IMG), output);
    assert.equal(await page.evaluate('window.__pwned'), undefined);
    // No element the reply names exists: it is text, not markup.
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('script').count(), 2);
    await page.close();
    assert.deepEqual(pageErrors, []);
  });

  it('j and k step through the failures, Escape closes the case', async () => {
    const page = await open(capitals.html);
    await page.keyboard.press('j');
    const title = page.locator('#case-view h2');
    await title.waitFor();
    assert.equal(await title.innerText(), 'capital of Japan');
    await page.keyboard.press('Escape');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal(await title.innerText(), 'capital of Peru');
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    assert.equal(await title.innerText(), 'capital of Japan');
    assert.match(page.url(), /case=1\.0/);
    await page.keyboard.press('Escape');
    await page.locator('#case-view').waitFor({ state: 'hidden' });
    await page.close();
  });

  it('pages a large run and keeps the page in the link', async () => {
    const page = await open(many.html, '#status=all');
    assert.equal(await page.locator('.matrix tbody tr').count(), 50);
    assert.match(await page.locator('#pager').innerText(), /Page 1 of 3/);
    await page.getByRole('button', { name: 'Next ›' }).click();
    assert.match(await page.locator('#pager').innerText(), /Page 2 of 3/);
    assert.match(page.url(), /page=2/);
    assert.equal(await page.locator('.matrix .case-name').first().innerText(), 'item 50');
    await page.getByLabel('failures').check();
    assert.equal(await page.locator('.matrix tbody tr').count(), many.card.counts.fail);
    // The suite declares no breakdown: its cases' metadata (category c0–c2) is broken down.
    assert.equal(many.card.breakdowns, undefined);
    const chart = page.locator('.breakdowns figure.chart');
    assert.equal(await chart.locator('figcaption').innerText(), 'Pass rate by category (95% CI)');
    const expected = [0, 1, 2].map((c) => {
      const items = [...Array(130).keys()].filter((i) => i % 3 === c);
      const passed = items.filter((i) => i % 4 !== 0).length;
      return `c${c}: ${formatRate(wilson(passed, items.length))} · ${passed}/${items.length}`;
    });
    assert.deepEqual(await chart.locator('svg g > title').allTextContents(), expected);
    await page.close();
  });

  it('reads on a narrow window and prints without its controls', async () => {
    const page = await open(capitals.html);
    await page.setViewportSize({ width: 400, height: 800 });
    // The page does not scroll sideways; the matrix scrolls inside its own box.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(overflow <= 1, `page is ${overflow}px wider than the window`);
    await page.screenshot({ path: join(ARTIFACTS, 'report-narrow.png'), fullPage: true });
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('#controls').isVisible(), false);
    assert.equal(await page.locator('.matrix').isVisible(), true);
    await page.close();
  });

  it('draws each breakdown as bars with interval whiskers, and shows a grader’s reasoning', async () => {
    const page = await open(pramana.html);
    const breakdowns = pramana.card.breakdowns ?? [];
    assert.ok(breakdowns.length >= 2);
    const charts = page.locator('.breakdowns figure.chart');
    assert.equal(await charts.count(), breakdowns.length);
    for (const [i, b] of breakdowns.entries()) {
      const chart = charts.nth(i);
      assert.equal(await chart.locator('figcaption').innerText(), `Pass rate by ${b.by} (95% CI)`);
      const titles = await chart.locator('svg g > title').allTextContents();
      assert.deepEqual(
        titles,
        b.groups.map((g) => `${g.value}: ${formatRate(g.passRate)} · ${g.pass}/${g.total - g.skip}`),
      );
      // Each bar has its whisker: the interval's line and two caps.
      assert.equal(await chart.locator('line.whisker').count(), b.groups.length * 3);
    }
    await page.locator('#search').fill('haiku');
    await page.waitForURL(/q=haiku/);
    await rowsAre(page, 1);
    await page.locator('button.cell').first().click();
    const verdict = await page.locator('#case-view .verdicts tbody tr').first().innerText();
    assert.match(verdict, /judge-yes-no/);
    assert.match(await page.locator('#case-view pre.grader').innerText(), /EVALUATION JUDGE/);
    await page.screenshot({ path: join(ARTIFACTS, 'report-pramana-grader.png'), fullPage: true });
    await page.close();
  });

  it('pretty-prints an output that is JSON, still as text', async () => {
    const page = await open(json.html, '#case=0.0');
    const out = await page.locator('#case-view pre.output').innerText();
    assert.equal(out, '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "</pre><b>x</b>"\n}');
    assert.equal(await page.locator('#case-view b').count(), 0);
    await page.close();
  });

  it('the console names cases the same way', () => {
    assert.match(capitals.stdout, /"capital of Japan" \(h:[0-9a-f]{12}\)/);
    assert.doesNotMatch(capitals.stdout, /\{\{country\}\}" \(/);
  });
});
