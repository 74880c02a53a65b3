// What a person sees when a report opens, in Chromium at desktop (1280×800) and phone (390×844)
// width: a run with failures opens on them (the failing row on the first screen), the top failure
// reasons group the failures, the count cards filter by a click, the columns sort by a click, the
// case view steps with previous and next, and text wraps between words, never inside one.
// Screenshots are kept in test-artifacts/ (git-ignored) for a person to look at.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserMissing, launchBrowser } from '../support/browser.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';
import { CAPITALS, evalSuite } from '../support/report-runs.js';
import { readRun } from '../support/runs.js';
import { tempDir } from '../support/tmp.js';

const ARTIFACTS = join(repoRoot, 'test-artifacts');
const missing = browserMissing();
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** A label as long and wide as LVE's (a repository path). */
const LONG_LABEL = 'PRIVACY/PROMPT_INJECTION/MEMORY_LEAK_WW';

const tmp = tempDir('assay-html-opens-');
let mock: MockServer;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
const html: Record<string, string> = {};
const runs: Record<string, string> = {};
const pageErrors: string[] = [];

/** 150 tests fail one `contains`, 40 fail an `equals` whose reason quotes each output, 10 pass. */
function reasonsSuite(): string {
  const tests: string[] = [];
  for (let i = 0; i < 200; i++) {
    const assert =
      i < 150
        ? `{ type: contains, value: zebra }`
        : i < 190
          ? `{ type: equals, value: nope }`
          : `{ type: contains, value: item }`;
    tests.push(
      `  - description: item {{n}}\n    vars: { n: ${i} }\n    metadata: { category: ${i % 2 ? LONG_LABEL : 'plain'} }\n    assert: [${assert}]`,
    );
  }
  return `description: Reasons\nprompts: ['item {{n}}']\nproviders: [echo]\ntests:\n${tests.join('\n')}\n`;
}

/**
 * 1,000 tests failing one `contains`, each echoing hostile text: a right-to-left override (that
 * would show the words after it reversed), markup and an escape sequence.
 */
function thousandSuite(): string {
  const tests: string[] = [];
  for (let i = 0; i < 1000; i++)
    tests.push(`  - vars: { n: ${i} }\n    assert: [{ type: contains, value: zebra }]`);
  return `description: Thousand\nprompts: ["say \\u202Eright words\\u202C <b>bold</b> \\e[2J {{n}}"]\nproviders: [echo]\ntests:\n${tests.join('\n')}\n`;
}

/** A test with a long var name and a long value, and a passing run with metadata. */
const WORDS = `description: Words
prompts: ['Tell {{customer_account_identifier}}']
providers: [echo]
tests:
  - description: a long var
    vars:
      customer_account_identifier: ${'the quick brown fox jumps over the lazy dog '.repeat(8).trim()}
    metadata: { category: prose }
    assert:
      - type: contains
        value: quick
      - type: icontains
        value: lazy dog
  - description: a short var
    vars: { customer_account_identifier: Ada }
    metadata: { category: short }
    assert: [{ type: contains, value: Ada }]
`;

before(async () => {
  mock = await startMockServer({
    answers: [{ match: '.*', reply: 'fine' }],
    faults: { latencyMs: 1, latencyJitterMs: 60 },
  });
  const make = async (name: string, config: string, expectCode: number) => {
    const dir = join(tmp.dir, name);
    mkdirSync(dir);
    const run = await evalSuite(dir, config, ['-o', 'report.html']);
    assert.equal(run.code, expectCode, run.stderr);
    html[name] = join(dir, 'report.html');
    runs[name] = run.runDir;
  };
  await make('capitals', CAPITALS, 1);
  await make('reasons', reasonsSuite(), 1);
  await make('words', WORDS, 0);
  await make('thousand', thousandSuite(), 1);
  const latency = Array.from(
    { length: 12 },
    (_, i) =>
      `  - description: call ${i}\n    vars: { n: ${i} }\n    assert: [{ type: contains, value: fine }]`,
  );
  await make(
    'latency',
    `description: Latency\nprompts: ['call {{n}}']\nproviders:\n  - id: openai:chat:m\n    config: { apiBaseUrl: ${mock.baseUrl}, apiKey: k, maxRetries: 0 }\ntests:\n${latency.join('\n')}\n`,
    0,
  );
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!missing) browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await mock.close();
  tmp.cleanup();
});

