// The comparison page (`assay compare … -o compare.html`, `assay report CANDIDATE --baseline B`)
// in Chromium, from two real runs: the verdict and every metric are compare's, the flipped cases
// show both outputs, and a hostile output is text.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
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
let baselineDir: string;
let candidateDir: string;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;

before(async () => {
  dir = join(tmp.dir, 'runs');
  mkdirSync(dir);
  const baseline = await evalSuite(dir, CAPITALS);
  // The candidate: Japan now passes, the hostile case now fails (its reply is in the page).
  const changed = CAPITALS.replace('value: Tokyo', 'value: Japan').replace('value: capital', 'value: absent');
  const candidate = await evalSuite(dir, changed);
  // Both runs' own reports, which the comparison page links to.
  for (const run of [baseline, candidate]) {
    const w = await runCli(['report', run.runDir, '--format', 'html'], { cwd: dir });
    assert.equal(w.code, 0, w.stderr);
  }
  baselineDir = baseline.runDir;
  candidateDir = candidate.runDir;
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
      // The page names the suite and the models, and says what an unclear result means in plain words.
      assert.equal(await page.locator('h1').innerText(), 'Capitals (report test)');
      assert.equal(await page.locator('.models').innerText(), 'models: echo');
      const plain = await page.locator('ul.plain li').allInnerTexts();
      // One plain sentence a comparison (the console leads with the same ones), prefixed by its column.
      assert.equal(plain.length, comparison.metrics.length);
      const unclear = comparison.metrics.filter(
        (m) => m.verdict === 'inconclusive' || m.verdict === 'unchanged',
      );
      assert.ok(unclear.length > 0);
      for (const [i, m] of comparison.metrics.entries()) {
        assert.ok(plain[i].startsWith(`${m.cell.promptLabel} · ${m.cell.providerId}: `), plain[i]);
        if (!unclear.includes(m)) continue;
        const detects = Number.isFinite(m.minimumDetectable)
          ? `this suite detects changes of ${(m.minimumDetectable * 100).toFixed(1)} points or more`
          : 'this suite cannot detect a change of any size';
        const ending =
          m.moved.down + m.moved.up === 0
            ? `No test changed over ${m.pairs} cases; ${detects}.`
            : `; with ${m.pairs} cases that could be chance — ${detects}.`;
        assert.ok(plain[i].endsWith(ending), plain[i]);
      }
      // Both runs' reports are a click away, from wherever the page was written.
      for (const [side, runDir] of [
        ['baseline', baselineDir],
        ['candidate', candidateDir],
      ]) {
        const link = page.locator(`a[data-report="${side}"]`);
        assert.equal(
          new URL(await link.evaluate((a) => (a as unknown as { href: string }).href)).pathname,
          join(runDir, 'report.html'),
        );
      }
      await page.locator('a[data-report="candidate"]').click();
      await page.waitForURL(/report\.html/);
      assert.equal(await page.locator('header h1').innerText(), 'Capitals (report test)');
      await page.close();
      assert.deepEqual(errors, []);
    }
  });

  it('says an inconclusive change in plain words with the smallest change the suite detects', async () => {
    // 40 tests; the candidate fails 4 that passed: −10 points, too few flips to tell from noise.
    const d = join(tmp.dir, 'noise');
    mkdirSync(d);
    const suite = (failing: number) =>
      `description: Noise\nprompts: ['item {{n}}']\nproviders: [echo]\ntests:\n${Array.from(
        { length: 40 },
        (_, i) =>
          `  - vars: { n: ${i} }\n    assert: [{ type: contains, value: '${i < failing ? 'absent' : 'item'}' }]`,
      ).join('\n')}\n`;
    const a = await evalSuite(d, suite(0));
    const b = await evalSuite(d, suite(4));
    const out = join(d, 'noise.html');
    // Every eval writes its report.html; the candidate's is removed, to see the page say how to write one.
    assert.ok(existsSync(join(b.runDir, 'report.html')));
    rmSync(join(b.runDir, 'report.html'));
    const r = await runCli(['compare', a.runDir, b.runDir, '-o', out], { cwd: d });
    const json = JSON.parse(
      (await runCli(['compare', a.runDir, b.runDir, '--json'], { cwd: d })).stdout,
    ) as Comparison;
    assert.equal(json.verdict, 'inconclusive', r.stdout);
    const m = json.metrics[0];
    assert.ok(browser);
    const page = await browser.context.newPage();
    await page.goto(`file://${out}`);
    assert.equal(
      await page.locator('ul.plain li').innerText(),
      `4 tests went from pass to fail; with 40 cases that could be chance — this suite detects changes of ${(m.minimumDetectable * 100).toFixed(1)} points or more.`,
    );
    assert.equal(await page.locator('h1').innerText(), 'Noise');
    // The baseline's report is linked; the candidate has none now: the page says how to write one.
    const reports = await page.locator('ul.reports').innerText();
    assert.match(reports, new RegExp(`baseline report .*${a.runDir.split('/').pop()}/report\\.html`));
    assert.match(reports, /no report\.html in .* \(assay report .* --format html writes it\)/);
    await page.close();
  });
});
