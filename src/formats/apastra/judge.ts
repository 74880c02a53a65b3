// apastra's judgement of a finished run: thresholds (every `normalized_metrics[m] >= threshold`;
// a quick eval's `pass_rate`), printed in the shape of apastra's eval report, then — when the
// suite has an active baseline (`derived-index/baselines/<suite-id>.json`) and a policy
// (`promptops/policies/regression.yaml`) — the regression comparison, written to
// `derived-index/regressions/`. A failed threshold, or a regression status other than pass
// (apastra's CI gate fails on `warning` too), fails the run.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readCaseRecords } from '../../analysis/cases.js';
import { type Comparison, compareRuns } from '../../analysis/compare.js';
import { displayPath } from '../../core/positions.js';
import { printable } from '../../core/printable.js';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import { PyFloat, type PyValue, pyJsonLoads } from '../../core/python/json-loads.js';
import { toPyValue } from '../../core/python/str.js';
import { renderComparison } from '../../report/compare.js';
import { completenessText, runCompleteness } from '../../runlog/completeness.js';
import { writeFileWhole } from '../../runlog/write-whole.js';
import { readDoc } from './documents.js';
import type { ApastraNative, ModelRun } from './native.js';
import { comparePolicy, renderRegression } from './policy.js';
import { schemaProblems } from './schemas.js';

/** Where a suite's active baseline and the workspace's regression policy are. */
export function gatePaths(native: ApastraNative): { baseline: string; policy: string; regressions: string } {
  const safe = native.suiteId.replace(/[^\p{L}\p{N}._-]+/gu, '_');
  return {
    baseline: join(native.root, 'derived-index', 'baselines', `${safe}.json`),
    policy: join(native.root, 'promptops', 'policies', 'regression.yaml'),
    regressions: join(native.root, 'derived-index', 'regressions'),
  };
}

const two = (x: number): string => x.toFixed(2);

/** Whether a baseline document carries metrics compare.py can read (the skill's shape, not the schema's). */
export function baselineHasMetrics(doc: PyValue): boolean {
  if (!(doc instanceof Map)) return false;
  const inner = doc.has('scorecard') ? doc.get('scorecard') : doc;
  return inner instanceof Map && inner.get('normalized_metrics') instanceof Map;
}

