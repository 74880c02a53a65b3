import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { printable } from '../core/printable.js';
import type {
  FailureNote,
  Rate,
  RepeatSummary,
  Scorecard,
  ScorecardCell,
  WeightedScore,
} from '../core/scorecard.js';
import type { JobResult } from '../core/types.js';
import type { RunManifest } from '../runlog/types.js';
import { type CaseIdentity, caseName, resultCase } from './naming.js';

export interface ConsoleStyle {
  color: boolean;
  /**
   * Columns to fit every line into. Unset: the terminal's width when stdout is one, else no limit
   * (a file or a pipe keeps whole lines).
   */
  width?: number;
}

/** The width lines are fitted to: the style's, else the terminal's, else none. */
function widthOf(style: ConsoleStyle): number | undefined {
  if (style.width !== undefined) return style.width > 0 ? style.width : undefined;
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
}

const SGR = /\u001b\[[0-9;]*m/g;

/** A line cut to `width` columns (its colour codes take none), ending in `…` when cut. */
export function fitLine(line: string, width: number | undefined): string {
  if (width === undefined || [...line.replace(SGR, '')].length <= width) return line;
  let out = '';
  let shown = 0;
  let painted = false;
  for (const part of line.split(/(\u001b\[[0-9;]*m)/)) {
    if (part.startsWith('\u001b[')) {
      out += part;
      painted = true;
      continue;
    }
    for (const ch of part) {
      if (shown >= width - 1) return `${out}…${painted ? '\u001b[0m' : ''}`;
      out += ch;
      shown++;
    }
  }
  return out;
}

const codes = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;
type StyleName = keyof typeof codes;

function paint(style: ConsoleStyle, name: StyleName, text: string): string {
  if (!style.color) return text;
  const [open, close] = codes[name];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** Shortens a label to one printable line of at most `max` characters (see core/printable.ts). */
export function oneLine(text: string, max: number): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** `1 error`, `2 errors`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A proportion as a percentage with one decimal that never rounds to a figure it is not: 1,999 of
 * 2,000 is 99.9%, not 100.0%, and 1 of 2,000 is 0.1%, not 0.0%.
 */
export function percent(x: number): string {
  const shown = (x * 100).toFixed(1);
  if (x < 1 && shown === '100.0') return '99.9';
  if (x > 0 && shown === '0.0') return '0.1';
  return shown;
}

/** `83.3% (55.2–95.3%)` */
export function formatRate(rate: Rate): string {
  if (rate.n === 0) return '—';
  return `${percent(rate.value)}% (${percent(rate.low)}–${percent(rate.high)}%)`;
}

function pad(text: string, width: number, right = false): string {
  const len = [...text].length;
  if (len >= width) return text;
  return right ? ' '.repeat(width - len) + text : text + ' '.repeat(width - len);
}

/** The end-of-run summary: totals, per prompt × provider pass rates, failures, metrics, where the run is. */
export function renderSummary(
  manifest: RunManifest,
  card: Scorecard,
  runDir: string,
  style: ConsoleStyle,
): string {
  const lines: string[] = [];
  const c = card.counts;
  lines.push('');
  lines.push(
    `${paint(style, 'bold', `assay · ${printable(manifest.suite.name)}`)} ${paint(style, 'dim', `(${printable(manifest.suite.format)}) · run ${printable(manifest.runId)}`)}`,
  );
  const parts = [
    paint(style, 'green', `${c.pass} passed`),
    paint(style, c.fail > 0 ? 'red' : 'dim', `${c.fail} failed`),
    paint(style, c.error > 0 ? 'yellow' : 'dim', plural(c.error, 'error')),
  ];
  if (c.skip > 0) parts.push(`${c.skip} skipped`);
  const width = widthOf(style);
  // The outcome in one line, or two where the terminal is narrower.
  const counts = `${c.total} jobs: ${parts.join(' · ')}`;
  const rates = `pass rate ${formatRate(card.passRate)} · mean score ${card.meanScore.toFixed(3)}`;
  const oneLineHeadline = `${counts} · ${rates}`;
  const headline =
    width !== undefined && [...oneLineHeadline.replace(SGR, '')].length > width
      ? [counts, rates]
      : [oneLineHeadline];
  lines.push(...headline);

  if (card.cells.length > 0) {
    lines.push('');
    const rows = card.cells.map((cell) => [
      oneLine(cell.promptLabel, 40),
      oneLine(cell.providerId, 30),
      String(cell.pass),
      String(cell.fail),
      String(cell.error),
      formatRate(cell.passRate),
      cell.meanScore.toFixed(3),
      `${Math.round(cell.latencyMsMean)}`,
    ]);
    const header = ['prompt', 'provider', 'pass', 'fail', 'error', 'pass rate (95% CI)', 'score', 'ms'];
    // Streamed answers: time to first token and tokens per second, per column (– where none streamed).
    if (card.cells.some((cell) => cell.stream)) {
      header.push('ttft ms', 'tok/s');
      card.cells.forEach((cell, i) => {
        rows[i].push(...streamFigures(cell.stream));
      });
    }
    let widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...r[i]].length)));
    // On a narrow terminal the prompt and provider labels give way; the figures are never cut.
    const over = width === undefined ? 0 : widths.reduce((a, b) => a + b, 2 * (widths.length - 1)) - width;
    if (over > 0) {
      const provider = Math.max(8, widths[1] - Math.ceil(over / 3));
      const prompt = Math.max(10, widths[0] - (over - (widths[1] - provider)));
      card.cells.forEach((cell, i) => {
        rows[i][0] = oneLine(cell.promptLabel, prompt);
        rows[i][1] = oneLine(cell.providerId, provider);
      });
      widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...r[i]].length)));
    }
    const numeric = new Set([2, 3, 4, 6, 7, 8, 9]);
    const fmt = (r: string[]): string => r.map((v, i) => pad(v, widths[i], numeric.has(i))).join('  ');
    lines.push(paint(style, 'dim', fmt(header)));
    for (const r of rows) lines.push(fmt(r));
  }

  if (card.repeats) lines.push(...renderRepeats(card.repeats, style));

  for (const b of card.breakdowns ?? []) {
    lines.push('');
    lines.push(paint(style, 'bold', `By ${printable(b.by)}`));
    // Named scores summed per group (a count when each result scores 0 or 1), as extra columns.
    const named = [...new Set(b.groups.flatMap((g) => Object.keys(g.namedTotals ?? {})))];
    const header = [
      oneLine(b.by, 40),
      'pass',
      'fail',
      'error',
      'skip',
      'pass rate (95% CI)',
      'mean score (95% CI)',
      ...named.map((n) => `Σ ${oneLine(n, 30)}`),
    ];
    const total = (v: number | undefined): string =>
      v === undefined ? '' : Number.isInteger(v) ? String(v) : v.toFixed(3);
    const rows = b.groups.map((g) => [
      oneLine(g.value, 40),
      String(g.pass),
      String(g.fail),
      String(g.error),
      String(g.skip),
      formatRate(g.passRate),
      formatMean(g.meanScore, 1),
      ...named.map((n) => total(g.namedTotals?.[n])),
    ]);
    const numeric = new Set([1, 2, 3, 4, ...named.map((_, i) => 7 + i)]);
    lines.push(...table(header, rows, numeric, style));
  }

  if (card.weightedScore) lines.push(...renderWeightedScore(card.weightedScore, style));

  const derived = card.cells.filter((cell) => cell.derivedMetrics && cell.derivedMetrics.length > 0);
  if (card.metrics.length > 0 || derived.length > 0) {
    lines.push('');
    lines.push(paint(style, 'bold', 'Metrics'));
    for (const m of card.metrics) lines.push(`  ${oneLine(m.name, 80)}: ${m.mean.toFixed(3)} (n=${m.count})`);
    for (const cell of derived) {
      // Derived metrics are per prompt × provider column; name the column when there are several.
      const column =
        card.cells.length > 1 ? ` · ${oneLine(cell.promptLabel, 30)} · ${oneLine(cell.providerId, 30)}` : '';
      for (const d of cell.derivedMetrics ?? []) {
        const value = Number.isFinite(d.value) ? d.value.toFixed(3) : String(d.value);
        lines.push(`  ${oneLine(d.name, 80)} (derived${column}): ${value}`);
      }
    }
  }

  if (card.failures.length > 0) {
    lines.push('');
    lines.push(...renderFailures(manifest, card, runDir, style, width));
  }

  if (manifest.grader) lines.push('', `Grader: ${graderLine(manifest.grader)}`);
  const extras: string[] = [];
  if (card.tokens > 0) extras.push(`${card.tokens} tokens`);
  if (card.cost > 0) extras.push(`$${card.cost.toFixed(4)}`);
  // `?? 0`: a scorecard.json written before grading was counted has no such fields.
  if ((card.gradingTokens ?? 0) > 0) extras.push(`${card.gradingTokens} grader tokens`);
  if ((card.gradingCost ?? 0) > 0) extras.push(`$${card.gradingCost.toFixed(4)} grading`);
  if (card.cached > 0) extras.push(`${card.cached} cached`);
  if (extras.length > 0) lines.push('', extras.join(' · '));
  if (manifest.status !== 'complete') {
    lines.push('');
    lines.push(
      paint(
        style,
        'yellow',
        `Run ${manifest.status}: ${oneLine(manifest.stopReason ?? '', 300)} (${c.total} of ${manifest.plannedJobs} jobs done)`,
      ),
    );
  }
  // After a list of failures the screen ends on the outcome, not on the last failure.
  if (card.failures.length > 0) lines.push('', ...headline);
  lines.push('');
  lines.push(paint(style, 'dim', `Run written to ${printable(runDir)}`));
  // Paths and commands a person copies are never cut; every other line fits the terminal.
  const whole = (l: string): boolean =>
    /^\s*(Run written to|… and \d+ more|or run the failing tests again)/.test(l.replace(SGR, ''));
  return `${lines.map((l) => (whole(l) ? l : fitLine(l, width))).join('\n')}\n`;
}

