// The comparison of two runs as one self-contained HTML page (`assay compare … -o compare.html`,
// `assay report CANDIDATE --baseline B --format html`): the verdict, each prompt × provider metric
// with its change and interval drawn on a common axis, the suites' own summaries side by side, and
// the cases that flipped with both outputs. Static markup only (no script at all), every text
// escaped: what a model said is shown, never run. Renders analysis/compare's Comparison as it is.
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Comparison, FlippedCase, MetricComparison } from '../analysis/compare.js';
import { readManifest } from '../runlog/reader.js';
import type { RunManifest } from '../runlog/types.js';
import { atKNotes, levelText, pairingNotes, plainSentence } from './compare.js';
import { percent } from './console.js';
import { escapeHtml as h } from './html.js';
import { caseName, fullTitle } from './naming.js';

const VERDICT_WORD: Record<string, string> = {
  regressed: 'Regressed',
  improved: 'Improved',
  inconclusive: 'Inconclusive',
  unchanged: 'Unchanged',
  'cannot-judge': 'Cannot judge',
};

function signed(x: number, digits: number): string {
  const v = x.toFixed(digits);
  return x > 0 ? `+${v}` : v === `-${(0).toFixed(digits)}` ? (0).toFixed(digits) : v;
}

function figure(m: MetricComparison, x: number, sign = false): string {
  if (m.metric === 'pass rate') return sign ? `${signed(x * 100, 1)} pts` : `${percent(x)}%`;
  return sign ? signed(x, 3) : x.toFixed(3);
}

function pValue(p: number): string {
  return p < 0.0001 ? '<0.0001' : p.toFixed(4);
}

/** The change and its interval on an axis from −1 to +1 (points of 1 for pass rates, score units). */
function changeSvg(m: MetricComparison): string {
  const w = 240;
  const x = (v: number): number => w / 2 + (Math.max(-1, Math.min(1, v)) * (w - 20)) / 2;
  return `<svg class="change" viewBox="0 0 ${w} 22" width="${w}" height="22" role="img" aria-label="${h(`change ${figure(m, m.delta, true)}, 95% CI ${figure(m, m.low, true)} to ${figure(m, m.high, true)}`)}">
<line x1="${w / 2}" x2="${w / 2}" y1="2" y2="20" class="zero"/>
<line x1="${x(m.low).toFixed(1)}" x2="${x(m.high).toFixed(1)}" y1="11" y2="11" class="ci ${m.verdict}"/>
<circle cx="${x(m.delta).toFixed(1)}" cy="11" r="4" class="point ${m.verdict}"/></svg>`;
}

function metricRow(m: MetricComparison, c: Comparison): string {
  // The interval at the level the correction leaves (the one the verdict reads), when it differs.
  const corrected =
    Math.abs(m.corrected.level - (1 - c.options.alpha)) > 1e-12
      ? `<div class="muted" data-corrected>${h(`${levelText(m.corrected.level)}: ${figure(m, m.corrected.low, true)} to ${figure(m, m.corrected.high, true)}`)}</div>`
      : '';
  const discordant = m.discordant
    ? `${m.discordant.regressed} passed before and fail now, ${m.discordant.improved} the reverse`
    : '';
  const mde = !Number.isFinite(m.minimumDetectable)
    ? 'none (too few cases)'
    : m.metric === 'pass rate'
      ? `${(m.minimumDetectable * 100).toFixed(1)} pts`
      : m.minimumDetectable.toFixed(3);
  return `<tr class="${m.verdict}"><td><span class="verdict ${m.verdict}">${h(VERDICT_WORD[m.verdict])}</span></td>
<td>${h(m.cell.promptLabel)}<div class="muted">${h(m.cell.providerId)}</div></td><td>${h(m.metric)}</td>
<td class="num">${h(figure(m, m.baseline))} → ${h(figure(m, m.candidate))}</td>
<td class="num">${h(figure(m, m.delta, true))}<div class="muted">${h(figure(m, m.low, true))} to ${h(figure(m, m.high, true))}</div>${corrected}</td>
<td>${changeSvg(m)}</td>
<td class="num">${h(pValue(m.p))}<div class="muted">${h(c.options.correction === 'bh' ? 'BH' : 'Holm')} ${h(pValue(m.pAdjusted))}</div></td>
<td>${h(m.test)}<div class="muted">${h(discordant)}</div></td>
<td class="num">${h(mde)}</td>
<td class="num">${m.errors.baseline} → ${m.errors.candidate}</td></tr>`;
}