/** Thresholds and regression for one model's run; `text` in apastra's report shape. */
export async function judgeRun(
  native: ApastraNative,
  run: ModelRun,
  scorecard: Map<string, PyValue>,
  folder: string,
  paths: ReturnType<typeof gatePaths>,
  runDir: string,
  runStatus: string = 'complete',
): Promise<{ text: string; failed: boolean }> {
  // An interrupted or aborted run judged nothing whole: never PASS, never compared with the baseline.
  const unfinished = runStatus !== 'complete';
  const metrics = scorecard.get('normalized_metrics') as Map<string, PyValue>;
  const value = (m: string): number | undefined => {
    const v = metrics.get(m);
    return v instanceof PyFloat ? v.value : undefined;
  };
  const lines: string[] = [];
  let thresholdsFail = false;
  const metricLines: string[] = [];
  for (const [m, t] of Object.entries(native.thresholds)) {
    const v = m === 'pass_rate' && native.kind === 'eval' ? passRate(run) : value(m);
    const ok = v !== undefined && v >= t;
    if (!ok) thresholdsFail = true;
    if (m === 'pass_rate' && native.kind === 'eval') continue;
    metricLines.push(
      `  ${m}: ${v === undefined ? 'missing' : two(v)} (threshold: ${two(t)}) ${ok ? '✅' : '❌'}`,
    );
  }
  for (const [m, v] of metrics)
    if (!(m in native.thresholds) && v instanceof PyFloat) metricLines.push(`  ${m}: ${two(v.value)}`);
  const errors = run.jobs.error;
  const status = !thresholdsFail && errors === 0 && !unfinished;
  lines.push(
    `${native.kind === 'eval' ? 'Quick Eval' : 'Suite'}: ${native.suiteId}${run.model ? ` (model ${run.model})` : ''}`,
  );
  lines.push(
    `Status: ${status ? 'PASS ✅' : 'FAIL ❌'}${unfinished ? ` (the run is ${runStatus}: ${run.jobs.total} jobs done, not all it planned)` : ''}${errors > 0 ? ` (${errors} of ${run.jobs.total} jobs errored: no answer was scored)` : ''}`,
  );
  lines.push('');
  if (native.kind === 'eval') {
    lines.push('Cases:');
    for (const c of run.cases) {
      const mark = c.errors.length > 0 ? '⚠️ error' : c.passed === c.total ? '✅' : '❌';
      lines.push(`  ${c.caseId}: ${c.asserts.passed}/${c.asserts.total} assertions passed ${mark}`);
    }
    lines.push('');
    const rate = passRate(run);
    const t = native.thresholds.pass_rate;
    lines.push(
      `Pass rate: ${two(rate)}${t !== undefined ? ` (threshold: ${two(t)}) ${rate >= t ? '✅' : '❌'}` : ''}`,
    );
    if (metricLines.length > 0) lines.push('', 'Metrics:', ...metricLines);
  } else {
    lines.push('Metrics:', ...(metricLines.length ? metricLines : ['  (none)']));
    lines.push('', 'Per-case results:');
    for (const c of run.cases) {
      const shown = [...c.metricValues]
        .filter(([m]) => !m.startsWith('assert_'))
        .map(([m, vs]) => `${m}=${two(vs.reduce((a, b) => a + b, 0) / vs.length)}`);
      if (c.asserts.total > 0) shown.push(`${c.asserts.passed}/${c.asserts.total} assertions`);
      const mark = c.errors.length > 0 ? '⚠️ error' : c.passed === c.total ? '✅' : '❌';
      lines.push(`  ${c.caseId}: ${shown.join(' ') || '(no metric)'} ${mark}`);
    }
  }
  let failed = thresholdsFail || unfinished;
  // Regression against the active baseline, when the workspace has one and a policy.
  if (unfinished && existsSync(paths.baseline)) {
    lines.push('', `Regression: not compared — the run is ${runStatus}; finish it with --resume`);
  } else if (existsSync(paths.baseline)) {
    lines.push('');
    if (!existsSync(paths.policy)) {
      lines.push(`Regression: not compared — a baseline exists but ${displayPath(paths.policy)} does not`);
    } else {
      const baseline = pyJsonLoads(readFileSync(paths.baseline, 'utf8'));
      const partialBaseline = await baselineIncomplete(baseline);
      if (partialBaseline) {
        // A baseline saved with --force from a run that did not complete: its metrics cover only
        // the cases it reached, so a gate against it cannot pass.
        lines.push(
          `Regression: not compared — the baseline ${displayPath(paths.baseline)} is of a run that ${partialBaseline}; a gate against it cannot pass (save a complete run as the baseline: assay baseline save RUN)`,
        );
        failed = true;
      } else if (!baselineHasMetrics(baseline)) {
        lines.push(
          `Regression: not compared — ${displayPath(paths.baseline)} holds no scorecard (apastra's baseline-schema shape has ids and a digest only); save one with assay baseline save`,
        );
      } else {
        const policy = toPyValue(readDoc(paths.policy).py);
        const candidateRef = join(folder, 'scorecard.json');
        const candidate = new Map<string, PyValue>([
          ['scorecard', scorecard],
          ['manifest', new Map<string, PyValue>([['total_cost', new PyFloat(run.cost)]])],
        ]);
        const outcome = comparePolicy(candidate, baseline, policy, {
          candidate: candidateRef,
          baseline: paths.baseline,
        });
        const problems = schemaProblems('regression-report', JSON.parse(pyJsonDumps(outcome.report)));
        if (problems.length > 0)
          throw new Error(`regression report invalid: ${problems.map((p) => p.message).join('; ')}`);
        // Beyond apastra: a baseline saved by assay points at its run, so the two runs are also
        // paired case by case and a delta inside the noise is said to be noise.
        const comparison = await pairedStatistics(baseline, runDir);
        mkdirSync(paths.regressions, { recursive: true });
        const out = join(paths.regressions, `${basename(folder)}.json`);
        let text = pyJsonDumps(outcome.report, { indent: 2, ensureAscii: false });
        if (comparison)
          text = `${text.slice(0, text.lastIndexOf('}')).trimEnd()},\n  "paired_statistics": ${JSON.stringify(comparison, null, 2).replace(/\n/g, '\n  ')}\n}`;
        writeFileWhole(out, text);
        lines.push(renderRegression(outcome).trimEnd());
        if (comparison)
          lines.push(renderComparison(comparison, { baseline: 'baseline', candidate: 'this run' }).trimEnd());
        lines.push(`Regression report: ${displayPath(out)}`);
        if (outcome.status !== 'pass') failed = true;
      }
    }
  }
  // Ids and metric names come from the user's files: shown, never interpreted by the terminal.
  return { text: `${printable(lines.join('\n'), true)}\n`, failed };
}

/**
 * Why an apastra baseline saved by assay is not of a whole run, if it is not: the mark `baseline
 * save --force` leaves (`assay_incomplete`), else the completeness of the assay copy it names
 * (a baseline saved before the mark existed).
 */
async function baselineIncomplete(baseline: PyValue): Promise<string | undefined> {
  if (!(baseline instanceof Map)) return undefined;
  const mark = baseline.get('assay_incomplete');
  if (typeof mark === 'string') return `is ${mark}`;
  const saved = baseline.get('assay_baseline');
  if (typeof saved !== 'string' || !existsSync(join(saved, 'manifest.json'))) return undefined;
  const whole = await runCompleteness(saved);
  return whole.complete ? undefined : `is ${completenessText(whole)}`;
}

/** `assay compare`'s statistics between the baseline's assay run (when it names one that exists) and this run. */
async function pairedStatistics(baseline: PyValue, runDir: string): Promise<Comparison | undefined> {
  const saved = baseline instanceof Map ? baseline.get('assay_baseline') : undefined;
  if (typeof saved !== 'string' || !existsSync(join(saved, 'results.jsonl'))) return undefined;
  const comparison = compareRuns(await readCaseRecords(saved), await readCaseRecords(runDir));
  return comparison.pairs > 0 ? comparison : undefined;
}

/** A quick eval's pass rate (§A4): the share of case trials whose every assertion passed; errors count against. */
export function passRate(run: ModelRun): number {
  return run.jobs.total === 0 ? 0 : run.jobs.pass / run.jobs.total;
}
