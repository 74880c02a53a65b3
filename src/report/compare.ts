// The console view of a comparison: each prompt × provider and metric first in a plain sentence
// (what moved, and whether that is more than chance), its statistics on one line below, the cases
// that flipped and the verdict; with --verbose every figure (the test, corrected p-values and
// intervals, the smallest change the suite could have seen, the errors both ways).
import type { Comparison, ComparisonViews, FlippedCase, MetricComparison } from '../analysis/compare.js';
import { caseLabel, oneLine, percent, plural } from './console.js';

const VERDICT_WORD: Record<string, string> = {
  regressed: 'REGRESSED',
  improved: 'improved',
  inconclusive: 'inconclusive',
  unchanged: 'unchanged',
  'cannot-judge': 'CANNOT JUDGE',
};

function signed(x: number, digits: number): string {
  const v = x.toFixed(digits);
  return x > 0 ? `+${v}` : v === `-${(0).toFixed(digits)}` ? (0).toFixed(digits) : v;
}

/** A metric's figures: pass rates as percentage points, scores on their own scale. */
function figure(m: MetricComparison, x: number, sign = false): string {
  if (m.metric === 'pass rate') return `${sign ? signed(x * 100, 1) : percent(x)}${sign ? ' pts' : '%'}`;
  return sign ? signed(x, 3) : x.toFixed(3);
}

function pValue(p: number): string {
  return p < 0.0001 ? '<0.0001' : p.toFixed(4);
}

/** A change in the metric's own words: `−20.0 points`, `+0.050`. */
function changeWords(m: MetricComparison, x: number): string {
  const sign = x < 0 ? '−' : '+';
  return m.metric === 'pass rate'
    ? `${sign}${Math.abs(x * 100).toFixed(1)} points`
    : `${sign}${Math.abs(x).toFixed(3)}`;
}

/** "1 test", "3 tests". */
function tests(n: number): string {
  return plural(n, 'test');
}

/**
 * Which way the paired tests moved, in words: "1 test went from pass to fail", "2 tests went from
 * pass to fail and 1 from fail to pass" (one trial a test), "passed less often" (repeated), "scored
 * lower" (a score).
 */
function movedWords(m: MetricComparison, repeated: boolean): string {
  const { down, up } = m.moved;
  const [worse, better] =
    m.metric === 'score'
      ? ['scored lower', 'higher']
      : repeated
        ? ['passed less often', 'more often']
        : ['went from pass to fail', 'from fail to pass'];
  const [worseAlone, betterAlone] =
    m.metric === 'score'
      ? ['scored lower', 'scored higher']
      : repeated
        ? ['passed less often', 'passed more often']
        : ['went from pass to fail', 'went from fail to pass'];
  if (down > 0 && up > 0) return `${tests(down)} ${worse} and ${up} ${better}`;
  if (down > 0) return `${tests(down)} ${worseAlone}`;
  return `${tests(up)} ${betterAlone}`;
}

/** "this suite detects changes of 26.9 points or more" / "this suite cannot detect a change of any size". */
function detectsWords(m: MetricComparison): string {
  if (!Number.isFinite(m.minimumDetectable)) return 'this suite cannot detect a change of any size';
  const size =
    m.metric === 'pass rate'
      ? `${(m.minimumDetectable * 100).toFixed(1)} points`
      : m.minimumDetectable.toFixed(3);
  return `this suite detects changes of ${size} or more`;
}

/**
 * One comparison in a plain sentence, no statistics vocabulary: what moved, and whether it is more
 * than chance — "1 test went from pass to fail; with 3 cases that could be chance — this suite
 * cannot detect a change of any size." The console leads with it and the compare page shows it.
 */