function flipped(title: string, list: FlippedCase[]): string {
  if (list.length === 0) return '';
  const items = list.map((f) => {
    const name = caseName({ caseId: f.caseRef, ...f });
    const side = (label: string, s: FlippedCase['baseline']): string =>
      `<div class="side"><div class="muted">${h(label)} · ${h(percent(s.passRate))}% of trials passed</div><pre>${h(s.output ?? '(no output)')}</pre>${s.reason ? `<div class="reason">${h(s.reason)}</div>` : ''}</div>`;
    return `<article class="flip"><h3>${h(fullTitle(name))} <span class="id">${h(name.id)}</span></h3><div class="muted">${h(f.promptLabel)} · ${h(f.providerId)}</div><div class="sides">${side('before', f.baseline)}${side('now', f.candidate)}</div></article>`;
  });
  return `<section><h2>${h(title)} (${list.length})</h2>${items.join('')}</section>`;
}

function viewsHtml(c: Comparison): string {
  const v = c.views;
  if (!v) return '';
  const parts: string[] = [];
  const rate = (x?: number): string => (x === undefined ? '—' : `${percent(x)}%`);
  for (const b of v.breakdowns)
    parts.push(
      `<h3>Pass rate by ${h(b.by)}</h3><table><thead><tr><th>${h(b.by)}</th><th>baseline</th><th>candidate</th></tr></thead><tbody>${b.groups
        .map(
          (g) =>
            `<tr><td>${h(g.value)}</td><td class="num">${rate(g.baseline)}</td><td class="num">${rate(g.candidate)}</td></tr>`,
        )
        .join('')}</tbody></table>`,
    );
  const w = v.weighted;
  if (w) {
    const digits = w.scale >= 10 ? 1 : 3;
    const f = (x?: number): string => (x === undefined ? '—' : x.toFixed(digits));
    parts.push(
      `<h3>${h(w.name)} by ${h(w.groupBy)}</h3><table><thead><tr><th>${h(w.groupBy)}</th><th>baseline</th><th>candidate</th></tr></thead><tbody>${w.groups
        .map(
          (g) =>
            `<tr><td>${h(g.value)}</td><td class="num">${f(g.baseline)}</td><td class="num">${f(g.candidate)}</td></tr>`,
        )
        .join(
          '',
        )}<tr class="total"><td>${h(w.name)}</td><td class="num">${f(w.baseline)}</td><td class="num">${f(w.candidate)}</td></tr></tbody></table>`,
    );
  }
  return parts.length ? `<section><h2>The suite’s own summaries</h2>${parts.join('')}</section>` : '';
}