/** Failing tests listed on the console; the rest are counted and pointed at. */
const FAILING_TESTS_SHOWN = 10;

/**
 * The failures, one entry per failing test however many prompts × providers (and trials) it
 * failed in: the test, where it failed, the failing assertion's reason, and a one-line excerpt of
 * what the model said (escaped). The rest are counted and pointed at the report and
 * `--filter-failing`.
 */
function renderFailures(
  manifest: RunManifest,
  card: Scorecard,
  runDir: string,
  style: ConsoleStyle,
  width: number | undefined,
): string[] {
  const total = card.failures.length + card.failuresOmitted;
  const lines = [paint(style, 'bold', `Failures and errors (${total})`)];
  const groups = new Map<string, FailureNote[]>();
  for (const f of card.failures) {
    const list = groups.get(f.caseId);
    if (list) list.push(f);
    else groups.set(f.caseId, [f]);
  }
  const text = Math.max(40, (width ?? 172) - 12);
  let shownJobs = 0;
  for (const notes of [...groups.values()].slice(0, FAILING_TESTS_SHOWN)) {
    shownJobs += notes.length;
    const f = notes[0];
    const errorsOnly = notes.every((n) => n.status === 'error');
    const mark = errorsOnly ? paint(style, 'yellow', '! error') : paint(style, 'red', '✗ fail ');
    const where =
      notes.length === 1
        ? `${oneLine(f.promptLabel, 30)} · ${oneLine(f.providerId, 30)}${manifest.options.repeat > 1 ? ` · trial ${f.trial + 1}` : ''}`
        : spread(notes, manifest.options.repeat > 1);
    const title = `  ${mark} ${caseLabel(f)}`;
    const visible = (l: string): number => [...l.replace(SGR, '')].length;
    // Where it failed goes on a line of its own when the terminal has no room beside the name.
    if (width === undefined || visible(`${title} · ${where}`) <= width) lines.push(`${title} · ${where}`);
    else lines.push(title, `           ${paint(style, 'dim', where)}`);
    // The first failing assertion's reason; other assertions that failed elsewhere are counted.
    const assertions = new Set(notes.map((n) => n.assertion ?? ''));
    const others = assertions.size > 1 ? ` (and ${plural(assertions.size - 1, 'other assertion')})` : '';
    const reason = `${f.assertion && f.assertion !== 'error' ? `${f.assertion}: ` : ''}${f.reason}`;
    lines.push(`           ${paint(style, 'dim', `${oneLine(reason, text - others.length)}${others}`)}`);
    if (f.output !== undefined && f.output !== '')
      lines.push(
        `           ${paint(style, 'dim', `output: ${oneLine(JSON.stringify(f.output), text - 8)}`)}`,
      );
    else if (!errorsOnly) lines.push(`           ${paint(style, 'dim', 'output: (empty)')}`);
  }
  const more = total - shownJobs;
  if (more > 0) {
    const report = join(runDir, 'report.html');
    // The run as the person would type it: relative to where they are, when it is below.
    const under = relative(process.cwd(), runDir);
    const run = printable(under && !under.startsWith('..') && !isAbsolute(under) ? under : runDir);
    const see = existsSync(report) ? pathToFileURL(report).href : `assay report ${run} --format html`;
    const suite = manifest.suite.path
      ? ` ${printable(relative(process.cwd(), manifest.suite.path) || '.')}`
      : '';
    lines.push(`  … and ${more} more in the report: ${see}`);
    // A suite that is no file (a config object, promptfoo's flags alone) has no command to name.
    if (!manifest.suite.path || existsSync(manifest.suite.path))
      lines.push(`    or run the failing tests again: assay eval${suite} --filter-failing ${run}`);
  }
  return lines;
}