export function plainSentence(m: MetricComparison, c: Comparison): string {
  const repeated = c.trials.baseline > 1 || c.trials.candidate > 1;
  const cases = plural(m.pairs, 'case');
  const what = m.metric === 'pass rate' ? 'pass rate' : 'mean score';
  const still = m.moved.down === 0 && m.moved.up === 0;
  const notWhole = c.incomplete !== undefined;
  let sentence: string;
  if (m.nothingJudged) sentence = `every trial of these ${cases} errored on both sides: nothing was judged`;
  else if (m.verdict === 'cannot-judge') {
    const errors = m.errors.baseline + m.errors.candidate;
    sentence = `${still ? `no test changed over ${cases}` : movedWords(m, repeated)}, but ${plural(errors, 'trial')} errored, and had they passed or failed the answer would differ: the errors decide it, not the model`;
  } else if (still)
    sentence = notWhole
      ? `no test changed among the ${cases} both runs reached, but a run is not complete: the jobs never run may be the ones that changed`
      : `no test changed over ${cases}; ${detectsWords(m)}`;
  else {
    const moved = movedWords(m, repeated);
    const shift = `${m.delta < 0 ? 'fell' : 'rose'} ${changeWords(m, Math.abs(m.delta)).slice(1)}`;
    if (m.verdict === 'regressed' || m.verdict === 'improved')
      sentence = `${moved}; with ${cases} that is more than chance: the ${what} ${shift}`;
    else if (notWhole && m.pAdjusted < c.options.alpha && (m.corrected.low > 0 || m.corrected.high < 0))
      sentence = `${moved}; more than chance among the ${cases} both runs reached, but a run is not complete: the jobs never run may be the ones that changed`;
    else if (
      m.pAdjusted < c.options.alpha &&
      c.options.minEffect > 0 &&
      (m.corrected.low > 0 || m.corrected.high < 0)
    )
      sentence = `${moved}; more than chance, but the ${what} ${shift}, not clearly beyond ±${c.options.minEffect} (--min-effect): too small to count`;
    else sentence = `${moved}; with ${cases} that could be chance — ${detectsWords(m)}`;
    if (notWhole && m.verdict === 'inconclusive' && !sentence.includes('not complete'))
      sentence += ' (and a run is not complete)';
  }
  const several = new Set(c.metrics.map((x) => `${x.cell.promptLabel}\u0000${x.cell.providerId}`)).size > 1;
  const text = `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
  return several ? `${m.cell.promptLabel} · ${m.cell.providerId}: ${text}` : text;
}

/** One line of a comparison's statistics: the figures, the change with its interval, the test's p. */
function statisticsLine(m: MetricComparison, c: Comparison): string {
  const corrected =
    c.metrics.length > 1
      ? `, ${c.options.correction === 'bh' ? 'Benjamini–Hochberg' : 'Holm'}-adjusted ${pValue(m.pAdjusted)}`
      : '';
  const errors =
    m.errors.baseline + m.errors.candidate > 0
      ? ` · errors ${m.errors.baseline} → ${m.errors.candidate}`
      : '';
  const bound = (x: number): string => (m.metric === 'pass rate' ? signed(x * 100, 1) : signed(x, 3));
  return `  ${m.metric} ${figure(m, m.baseline)} → ${figure(m, m.candidate)}: ${figure(m, m.delta, true)} (95% CI ${bound(m.low)} to ${bound(m.high)}) · ${m.test} p = ${pValue(m.p)}${corrected}${errors}`;
}

/**
 * The comparison as text for a terminal (untrusted text made printable): each comparison in a plain
 * sentence with its statistics on one line below, the tests that flipped, and the verdict; with
 * `verbose`, every figure (the tests, corrected p-values and intervals, the smallest detectable
 * change, the errors both ways).
 */
export function renderComparison(
  c: Comparison,
  labels: { baseline: string; candidate: string },
  opts: { verbose?: boolean } = {},
): string {
  const verbose = opts.verbose === true;
  const lines: string[] = [''];
  lines.push(
    `assay compare · baseline ${oneLine(labels.baseline, 80)} → candidate ${oneLine(labels.candidate, 80)}`,
  );
  for (const m of c.metrics) {
    lines.push(oneLine(plainSentence(m, c), 400));
    if (!verbose) lines.push(statisticsLine(m, c));
  }
  lines.push('');
  lines.push(
    `${plural(c.pairs, 'case')} paired by case identity × prompt × provider` +
      (c.trials.baseline > 1 || c.trials.candidate > 1
        ? ` (trials per case: ${c.trials.baseline} → ${c.trials.candidate}, reduced per case)`
        : ''),
  );
  if (c.across?.provider)
    lines.push(
      `Paired across providers: ${oneLine(c.across.provider[0], 50)} → ${oneLine(c.across.provider[1], 50)}`,
    );
  if (c.across?.prompt)
    lines.push(
      `Paired across prompts: ${oneLine(c.across.prompt[0], 50)} → ${oneLine(c.across.prompt[1], 50)}`,
    );
  lines.push(...pairingNotes(c));
  if (verbose) {
    lines.push('');
    for (const m of c.metrics) lines.push(...metricBlock(m, c));
  }
  if (c.views) lines.push(...renderViews(c.views, c.incomplete !== undefined));
  if (verbose && c.options.minEffect > 0)
    lines.push(
      '',
      `A change counts only beyond ±${c.options.minEffect} (--min-effect): a significant but smaller change is inconclusive.`,
    );
  if (c.flaky)
    lines.push(
      '',
      `Flaky cases (trials disagree): ${percent(c.flaky.baseline)}% → ${percent(c.flaky.candidate)}%`,
    );
  lines.push(...atKNotes(c));
  lines.push(...flips('Passed before, fail now', c.regressions));
  lines.push(...flips('Failed before, pass now', c.fixes));
  if (c.why) lines.push('', `Why: ${oneLine(c.why, 300)}`);
  if (c.incomplete)
    lines.push(
      '',
      'Not complete (--allow-partial): the jobs never run may be the ones that changed, so no verdict here says the candidate is as good or better',
      ...c.incomplete.map((l) => `  ${oneLine(l, 300)}`),
    );
  lines.push(
    '',
    `Verdict: ${VERDICT_WORD[c.verdict]} (seed ${c.options.seed}${verbose ? '' : '; --verbose for every figure'})`,
  );
  return `${lines.join('\n')}\n`;
}

/** Every figure of one comparison (`--verbose`). */
function metricBlock(m: MetricComparison, c: Comparison): string[] {
  const lines: string[] = [];
  const cell = `${oneLine(m.cell.promptLabel, 40)} · ${oneLine(m.cell.providerId, 30)}`;
  const correction = c.options.correction === 'bh' ? 'Benjamini–Hochberg' : 'Holm';
  lines.push(`${VERDICT_WORD[m.verdict]}: ${m.metric} · ${cell}`);
  const corrected =
    Math.abs(m.corrected.level - (1 - c.options.alpha)) > 1e-12
      ? `; at the ${correction}-corrected level ${levelText(m.corrected.level)}: ${figure(m, m.corrected.low, true)} to ${figure(m, m.corrected.high, true)}`
      : '';
  lines.push(
    `  ${figure(m, m.baseline)} → ${figure(m, m.candidate)}, change ${figure(m, m.delta, true)} (95% CI ${figure(m, m.low, true)} to ${figure(m, m.high, true)}${corrected})`,
  );
  const discordant = m.discordant
    ? `; ${m.discordant.regressed} passed before and fail now, ${m.discordant.improved} the reverse`
    : '';
  lines.push(`  ${m.test}: p = ${pValue(m.p)}, ${correction}-adjusted ${pValue(m.pAdjusted)}${discordant}`);
  const mde = Number.isFinite(m.minimumDetectable)
    ? m.metric === 'pass rate'
      ? `${(m.minimumDetectable * 100).toFixed(1)} pts`
      : m.minimumDetectable.toFixed(3)
    : 'none (too few cases for this test)';
  lines.push(
    `  smallest change this suite could detect (80% power, ${m.test}, α = ${c.options.alpha} over ${plural(c.metrics.length, 'comparison')}): ${mde}`,
  );
  if (m.errors.baseline > 0 || m.errors.candidate > 0)
    lines.push(`  errors (counted as not passing): ${m.errors.baseline} → ${m.errors.candidate}`);
  if (m.errorBounds)
    lines.push(
      `  had the errors passed (candidate) and failed (baseline): ${figure(m, m.errorBounds.best.delta, true)}, ${m.errorBounds.best.verdict}; the reverse: ${figure(m, m.errorBounds.worst.delta, true)}, ${m.errorBounds.worst.verdict}`,
    );
  return lines;
}

/** A confidence level as a percentage with as many decimals as it needs: `98.3%`, `99.98%`. */
export function levelText(level: number): string {
  for (let digits = 1; digits < 8; digits++) {
    const shown = (level * 100).toFixed(digits);
    if (Number(shown) < 100) return `${shown}%`;
  }
  return `${(level * 100).toPrecision(12)}%`;
}

/**
 * What the pairing left out or did beyond labels, one line each (the console and the HTML page
 * both say it): prompts paired by position, shared labels, cases on one side only, cases judged on
 * one side only, and columns that fell out.
 */
export function pairingNotes(c: Comparison): string[] {
  const lines: string[] = [];
  for (const p of c.prompts?.byPosition ?? [])
    lines.push(
      `Paired by position (prompt ${p.position}, no label, its text changed): ${oneLine(p.baseline, 50)} → ${oneLine(p.candidate, 50)}`,
    );
  for (const s of c.prompts?.sharedLabels ?? [])
    lines.push(
      `The label ${oneLine(s.label, 50)} names ${s.prompts} prompts in the ${s.side}: they pair by label and position (${oneLine(s.label, 40)} #1, #2, …); give each prompt its own label`,
    );
  if (c.onlyBaseline.length > 0 || c.onlyCandidate.length > 0)
    lines.push(
      `The suites differ: ${plural(c.onlyBaseline.length, 'case')} only in the baseline, ${plural(c.onlyCandidate.length, 'case')} only in the candidate (left out of every figure)`,
    );
  if (c.unjudged.length > 0) {
    const count = (side: string) => c.unjudged.filter((u) => u.judgedIn === side).length;
    const parts = [
      count('baseline') > 0 ? `${plural(count('baseline'), 'case')} judged in the baseline only` : '',
      count('candidate') > 0 ? `${plural(count('candidate'), 'case')} judged in the candidate only` : '',
      count('neither') > 0 ? `${plural(count('neither'), 'case')} judged on neither side` : '',
    ].filter(Boolean);
    lines.push(
      `Not paired: ${parts.join(', ')} (every trial skipped on the other side: a skip is not a failure; left out of every figure)`,
    );
  }
  for (const f of c.fellOut)
    lines.push(
      `No case of ${oneLine(f.promptLabel, 40)} · ${oneLine(f.providerId, 30)} (${f.side}) was compared`,
    );
  return lines;
}