const CSS = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;font-size:14px;line-height:1.45}
header{padding:16px 24px;background:#f6f8fa;border-bottom:1px solid #d0d7de}main{padding:0 24px 24px}h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:20px 0 8px}h3{font-size:14px;margin:12px 0 4px}
table{border-collapse:collapse}th,td{border-bottom:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:#57606a;font-size:12px}.id{color:#57606a;font-size:12px;font-family:ui-monospace,monospace;font-weight:400}
.verdict{font-weight:700;padding:1px 6px;border-radius:4px}.verdict.regressed{background:#ffebe9;color:#b42318}.verdict.improved{background:#dafbe1;color:#1a7f37}.verdict.inconclusive{background:#fff4cc;color:#9a6700}.verdict.unchanged{background:#eaeef2;color:#57606a}.verdict.cannot-judge{background:#fbefff;color:#8250df}
.big{font-size:20px}.metrics-wrap{overflow-x:auto}.change .zero{stroke:#8c959f;stroke-dasharray:2 2}.change .ci{stroke-width:3;stroke:#57606a}.change .point{fill:#57606a}
.change .regressed{stroke:#b42318;fill:#b42318}.change .improved{stroke:#1a7f37;fill:#1a7f37}
.flip{border:1px solid #d0d7de;border-radius:6px;padding:8px 10px;margin:8px 0}.flip h3{margin:0}.sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:10px;margin-top:6px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:6px 8px;margin:2px 0;font-size:12px;max-height:20em;overflow:auto}.reason{font-size:12px;color:#57606a;overflow-wrap:anywhere}
tr.total td{font-weight:700}.plain{font-size:15px;margin:4px 0;padding-left:20px}.plain li{margin:2px 0}.models{margin-top:2px}.reports{padding-left:20px;margin:6px 0 0}.reports a{color:#0969da;font-weight:600}footer{padding:12px 24px;color:#57606a;font-size:12px;border-top:1px solid #d0d7de}
@media print{.flip{break-inside:avoid}pre{max-height:none}}`;

/** What the page says of the two runs: how they were named, and where they are. */
export interface ComparedRuns {
  baseline: string;
  candidate: string;
  /** The runs' directories: the page names their suite and models and links their reports. */
  baselineDir?: string;
  candidateDir?: string;
  /** Where the page is written, so its links to the reports are relative (they survive a move of both). */
  page?: string;
}

function manifestOf(dir: string | undefined): RunManifest | undefined {
  if (!dir) return undefined;
  try {
    return readManifest(dir);
  } catch {
    return undefined;
  }
}

function models(m: RunManifest): string {
  return m.providers.map((p) => String(p.label ?? p.id ?? p.key)).join(', ');
}

/** A link to a run's HTML report, or how to write one. */
function reportLink(side: string, dir: string, page: string | undefined): string {
  const file = join(dir, 'report.html');
  if (!existsSync(file))
    return `<li>${h(side)}: no report.html in ${h(dir)} (<code>assay report ${h(dir)} --format html</code> writes it)</li>`;
  const href = page
    ? relative(dirname(page), file).split(sep).map(encodeURIComponent).join('/')
    : pathToFileURL(file).href;
  return `<li><a href="${h(href)}" data-report="${h(side)}">${h(side)} report</a> <span class="muted">${h(file)}</span></li>`;
}

/** The comparison as a self-contained HTML page. */
export function renderComparisonHtml(c: Comparison, labels: ComparedRuns): string {
  const notes: string[] = [];
  notes.push(
    `${c.pairs} cases paired by case identity × prompt × provider${c.trials.baseline > 1 || c.trials.candidate > 1 ? ` (trials per case: ${c.trials.baseline} → ${c.trials.candidate}, reduced per case)` : ''}`,
  );
  if (c.across?.provider)
    notes.push(`paired across providers: ${c.across.provider[0]} → ${c.across.provider[1]}`);
  if (c.across?.prompt) notes.push(`paired across prompts: ${c.across.prompt[0]} → ${c.across.prompt[1]}`);
  notes.push(...pairingNotes(c));
  for (const line of c.incomplete ?? [])
    notes.push(
      `not complete (--allow-partial; no verdict here says the candidate is as good or better): ${line}`,
    );
  if (c.options.minEffect > 0)
    notes.push(`a change counts only beyond ±${c.options.minEffect} (--min-effect)`);
  if (c.flaky) notes.push(`flaky cases: ${percent(c.flaky.baseline)}% → ${percent(c.flaky.candidate)}%`);
  notes.push(...atKNotes(c));
  const before = manifestOf(labels.baselineDir);
  const after = manifestOf(labels.candidateDir);
  const suites = [...new Set([before, after].filter((m) => m !== undefined).map((m) => m.suite.name))];
  const suiteTitle = suites.length > 0 ? `${suites.join(' → ')} · ` : '';
  const modelsLine =
    before && after
      ? `\n<div class="models">models: ${models(before) === models(after) ? `<strong>${h(models(after))}</strong>` : `<strong>${h(models(before))}</strong> → <strong>${h(models(after))}</strong>`}</div>`
      : '';
  const sentences = c.metrics.map((m) => plainSentence(m, c));
  const plain = sentences.length
    ? `\n<ul class="plain">${sentences.map((t) => `<li>${h(t)}</li>`).join('')}</ul>`
    : '';
  const linkItems = [
    labels.baselineDir ? reportLink('baseline', labels.baselineDir, labels.page) : '',
    labels.candidateDir ? reportLink('candidate', labels.candidateDir, labels.page) : '',
  ].join('');
  const links = linkItems ? `\n<ul class="reports">${linkItems}</ul>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(`${suiteTitle}assay compare · ${labels.baseline} → ${labels.candidate}`)}</title><style>${CSS}</style></head>
<body><header><h1>${h(suiteTitle ? suiteTitle.replace(/ · $/, '') : 'assay compare')}</h1>
<div>baseline <strong>${h(labels.baseline)}</strong> → candidate <strong>${h(labels.candidate)}</strong></div>${modelsLine}
<p class="big">Verdict: <span class="verdict ${c.verdict}" data-verdict="${c.verdict}">${h(VERDICT_WORD[c.verdict])}</span> <span class="muted">(seed ${c.options.seed}, ${c.options.correction === 'bh' ? 'Benjamini–Hochberg' : 'Holm'} correction, α = ${c.options.alpha})</span></p>${plain}${
    c.why
      ? `
<p class="muted">${h(c.why)}</p>`
      : ''
  }
<ul class="muted">${notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>${links}</header>
<main><section><h2>Per prompt × provider</h2><div class="metrics-wrap"><table class="metrics"><thead><tr><th>verdict</th><th>prompt · provider</th><th>metric</th><th>baseline → candidate</th><th>change (95% CI)</th><th>change on −1…+1</th><th>p</th><th>test</th><th>smallest detectable (80% power)</th><th>errors</th></tr></thead>
<tbody>${c.metrics.map((m) => metricRow(m, c)).join('')}</tbody></table></div></section>
${viewsHtml(c)}
${flipped('Passed before, fail now', c.regressions)}
${flipped('Failed before, pass now', c.fixes)}
</main><footer>Written by assay from the two runs' logs. Outputs are shown as text.</footer></body></html>
`;
}