/** Where a test failed, briefly: `2 prompts × 3 providers`, `in 3 of its trials`. */
function spread(notes: FailureNote[], repeated: boolean): string {
  const prompts = new Set(notes.map((n) => n.promptLabel)).size;
  const providers = new Set(notes.map((n) => n.providerId)).size;
  if (prompts === 1 && providers === 1)
    return `${oneLine(notes[0].promptLabel, 30)} · ${oneLine(notes[0].providerId, 30)} · ${plural(notes.length, repeated ? 'trial' : 'job')}`;
  const parts = [plural(prompts, 'prompt'), plural(providers, 'provider')];
  return `fails in ${parts.join(' × ')}${repeated ? ` (${plural(notes.length, 'job')})` : ''}`;
}

/** A stream summary's time to first token (ms) and tokens per second, as printed ('–' where unknown). */
export function streamFigures(s: ScorecardCell['stream']): [string, string] {
  if (!s) return ['–', '–'];
  return [
    `${Math.round(s.firstTokenMsMean)}`,
    s.tokensPerSecondMean === undefined ? '–' : s.tokensPerSecondMean.toFixed(1),
  ];
}

/** The grader of the run and why it is that one, on one printable line. */
export function graderLine(g: NonNullable<RunManifest['grader']>): string {
  return oneLine(`${g.id}${g.embedding ? ` (embeddings: ${g.embedding})` : ''} — ${g.reason}`, 300);
}

