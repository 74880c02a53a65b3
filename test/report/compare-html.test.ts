// The comparison page (`assay compare … -o compare.html`, `assay report CANDIDATE --baseline B`)
// in Chromium, from two real runs: the verdict and every metric are compare's, the flipped cases
// show both outputs, and a hostile output is text.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Comparison } from '../../src/analysis/compare.js';
import { browserMissing, launchBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { CAPITALS, evalSuite, XSS_IMG, XSS_SCRIPT } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const missing = browserMissing();
const tmp = tempDir('assay-compare-html-');
let dir: string;
let comparison: Comparison;
let page1: string;
let page2: string;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;

before(async () => {
  dir = join(tmp.dir, 'runs');
  mkdirSync(dir);
  const baseline = await evalSuite(dir, CAPITALS);
  // The candidate: Japan now passes, the hostile case now fails (its reply is in the page).
  const changed = CAPITALS.replace('value: Tokyo', 'value: Japan').replace('value: capital', 'value: absent');
  const candidate = await evalSuite(dir, changed);
  const json = await runCli(['compare', baseline.runDir, candidate.runDir, '--json'], { cwd: dir });
  comparison = JSON.parse(json.stdout) as Comparison;
  page1 = join(dir, 'compare.html');
  const c = await runCli(['compare', baseline.runDir, candidate.runDir, '-o', page1], { cwd: dir });
  assert.equal(c.code, json.code, c.stderr);
  const r = await runCli(['report', candidate.runDir, '--baseline', baseline.runDir, '--format', 'html'], {
    cwd: dir,
  });
  assert.equal(r.code, json.code, r.stderr);
  page2 = /Wrote (.*)/.exec(r.stdout)?.[1] ?? '';
  assert.equal(page2, join(candidate.runDir, 'compare.html'));
  mkdirSync(join(repoRoot, 'test-artifacts'), { recursive: true });
  if (!missing) browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  tmp.cleanup();
});

describe('the comparison page', { skip: missing }, () => {
  it('shows compare’s verdict, every metric, and the flipped cases with both outputs, as text', async () => {
    assert.ok(browser);
    assert.equal(comparison.regressions.length, 2);
    assert.equal(comparison.fixes.length, 2);
    for (const file of [page1, page2]) {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`file://${file}`);
      assert.equal(await page.locator('[data-verdict]').getAttribute('data-verdict'), comparison.verdict);
      assert.equal(await page.locator('table.metrics tbody tr').count(), comparison.metrics.length);
      const headings = await page.locator('h2').allInnerTexts();
      assert.ok(headings.includes('Passed before, fail now (2)'), headings.join(' | '));
      assert.ok(headings.includes('Failed before, pass now (2)'));
      const flips = await page.locator('.flip h3').allInnerTexts();
      assert.ok(flips.some((t) => t.startsWith('capital of Japan')));
      const outputs = await page.locator('.flip pre').allInnerTexts();
      assert.ok(outputs.some((o) => o.includes(XSS_SCRIPT + XSS_IMG)));
      assert.equal(await page.locator('img').count(), 0);
      assert.equal(await page.locator('script').count(), 0);
      assert.equal(await page.evaluate('window.__pwned'), undefined);
      if (file === page1)
        await page.screenshot({ path: join(repoRoot, 'test-artifacts', 'compare.png'), fullPage: true });
      await page.close();
      assert.deepEqual(errors, []);
    }
  });
});