/** What pass@k left out: cases with too few judged trials per k, and k no case had enough for. */
export function atKNotes(c: Comparison): string[] {
  const lines: string[] = [];
  for (const a of c.atK ?? [])
    lines.push(
      `pass@${a.k} ${percent(a.baseline.passAtK)}% → ${percent(a.candidate.passAtK)}% · pass^${a.k} ${percent(a.baseline.passHatK)}% → ${percent(a.candidate.passHatK)}%` +
        (a.leftOut > 0
          ? ` (over ${plural(a.cases, 'case')}; ${plural(a.leftOut, 'case')} with fewer than ${a.k} judged trials on a side left out)`
          : ''),
    );
  if (c.atKDropped?.length)
    lines.push(
      `pass@k not shown for k = ${c.atKDropped.join(', ')}: no paired case has that many judged trials on both sides (trials per case: ${c.trials.baseline} → ${c.trials.candidate})`,
    );
  return lines;
}

/**
 * The suite's own summaries side by side: breakdown pass rates, the weighted score and its winner.
 * Of runs that are not whole, the figures only, without a direction or a winner: the jobs never
 * run may be the ones that changed.
 */
function renderViews(v: ComparisonViews, partial: boolean): string[] {
  const lines: string[] = [];
  const arrow = (a?: number, b?: number): string =>
    partial || a === undefined || b === undefined ? ' ' : b > a ? '↑' : b < a ? '↓' : '=';
  const sides = partial
    ? 'baseline → candidate; not complete: the jobs that ran, no verdict'
    : 'baseline → candidate';
  for (const b of v.breakdowns) {
    lines.push('', `Pass rate by ${oneLine(b.by, 40)} (${sides})`);
    for (const g of b.groups)
      lines.push(
        `  ${oneLine(g.value, 30)}: ${g.baseline === undefined ? '—' : `${percent(g.baseline)}%`} → ${g.candidate === undefined ? '—' : `${percent(g.candidate)}%`} ${arrow(g.baseline, g.candidate)}`,
      );
  }
  const w = v.weighted;
  if (w) {
    const digits = w.scale >= 10 ? 1 : 3;
    const f = (x?: number): string => (x === undefined ? '—' : x.toFixed(digits));
    lines.push('', `${oneLine(w.name, 40)} by ${oneLine(w.groupBy, 40)} (${sides})`);
    for (const g of w.groups)
      lines.push(
        `  ${oneLine(g.value, 30)}: ${f(g.baseline)} → ${f(g.candidate)} ${arrow(g.baseline, g.candidate)}`,
      );
    const winner = w.candidate > w.baseline ? 'candidate' : w.candidate < w.baseline ? 'baseline' : 'tie';
    lines.push(
      partial
        ? `  ${oneLine(w.name, 40)}: ${f(w.baseline)} → ${f(w.candidate)} (not complete: no winner)`
        : `  ${oneLine(w.name, 40)}: ${f(w.baseline)} → ${f(w.candidate)} ${arrow(w.baseline, w.candidate)} (higher: ${winner}; the paired verdict above says whether it is more than noise)`,
    );
  }
  return lines;
}

const MAX_FLIPS_SHOWN = 20;

function flips(title: string, list: FlippedCase[]): string[] {
  if (list.length === 0) return [];
  const lines = ['', `${title} (${list.length})`];
  for (const f of list.slice(0, MAX_FLIPS_SHOWN)) {
    const name = caseLabel({ caseId: f.caseRef, ...f });
    lines.push(`  ${name} · ${oneLine(f.promptLabel, 30)} · ${oneLine(f.providerId, 30)}`);
    lines.push(
      `    before (${percent(f.baseline.passRate)}%): ${oneLine(f.baseline.output ?? f.baseline.reason, 100)}`,
    );
    lines.push(
      `    now    (${percent(f.candidate.passRate)}%): ${oneLine(f.candidate.output ?? f.candidate.reason, 100)}`,
    );
  }
  if (list.length > MAX_FLIPS_SHOWN)
    lines.push(`  … and ${list.length - MAX_FLIPS_SHOWN} more (--json lists all)`);
  return lines;
}