/** A case's name and id on one printable line: `"capital of France" (fe0b368bc59d)`, `"Row #2" country=Japan (…)`. */
export function caseLabel(c: CaseIdentity, max = 60): string {
  const { title, id, detail } = caseName(c);
  if (title === `case ${id}`) return `case ${oneLine(id, 40)}`;
  return `"${oneLine(title, max)}"${detail ? ` ${oneLine(detail, max)}` : ''} (${oneLine(id, 40)})`;
}

/** Repeated cases: pass@k and pass^k, the flaky share and the flakiest cases. */
function renderRepeats(r: RepeatSummary, style: ConsoleStyle): string[] {
  const lines = [
    '',
    paint(style, 'bold', `Repeats: up to ${plural(r.trials, 'trial')} per case, ${plural(r.cases, 'case')}`),
  ];
  const atK = r.atK.map(
    (a) =>
      `pass@${a.k} ${percent(a.passAtK)}% · pass^${a.k} ${percent(a.passHatK)}%` +
      (a.cases < r.cases ? ` (over the ${a.cases} of ${r.cases} cases with ≥ ${a.k} judged trials)` : ''),
  );
  if (atK.length > 0) lines.push(`  ${atK.join(' · ')}`);
  for (const k of r.atKDropped ?? [])
    lines.push(
      `  pass@${k} not shown: no case has ${k} judged trials (up to ${plural(r.trials, 'trial')} per case)`,
    );
  lines.push(
    `  flaky (trials disagree): ${r.flaky} of ${r.cases} cases (${r.cases > 0 ? percent(r.flaky / r.cases) : '0.0'}%)`,
  );
  for (const f of r.flakiest) {
    const what = caseLabel(f);
    lines.push(
      `    ${f.passed}/${f.trials} passed · ${what} · ${oneLine(f.promptLabel, 30)} · ${oneLine(f.providerId, 30)}`,
    );
  }
  return lines;
}

/**
 * The weighted score's table (group, score with its 95% CI, passed/total, weight) and total. Where
 * the suite rounds like its own tool, the point figures are the tool's; the intervals are assay's.
 */
