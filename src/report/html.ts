// The HTML report: one self-contained file (no network: data, script and styles inline; a content
// security policy that allows only the report's own script) that a person opens from anywhere.
// The header, the column figures and the breakdown charts are static markup, escaped here; the
// matrix, the filters and the case view are drawn by the inline script from the embedded jobs,
// always as text (textContent), never as markup. Rendered from the run log alone.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { metadataBreakdowns } from '../analysis/metadata.js';
import type { Breakdown, Rate, Scorecard, ScorecardCell } from '../core/scorecard.js';
import type { JobResult } from '../core/types.js';
import { readManifest, resultLinesInPlanOrder } from '../runlog/reader.js';
import type { RunManifest } from '../runlog/types.js';
import { formatMean, formatRate, graderLine, percent, streamFigures } from './console.js';
import { CLIENT_CSS, CLIENT_JS } from './html-client.js';
import { caseName, fullTitle } from './naming.js';
import { registerOutputFormat } from './outputs.js';
import { jobRow, reportColumns, scriptSafeJson } from './report-data.js';

/** Text made safe as HTML text or a quoted attribute value. */
export function escapeHtml(text: string): string {
  // A bidi override or isolate (a suite's description, a model's name) is shown, not obeyed.
  return text.replace(/[&<>"']|[\u202a-\u202e\u2066-\u2069]/g, (ch) =>
    ch.charCodeAt(0) > 0xff ? `\\u${ch.charCodeAt(0).toString(16)}` : `&#${ch.charCodeAt(0)};`,
  );
}

const h = escapeHtml;

function duration(manifest: RunManifest): string | undefined {
  if (!manifest.endedAt) return undefined;
  const ms = Date.parse(manifest.endedAt) - Date.parse(manifest.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function figure(label: string, value: string, cls = '', testId = ''): string {
  return `<div class="figure ${cls}"${testId ? ` data-figure="${h(testId)}"` : ''}><span class="label">${h(label)}</span><span class="value">${h(value)}</span></div>`;
}

/** A count that is also a filter of the matrix: a link to the results showing that status. */
function filterFigure(label: string, value: string, cls: string, testId: string, status: string): string {
  return `<a class="figure filter ${cls}" data-figure="${h(testId)}" data-status="${h(status)}" href="#status=${h(status)}" title="${h(`show ${status === 'all' ? 'every test' : `the ${label} tests`} in the results`)}"><span class="label">${h(label)}</span><span class="value">${h(value)}</span></a>`;
}

/** The header: what was run and its figures (counts, pass rate with interval, score, tokens, cost, time). */
function headerHtml(manifest: RunManifest, card: Scorecard): string {
  const c = card.counts;
  const models = manifest.providers.map((p) => String(p.label ?? p.id ?? p.key));
  const when = manifest.startedAt
    ? new Date(manifest.startedAt).toISOString().replace('T', ' ').slice(0, 19)
    : '';
  const took = duration(manifest);
  const facts = [
    ['format', manifest.suite.format],
    ['run', manifest.runId],
    ['started', `${when} UTC`],
    ['models', models.join(', ')],
  ];
  if (took) facts.push(['took', took]);
  if (manifest.grader) facts.push(['grader', graderLine(manifest.grader)]);
  if (manifest.status !== 'complete')
    facts.push(['status', `${manifest.status}${manifest.stopReason ? `: ${manifest.stopReason}` : ''}`]);
  const figures = [
    filterFigure('jobs', String(c.total), '', 'total', 'all'),
    filterFigure('passed', String(c.pass), 'pass', 'pass', 'pass'),
    filterFigure('failed', String(c.fail), c.fail > 0 ? 'fail' : '', 'fail', 'fail'),
    filterFigure('errors', String(c.error), c.error > 0 ? 'error' : '', 'error', 'error'),
    figure('skipped', String(c.skip), c.skip === 0 ? 'zero' : '', 'skip'),
    figure('pass rate (95% CI)', formatRate(card.passRate), '', 'passRate'),
    figure('mean score', card.meanScore.toFixed(3), '', 'meanScore'),
  ];
  if (card.weightedScore) {
    const w = card.weightedScore;
    figures.push(
      figure(`${w.name} (95% CI)`, formatMean(w.score, w.scale, w.rounded), 'headline', 'weighted'),
    );
  }
  if (card.repeats) {
    for (const a of card.repeats.atK)
      figures.push(figure(`pass@${a.k} · pass^${a.k}`, `${percent(a.passAtK)}% · ${percent(a.passHatK)}%`));
    figures.push(figure('flaky cases', `${card.repeats.flaky} of ${card.repeats.cases}`));
  }
  if (card.tokens > 0) figures.push(figure('tokens', String(card.tokens)));
  if (card.cost > 0) figures.push(figure('cost', `$${card.cost.toFixed(4)}`));
  if ((card.gradingTokens ?? 0) > 0) figures.push(figure('grader tokens', String(card.gradingTokens)));
  if ((card.gradingCost ?? 0) > 0) figures.push(figure('grading cost', `$${card.gradingCost.toFixed(4)}`));
  figures.push(figure('mean latency', `${Math.round(card.latencyMsMean)} ms`));
  if (card.stream) {
    const [ttft, tps] = streamFigures(card.stream);
    figures.push(figure('time to first token', `${ttft} ms`, '', 'ttft'));
    if (tps !== '–') figures.push(figure('tokens per second', tps, '', 'tps'));
  }
  if (card.cached > 0) figures.push(figure('cached', String(card.cached)));
  return `<header>
<h1>${h(manifest.suite.name)}</h1>
<dl class="facts">${facts.map(([k, v]) => `<div><dt>${h(k)}</dt><dd>${h(v)}</dd></div>`).join('')}</dl>
<div class="figures">${figures.join('')}</div>
</header>`;
}

/** The suite's metrics: named scores and derived metrics per column. */
function metricsHtml(card: Scorecard, columns: ScorecardCell[]): string {
  const rows: string[] = [];
  for (const m of card.metrics)
    rows.push(
      `<tr><td>${h(m.name)}</td><td></td><td class="num">${m.mean.toFixed(3)}</td><td class="num">${m.count}</td></tr>`,
    );
  for (const cell of columns)
    for (const d of cell.derivedMetrics ?? [])
      rows.push(
        `<tr><td>${h(d.name)} (derived)</td><td>${h(`${cell.promptLabel} · ${cell.providerId}`)}</td><td class="num">${h(Number.isFinite(d.value) ? d.value.toFixed(3) : String(d.value))}</td><td></td></tr>`,
      );
  if (rows.length === 0) return '';
  return `<section class="metrics"><h2>Metrics</h2><table><thead><tr><th>metric</th><th>column</th><th>mean</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/** One horizontal bar with its interval whisker, for a value in [0, 1]. */
function bar(y: number, label: string, value: Rate, text: string, width: number, x0: number): string {
  // The rest of the width holds the figure written after the bar.
  const span = width - x0 - 290;
  const x = (v: number): number => x0 + Math.max(0, Math.min(1, v)) * span;
  const title = `${label}: ${text}`;
  return `<g><title>${h(title)}</title><text x="${x0 - 8}" y="${y + 13}" text-anchor="end" class="bar-label">${h(barLabel(label))}</text>
<rect x="${x0}" y="${y + 2}" width="${span}" height="16" class="bar-track"/>
<rect x="${x0}" y="${y + 2}" width="${(x(value.value) - x0).toFixed(1)}" height="16" class="bar-fill"/>
<line x1="${x(value.low).toFixed(1)}" x2="${x(value.high).toFixed(1)}" y1="${y + 10}" y2="${y + 10}" class="whisker"/>
<line x1="${x(value.low).toFixed(1)}" x2="${x(value.low).toFixed(1)}" y1="${y + 5}" y2="${y + 15}" class="whisker"/>
<line x1="${x(value.high).toFixed(1)}" x2="${x(value.high).toFixed(1)}" y1="${y + 5}" y2="${y + 15}" class="whisker"/>
<text x="${x0 + span + 8}" y="${y + 13}" class="bar-value">${h(text)}</text></g>`;
}

/** Longest bar label drawn whole; a longer one is cut (the bar's title has it all). */
const BAR_LABEL_CHARS = 40;

function barLabel(label: string): string {
  const chars = [...label];
  return chars.length > BAR_LABEL_CHARS ? `${chars.slice(0, BAR_LABEL_CHARS - 1).join('')}…` : label;
}

/**
 * A bar label's width in the chart's units (12px sans), over-estimated a little per kind of
 * character so that no label runs off the chart's left edge (LVE's path-like names, capitals, CJK).
 */
function labelWidth(label: string): number {
  let w = 0;
  for (const ch of label) {
    if (/[ilIjtf.,:;'|!()[\] ]/.test(ch)) w += 4;
    else if (/[mwMW@%]/.test(ch)) w += 11;
    else if (/[A-Z0-9_\-/]/.test(ch)) w += 8.5;
    else if (ch.codePointAt(0)! > 0x2e80) w += 12.5;
    else w += 7;
  }
  return w;
}

/** A bar chart as inline SVG: one bar per group, each with its 95% interval as a whisker. */
function chart(title: string, bars: { label: string; value: Rate; text: string }[]): string {
  const width = 800;
  const height = bars.length * 24 + 8;
  // The label column is as wide as the longest (cut) label, so no label runs off the left edge.
  const longest = Math.max(0, ...bars.map((b) => labelWidth(barLabel(b.label))));
  const x0 = Math.min(400, Math.max(80, Math.ceil(longest) + 16));
  return `<figure class="chart"><figcaption>${h(title)}</figcaption><svg role="img" aria-label="${h(title)}" viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet">${bars
    .map((b, i) => bar(i * 24 + 4, b.label, b.value, b.text, width, x0))
    .join('')}</svg></figure>`;
}

/** Per-metadata breakdowns and the weighted score's groups, as bar charts with interval whiskers. */
function breakdownsHtml(card: Scorecard, breakdowns: Breakdown[]): string {
  const charts: string[] = [];
  for (const b of breakdowns)
    charts.push(
      chart(
        `Pass rate by ${b.by} (95% CI)`,
        b.groups.map((g) => ({
          label: g.value,
          value: g.passRate,
          text: `${formatRate(g.passRate)} · ${g.pass}/${g.total - g.skip}`,
        })),
      ),
    );
  const w = card.weightedScore;
  if (w) {
    const groups = w.groups.filter((g) => g.total > 0);
    if (groups.length > 0)
      charts.push(
        chart(
          `${w.name} by ${w.groupBy} (95% CI)`,
          groups.map((g) => ({
            label: g.value,
            value: g.meanScore,
            text: `${formatMean(g.meanScore, w.scale, g.rounded)} · weight ${g.weight.toFixed(2)}`,
          })),
        ),
      );
    if (w.notRun.length > 0)
      charts.push(`<p class="note">Not run: ${h(w.notRun.map((g) => g.value).join(', '))}</p>`);
  }
  if (charts.length === 0) return '';
  return `<section class="breakdowns"><h2>Breakdowns</h2>${charts.join('')}</section>`;
}

/** The flakiest cases (repeated runs): the trials that disagree most. */
function flakyHtml(card: Scorecard): string {
  const r = card.repeats;
  if (!r || r.flakiest.length === 0) return '';
  const rows = r.flakiest.map((f) => {
    const name = caseName(f);
    return `<tr><td>${h(fullTitle(name))} <span class="id">${h(name.id)}</span></td><td>${h(f.promptLabel)}</td><td>${h(f.providerId)}</td><td class="num">${f.passed}/${f.trials}</td></tr>`;
  });
  return `<section class="flaky"><h2>Flakiest cases</h2><table><thead><tr><th>case</th><th>prompt</th><th>provider</th><th>passed</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/** The page's columns as the script reads them. */
function columnData(columns: ScorecardCell[]) {
  return columns.map((c) => ({
    label: c.promptLabel,
    provider: c.providerId,
    passRate: formatRate(c.passRate),
    counts: { pass: c.pass, fail: c.fail, error: c.error, skip: c.skip, total: c.total },
    score: c.meanScore.toFixed(3),
    ms: Math.round(c.latencyMsMean),
  }));
}

async function put(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

const SCRIPT_HASH = createHash('sha256').update(CLIENT_JS).digest('base64');

/** Writes the HTML report of a run directory, streaming its results (memory stays bounded). */
export async function writeHtmlReport(runDir: string, card: Scorecard, out: Writable): Promise<void> {
  const { outputsPending: _pending, ...manifest } = readManifest(runDir);
  const columns = reportColumns(manifest, card);
  // The suite's own breakdowns; for a suite that declares none, its cases' metadata.
  const breakdowns = card.breakdowns?.length ? card.breakdowns : await metadataBreakdowns(runDir);
  const columnIndex = new Map(columns.map((c, i) => [`${c.promptId}\u0000${c.providerId}`, i]));
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${SCRIPT_HASH}'`;
  await put(
    out,
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${h(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="assay ${h(manifest.assayVersion ?? '')}">
<title>${h(`${manifest.suite.name} · assay report`)}</title>
<style>${CLIENT_CSS}</style>
</head>
<body>
${headerHtml(manifest, card)}
<main class="${card.counts.fail + card.counts.error > 0 ? 'failing' : 'passing'}">
<section class="results" aria-label="Results" id="results">
<h2>Results</h2>
<section class="reasons" id="reasons" aria-label="Top failure reasons" hidden></section>
<noscript><p>The matrix, filters and case view need JavaScript; the figures above do not.</p></noscript>
<form class="controls" id="controls" role="search">
<fieldset class="status-filter"><legend>Show</legend>
<label><input type="radio" name="status" value="all" checked> all</label>
<label><input type="radio" name="status" value="bad"> not passing</label>
<label><input type="radio" name="status" value="fail"> failures</label>
<label><input type="radio" name="status" value="error"> errors</label>
<label><input type="radio" name="status" value="flaky"> flaky</label>
<label><input type="radio" name="status" value="pass"> passing</label>
</fieldset>
<label class="search">Search <input type="search" id="search" placeholder="vars, outputs, reasons" autocomplete="off"></label>
<label class="meta">Metadata <select id="meta"><option value="">any</option></select></label>
<span class="keys">Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous failure · <kbd>/</kbd> search · <kbd>Esc</kbd> close</span>
</form>
<p class="summary" id="summary" aria-live="polite"></p>
<div class="matrix-wrap"><table class="matrix" id="matrix"></table></div>
<nav class="pager" id="pager" aria-label="Pages"></nav>
</section>
${breakdownsHtml(card, breakdowns)}
${metricsHtml(card, columns)}
${flakyHtml(card)}
</main>
<aside id="case-view" role="dialog" aria-modal="false" aria-labelledby="case-title" hidden></aside>
<footer>Written by assay ${h(manifest.assayVersion ?? '')} from ${h(manifest.runId)} (results.jsonl, manifest.json). Outputs are shown as text.</footer>
<script type="application/json" id="assay-data">{"columns":${scriptSafeJson(columnData(columns))},"jobs":[`,
  );
  let first = true;
  // A log written before results carried their case's index (run-log version 0): each case gets
  // a row of its own by its id, after any indexed one.
  const unindexed = new Map<string, number>();
  const rows: string[] = [];
  for await (const line of resultLinesInPlanOrder(runDir)) {
    const r = JSON.parse(line) as JobResult;
    if (!Number.isSafeInteger(r.caseIndex)) {
      let i = unindexed.get(r.caseId);
      if (i === undefined) {
        i = 2 ** 40 + unindexed.size;
        unindexed.set(r.caseId, i);
      }
      r.caseIndex = i;
    }
    const key = `${r.promptId}\u0000${r.providerId}`;
    let column = columnIndex.get(key);
    if (column === undefined) {
      column = columnIndex.size;
      columnIndex.set(key, column);
    }
    rows.push(`${first ? '\n' : ',\n'}${scriptSafeJson(jobRow(r, column, manifest.cwd))}`);
    first = false;
    // Written a few hundred rows at a time: a write per row cost more than the row.
    if (rows.length >= 256) {
      await put(out, rows.join(''));
      rows.length = 0;
    }
  }
  await put(out, `${rows.join('')}\n]}</script>\n<script>${CLIENT_JS}</script>\n</body>\n</html>\n`);
}

registerOutputFormat({
  name: 'html',
  layout: 'file',
  extensions: ['html', 'htm'],
  inRunDir: 'report.html',
  description: 'a self-contained HTML report: figures, matrix, filters, case view (opens from file://)',
  write: (run, out) => writeHtmlReport(run.dir, run.scorecard, out.stream),
});