async function open(file: string, hash = '', viewport = DESKTOP): Promise<Page> {
  assert.ok(browser);
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.goto(`file://${file}${hash}`);
  await page.waitForSelector('html[data-ready="true"]');
  return page;
}

/** Waits until the matrix shows `n` rows (polled: the page's CSP rightly forbids waitForFunction). */
async function rowsAre(page: Page, n: number): Promise<void> {
  const rows = page.locator('.matrix tbody tr');
  for (let waited = 0; (await rows.count()) !== n; waited += 50) {
    if (waited > 10_000) assert.fail(`the matrix shows ${await rows.count()} rows, not ${n}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Asserts an element lies wholly inside the window, unscrolled. */
async function onFirstScreen(page: Page, selector: string, what: string): Promise<void> {
  const box = await page.locator(selector).first().boundingBox();
  const size = page.viewportSize();
  assert.ok(box && size, `${what}: not drawn`);
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height,
    `${what} is at ${JSON.stringify(box)}, outside the ${size.width}×${size.height} window`,
  );
}

/**
 * The words inside `root` that wrap onto two lines although they would fit their element whole,
 * or are short words a layout squeezed: a word broken mid-way ("Assertio / n passed"). Measured
 * with DOM ranges in the page.
 */
function brokenWords(page: Page, root: string): Promise<string[]> {
  return page.evaluate<string[]>(`(${BROKEN_WORDS})(${JSON.stringify(root)})`);
}

/** The page side of brokenWords, as source (the tests compile without the DOM's types). */
const BROKEN_WORDS = `function (sel) {
  // A word this narrow (about 20 characters) is never broken, however narrow its column.
  var SHORT = 150;
  var out = [];
  var start = document.querySelector(sel);
  if (!start) return ['(nothing matches ' + sel + ')'];
  var walker = document.createTreeWalker(start, NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    var parent = node.parentElement;
    if (!parent || parent.closest('pre') || parent.getClientRects().length === 0) continue;
    var style = getComputedStyle(parent);
    var room = parent.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    var text = node.textContent || '';
    var re = /\\S+/g;
    for (var m = re.exec(text); m; m = re.exec(text)) {
      var range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      var rects = Array.from(range.getClientRects());
      var lines = new Set(rects.map(function (r) { return Math.round(r.top); }));
      var width = rects.reduce(function (w, r) { return w + r.width; }, 0);
      if (lines.size > 1 && (width < room || width < SHORT)) out.push(m[0] + ' (in ' + parent.tagName.toLowerCase() + '.' + parent.className + ')');
    }
  }
  return out;
}`;

describe('the HTML report opens on what matters', { skip: missing }, () => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`opens on the failures at ${name} width: the failing row is on the first screen`, async () => {
      const page = await open(html.capitals, '', viewport);
      await page.screenshot({ path: join(ARTIFACTS, `report-opens-${name}.png`) });
      await page.screenshot({ path: join(ARTIFACTS, `report-opens-${name}-full.png`), fullPage: true });
      assert.equal(await page.getByLabel('not passing').isChecked(), true);
      // Only the tests that fail or error are listed: Japan, Peru and the JSON test.
      assert.deepEqual(await page.locator('.matrix .case-name').allInnerTexts(), [
        'capital of Japan',
        'capital of Peru',
        'country={"a": [1, 2], "b": "json"}',
      ]);
      await onFirstScreen(page, '.matrix tbody tr', 'the first failing row');
      // Both columns of the row are in view: the matrix hides neither on a phone.
      await onFirstScreen(page, '.matrix tbody tr >> nth=0 >> td.fail >> nth=0', 'its first column');
      await onFirstScreen(page, '.matrix tbody tr >> nth=0 >> td.fail >> nth=1', 'its second column');
      await onFirstScreen(page, '#reasons', 'the top failure reasons');
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      assert.ok(overflow <= 1, `page is ${overflow}px wider than the window`);
      await page.close();
      assert.deepEqual(pageErrors, []);
    });
  }

  it('a run that passes opens on everything; on a phone its results come before its metrics', async () => {
    for (const [viewport, resultsFirst] of [
      [DESKTOP, false],
      [PHONE, true],
    ] as const) {
      const page = await open(html.words, '', viewport);
      assert.equal(await page.getByLabel('all').isChecked(), true);
      assert.equal(await page.locator('#reasons').isVisible(), false);
      const results = await page.locator('section.results').boundingBox();
      const charts = await page.locator('section.breakdowns').boundingBox();
      assert.ok(results && charts);
      assert.equal(results.y < charts.y, resultsFirst, `results at ${results.y}, breakdowns at ${charts.y}`);
      await page.close();
    }
  });

  it('groups 190 failures into their two reasons, with counts, and a reason filters the matrix', async () => {
    const page = await open(html.reasons);
    const items = page.locator('#reasons .reason-item');
    assert.equal(await items.count(), 2);
    const [first, second] = await items.allInnerTexts();
    assert.match(first, /^150×\s+contains\s+Expected output to contain "zebra"\s+in 150 tests$/);
    // The equals reason quotes each output: taken out, the 40 failures are one reason.
    assert.match(second, /^40×\s+equals\s+.*\[output\].*"nope".*\s+in 40 tests$/s);
    assert.match(await page.locator('#summary').innerText(), /^190 of 200 tests fail or error/);
    assert.match(await page.locator('#pager').innerText(), /Page 1 of 4/);
    await onFirstScreen(page, '#reasons', 'the reasons');
    await items.nth(1).locator('button').click();
    await rowsAre(page, 40);
    assert.match(page.url(), /why=/);
    assert.equal(await items.nth(1).locator('button').getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('.matrix .case-name').first().innerText(), 'item 150');
    // A second click lets the reason go.
    await items.nth(1).locator('button').click();
    await rowsAre(page, 50);
    assert.doesNotMatch(page.url(), /why=/);
    await page.screenshot({ path: join(ARTIFACTS, 'report-reasons.png') });
    await page.close();
  });

  it('the passed, failed and jobs cards filter the results when clicked', async () => {
    const page = await open(html.capitals);
    await page.locator('[data-figure="pass"]').click();
    await page.waitForURL(/#status=pass$/);
    // France and the hostile test pass in every column.
    await rowsAre(page, 2);
    assert.equal(await page.locator('.matrix td.fail').count(), 0);
    assert.equal(await page.getByLabel('passing', { exact: true }).isChecked(), true);
    assert.equal(await page.locator('[data-figure="pass"]').getAttribute('aria-current'), 'true');
    await page.locator('[data-figure="fail"]').click();
    await page.waitForURL(/#status=fail$/);
    await rowsAre(page, 3);
    for (const row of await page.locator('.matrix tbody tr').all())
      assert.ok((await row.locator('td.fail').count()) > 0);
    await page.locator('[data-figure="total"]').click();
    await page.waitForURL(/#status=all$/);
    await rowsAre(page, 5);
    await page.close();
  });

  it('sorts the tests by a column’s status, score and latency when clicked', async () => {
    const page = await open(html.capitals, '#status=all');
    const statuses = (): Promise<(string | null)[]> =>
      page
        .locator('.matrix tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.getAttribute('data-status')));
    const sortBy = (key: string) =>
      page.locator(`.matrix th.col-head >> nth=0 >> button[data-sort="${key}"]`).click();
    assert.deepEqual(await statuses(), ['pass', 'fail', 'fail', 'pass', 'fail']);
    await sortBy('status');
    await page.waitForURL(/sort=0\.status\.a/);
    assert.deepEqual(await statuses(), ['fail', 'fail', 'fail', 'pass', 'pass']);
    await sortBy('status');
    await page.waitForURL(/sort=0\.status\.d/);
    assert.deepEqual(await statuses(), ['pass', 'pass', 'fail', 'fail', 'fail']);
    await sortBy('score');
    await page.waitForURL(/sort=0\.score\.a/);
    assert.deepEqual(await statuses(), ['fail', 'fail', 'fail', 'pass', 'pass']);
    await page.getByRole('button', { name: 'plan order' }).click();
    assert.deepEqual(await statuses(), ['pass', 'fail', 'fail', 'pass', 'fail']);
    await page.close();

    // Latency: the order is the recorded latencies' (ties in plan order), both ways.
    const results = readRun(runs.latency).results;
    const byLatency = [...results]
      .sort((a, b) => a.answer.latencyMs - b.answer.latencyMs || a.caseIndex - b.caseIndex)
      .map((r) => `call ${r.caseIndex}`);
    const lat = await open(html.latency);
    await lat.locator('.matrix th.col-head >> nth=0 >> button[data-sort="latency"]').click();
    await lat.waitForURL(/sort=0\.latency\.a/);
    assert.deepEqual(await lat.locator('.matrix .case-name').allInnerTexts(), byLatency);
    await lat.locator('.matrix th.col-head >> nth=0 >> button[data-sort="latency"]').click();
    await lat.waitForURL(/sort=0\.latency\.d/);
    const descending = [...results]
      .sort((a, b) => b.answer.latencyMs - a.answer.latencyMs || a.caseIndex - b.caseIndex)
      .map((r) => `call ${r.caseIndex}`);
    assert.deepEqual(await lat.locator('.matrix .case-name').allInnerTexts(), descending);
    await lat.close();
  });

  it('the case view steps through the listed cells with previous and next', async () => {
    const page = await open(html.capitals);
    await page.locator('.matrix button.cell').first().click();
    const view = page.locator('#case-view');
    await view.waitFor({ state: 'visible' });
    const prev = view.getByRole('button', { name: '‹ Previous' });
    const next = view.getByRole('button', { name: 'Next ›' });
    assert.equal(await view.locator('h2').innerText(), 'capital of Japan');
    assert.equal(await prev.isDisabled(), true);
    assert.equal(await view.locator('.case-pos').innerText(), '1 of 6');
    await next.click();
    await page.waitForURL(/case=1\.1/);
    assert.match(await view.locator('.where').innerText(), /Name the capital city/);
    await next.click();
    await page.waitForURL(/case=2\.0/);
    assert.equal(await view.locator('h2').innerText(), 'capital of Peru');
    // The focus stays on Next, so Enter carries on.
    await page.keyboard.press('Enter');
    await page.waitForURL(/case=2\.1/);
    await prev.click();
    await page.waitForURL(/case=2\.0/);
    await page.close();
  });

  it('wraps text between words at phone width, and draws breakdown labels whole', async () => {
    const page = await open(html.words, '#case=0.0', { width: 320, height: 700 });
    await page.locator('#case-view').waitFor({ state: 'visible' });
    assert.deepEqual(await brokenWords(page, '#case-view'), []);
    await page.setViewportSize(PHONE);
    assert.deepEqual(await brokenWords(page, '#case-view'), []);
    assert.equal(await page.locator('#case-view dl.vars dt').innerText(), 'customer_account_identifier');
    await page.screenshot({ path: join(ARTIFACTS, 'report-case-phone.png'), fullPage: true });
    await page.locator('#case-view .close').click();
    assert.deepEqual(await brokenWords(page, 'main'), []);
    await page.close();
    for (const viewport of [DESKTOP, PHONE]) {
      const charts = await open(html.reasons, '', viewport);
      const boxes = await charts.locator('.breakdowns text.bar-label').evaluateAll((texts) =>
        texts.map((t) => ({
          text: t.textContent,
          x: (t as unknown as { getBBox(): { x: number } }).getBBox().x,
        })),
      );
      assert.ok(boxes.some((b) => b.text === LONG_LABEL));
      for (const b of boxes) assert.ok(b.x >= 0, `${b.text} starts at ${b.x}, off the chart`);
      await charts.close();
    }
    assert.deepEqual(pageErrors, []);
  });

  it('1,000 failures of one reason: the count stands clear of its assertion at every width, and a bidi override in an output is shown, not obeyed', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const page = await open(html.thousand, '', viewport);
      const item = page.locator('#reasons .reason-item').first();
      assert.match(await item.innerText(), /^1000×\s+contains/);
      // Where the text is drawn (a text wider than its column overflows its box).
      const drawn = (sel: string) =>
        item.locator(sel).evaluate((e) => {
          type Range = { selectNodeContents(n: unknown): void; getBoundingClientRect(): DOMRect };
          type DOMRect = { x: number; width: number };
          const doc = (e as unknown as { ownerDocument: { createRange(): Range } }).ownerDocument;
          const range = doc.createRange();
          range.selectNodeContents(e);
          const r = range.getBoundingClientRect();
          return { x: r.x, width: r.width };
        });
      const count = await drawn('.reason-count');
      const assertion = await drawn('.reason-assertion');
      assert.ok(
        count.x + count.width <= assertion.x,
        `at ${viewport.width} px the count ends at ${count.x + count.width}, over its assertion at ${assertion.x}`,
      );
      const cell = await page.locator('.matrix tbody td.fail').first().innerText();
      assert.match(cell, /say \\u202eright words\\u202c <b>bold<\/b>/);
      assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(await page.locator('body').innerText()));
      await page.screenshot({ path: join(ARTIFACTS, `report-thousand-${viewport.width}.png`) });
      await page.close();
    }
    assert.deepEqual(pageErrors, []);
  });
});
