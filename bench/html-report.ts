/**
 * The HTML report rows: a run of N echo tests (every tenth fails), its report written by
 * `assay report --format html`, then opened in Chromium (Debian's, through playwright-core):
 * file size, time to write it, time until the page is ready, and the time a click on
 * "failures" and a text search take to redraw. Figures only; nothing is asserted.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { browserMissing, launchBrowser } from '../test/support/browser.js';
import { measure } from './measure.js';
import type { RunContext } from './runner.js';
import type { Workload } from './workloads.js';

/** One HTML report row's figures. */
export interface HtmlReportRow {
  name: string;
  tests: number;
  /** The report file's size in bytes. */
  bytes?: number;
  /** Wall seconds of `assay report --format html` (the whole process). */
  writeS?: number;
  writeRssMiB?: number;
  /** Milliseconds from navigation to the page's first drawn matrix (data parsed, page 1 drawn). */
  openMs?: number;
  /** Milliseconds for the failures filter, and for a search, to redraw. */
  filterMs?: number;
  searchMs?: number;
  /** The page's JavaScript heap once open, MiB. */
  heapMiB?: number;
  note?: string;
}

/** The suite: N tests answered by echo; every tenth expects a word the echo does not contain. */
function writeHtmlSuite(dir: string, n: number): string {
  mkdirSync(dir, { recursive: true });
  const rows = ['topic,__expected,__description'];
  for (let i = 0; i < n; i++)
    rows.push(
      `subject ${i},${i % 10 === 0 ? `contains:absent ${i}` : `contains:subject ${i}`},topic {{topic}}`,
    );
  writeFileSync(join(dir, 'tests.csv'), `${rows.join('\n')}\n`);
  const config = join(dir, 'promptfooconfig.yaml');
  writeFileSync(
    config,
    "description: html report bench\nprompts: ['Write one line about {{topic}}.']\nproviders: [echo]\ntests: file://tests.csv\n",
  );
  return config;
}

/** Runs one HTML report row. */
export async function runHtmlWorkload(w: Workload, bin: string, ctx: RunContext): Promise<HtmlReportRow> {
  const row: HtmlReportRow = { name: w.name, tests: w.tests };
  const dir = join(ctx.workDir, 'html', w.name);
  rmSync(dir, { recursive: true, force: true });
  const config = writeHtmlSuite(dir, w.tests);
  const runsDir = join(dir, 'runs');
  const env = { ...process.env, NO_COLOR: '1' };
  const logFile = join(ctx.workDir, 'logs', `${w.name}.log`);
  mkdirSync(join(ctx.workDir, 'logs'), { recursive: true });
  const run = await measure({
    command: process.execPath,
    args: [bin, 'eval', '-c', config, '--no-progress', '--no-cache', '--runs-dir', runsDir],
    cwd: dir,
    env,
    timeoutMs: ctx.timeoutMs,
    logFile,
  });
  if (run.timedOut || (run.exitCode !== 0 && run.exitCode !== 1)) {
    row.note = `eval failed (exit ${run.exitCode}, see ${logFile})`;
    return row;
  }
  const html = join(dir, 'report.html');
  const write = await measure({
    command: process.execPath,
    args: [bin, 'report', '--runs-dir', runsDir, '-o', html],
    cwd: dir,
    env,
    timeoutMs: ctx.timeoutMs,
    logFile,
  });
  if (write.exitCode !== 0) {
    row.note = `assay report failed (exit ${write.exitCode}, see ${logFile})`;
    return row;
  }
  row.writeS = write.wallS;
  row.writeRssMiB = write.peakRssMiB;
  row.bytes = statSync(html).size;
  const missing = browserMissing();
  if (missing) {
    row.note = `not opened: ${missing}`;
    return row;
  }
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    const started = performance.now();
    await page.goto(`file://${html}`, { timeout: ctx.timeoutMs });
    await page.waitForSelector('html[data-ready="true"]', { timeout: ctx.timeoutMs });
    row.openMs = performance.now() - started;
    const timed = async (act: () => Promise<void>, hash: RegExp): Promise<number> => {
      const t0 = performance.now();
      await act();
      await page.waitForURL(hash, { timeout: ctx.timeoutMs });
      // The redraw is synchronous after the hash is written: one frame later it is on screen.
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => r(0)))');
      return performance.now() - t0;
    };
    row.filterMs = await timed(() => page.getByLabel('failures').check(), /status=fail/);
    row.searchMs = await timed(() => page.locator('#search').fill(`subject ${w.tests - 1}`), /q=subject/);
    const heap = await page.evaluate<number | undefined>(
      '(performance.memory && performance.memory.usedJSHeapSize) || undefined',
    );
    if (heap) row.heapMiB = heap / 2 ** 20;
  } finally {
    await browser.close();
  }
  ctx.say(
    `  ${w.name}: ${(row.bytes / 2 ** 20).toFixed(1)} MiB, written in ${row.writeS.toFixed(2)} s, opened in ${Math.round(row.openMs ?? 0)} ms, filter ${Math.round(row.filterMs ?? 0)} ms, search ${Math.round(row.searchMs ?? 0)} ms`,
  );
  return row;
}

/** The HTML report rows as a Markdown table. */
export function htmlReportTable(rows: HtmlReportRow[]): string {
  const cell = (x: number | undefined, digits: number): string => (x === undefined ? '–' : x.toFixed(digits));
  return [
    '| workload | tests | HTML MiB | `assay report` wall s | its RSS MiB | open in Chromium ms | "failures" click ms | search ms | page JS heap MiB | notes |',
    '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --- |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.tests} | ${cell(r.bytes === undefined ? undefined : r.bytes / 2 ** 20, 1)} | ${cell(r.writeS, 2)} | ${cell(r.writeRssMiB, 0)} | ${cell(r.openMs, 0)} | ${cell(r.filterMs, 0)} | ${cell(r.searchMs, 0)} | ${cell(r.heapMiB, 0)} | ${r.note ?? ''} |`,
    ),
  ].join('\n');
}