function renderWeightedScore(ws: WeightedScore, style: ConsoleStyle): string[] {
  const lines = ['', paint(style, 'bold', `${printable(ws.name)} by ${printable(ws.groupBy)}`)];
  const header = [oneLine(ws.groupBy, 40), 'score (95% CI)', 'passed', 'weight'];
  const rows = ws.groups
    .filter((g) => g.total > 0)
    .map((g) => [
      oneLine(g.value, 40),
      formatMean(g.meanScore, ws.scale, g.rounded),
      `${g.pass}/${g.total}`,
      g.weight.toFixed(2),
    ]);
  for (const g of ws.notRun) rows.push([oneLine(g.value, 40), 'not run', '—', g.weight.toFixed(2)]);
  lines.push(...table(header, rows, new Set([2, 3]), style));
  lines.push(`${paint(style, 'bold', printable(ws.name))}: ${formatMean(ws.score, ws.scale, ws.rounded)}`);
  const unscored = ws.groups.reduce((n, g) => n + g.unscored, 0);
  if (unscored > 0)
    lines.push(
      paint(
        style,
        'yellow',
        `${unscored} error results have no score and are left out of the ${ws.groupBy} scores (see below)`,
      ),
    );
  const weighted = ws.groups.some((g) => g.total > 0 && g.weight > 0);
  if (!weighted)
    lines.push(paint(style, 'dim', `${ws.name}: no ${ws.groupBy} with a weight ran, so there is no total`));
  else if (ws.notRun.length > 0)
    lines.push(paint(style, 'dim', `${ws.name}: weights re-normalised over the groups that ran`));
  return lines;
}

/** `0.734 (0.61–0.86)`, or on a scale: `73.4 (61.0–85.9)`; `point` replaces the mean's own figure. */
export function formatMean(m: Rate, scale: number, point?: number): string {
  if (m.n === 0) return '—';
  const digits = scale >= 10 ? 1 : 3;
  const f = (x: number): string => (x * scale).toFixed(digits);
  const shown = point !== undefined ? point.toFixed(digits) : f(m.value);
  return `${shown} (${f(m.low)}–${f(m.high)})`;
}

function table(header: string[], rows: string[][], numeric: Set<number>, style: ConsoleStyle): string[] {
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...r[i]].length)));
  const fmt = (r: string[]): string => `  ${r.map((v, i) => pad(v, widths[i], numeric.has(i))).join('  ')}`;
  return [paint(style, 'dim', fmt(header)), ...rows.map(fmt)];
}

/** One line per finished job, for `--verbose`. */
export function renderResultLine(r: JobResult, style: ConsoleStyle): string {
  const mark =
    r.status === 'pass'
      ? paint(style, 'green', 'PASS ')
      : r.status === 'fail'
        ? paint(style, 'red', 'FAIL ')
        : r.status === 'error'
          ? paint(style, 'yellow', 'ERROR')
          : 'SKIP ';
  const what = caseLabel(resultCase(r), 40);
  const why = r.status === 'pass' ? '' : ` — ${oneLine(r.reason, 100)}`;
  return `${mark} ${what} · ${oneLine(r.promptLabel, 24)} · ${oneLine(r.providerId, 30)} · ${r.score.toFixed(2)} · ${Math.round(r.answer.latencyMs)}ms${why}\n`;
}

/** A duration as a clock reads: `0:07`, `12:30`, `1:02:03`. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/**
 * The live progress line: jobs done, the tally, the rate, the time since the run started and the
 * time left at the rate so far (none until a job is done).
 */
export function renderProgress(
  p: { done: number; planned: number; pass: number; fail: number; error: number },
  ratePerSec: number,
  elapsedMs?: number,
): string {
  const pct = p.planned > 0 ? ((p.done / p.planned) * 100).toFixed(1) : '100.0';
  const line = `[${p.done}/${p.planned}] ${pct}% · ${p.pass} pass · ${p.fail} fail · ${p.error} error · ${ratePerSec.toFixed(ratePerSec < 10 ? 1 : 0)} jobs/s`;
  if (elapsedMs === undefined) return line;
  const left = p.planned - p.done;
  const eta =
    left <= 0
      ? ''
      : p.done > 0 && ratePerSec > 0
        ? ` · ETA ${clock((left / ratePerSec) * 1000)}`
        : ' · ETA –';
  return `${line} · ${clock(elapsedMs)} elapsed${eta}`;
}
