// An assay run of an apastra suite grouped as apastra sees it: one ModelRun per model, its cases
// with their trials and evaluator outputs, and the scorecard normalize.py computes from them. The
// run folder writer (report.ts), the gate (gate.ts) and the comparison (compare.ts) read runs so.
import { PyFloat, type PyValue } from '../../core/python/json-loads.js';
import type { JobResult } from '../../core/types.js';
import { resultLinesInPlanOrder } from '../../runlog/reader.js';
import type { RunManifest } from '../../runlog/types.js';
import { type ApastraNative, apastraNative, type CaseEntry, type ModelRun } from './native.js';
import { normalizeScorecard } from './normalize.js';

/** The apastra facts a run's manifest recorded; throws if the run is not of an apastra suite. */
export function nativeOf(manifest: Pick<RunManifest, 'suite'>): ApastraNative {
  const native = apastraNative.maybe(manifest.suite.native);
  if (!native) throw new Error(`the run is not of an apastra suite (format ${manifest.suite.format})`);
  return native;
}

function modelOf(manifest: RunManifest, providerId: string): string {
  const p = manifest.providers.find((x) => (x.label ?? x.id) === providerId) ?? {};
  return typeof p.model === 'string' ? p.model : providerId;
}

/** Groups a run's results (in plan order) by model and case. */
export async function gatherResults(
  results: AsyncIterable<JobResult>,
  manifest: RunManifest,
): Promise<ModelRun[]> {
  const native = nativeOf(manifest);
  const models = new Map<string, ModelRun & { byCase: Map<string, CaseEntry> }>();
  for await (const r of results) {
    let m = models.get(r.providerId);
    if (!m) {
      m = {
        model: modelOf(manifest, r.providerId),
        cases: [],
        byCase: new Map(),
        jobs: { total: 0, pass: 0, error: 0 },
        cost: 0,
        hasCost: false,
      };
      models.set(r.providerId, m);
    }
    const caseId = String(r.case.metadata?.case_id ?? r.case.ref ?? r.caseId);
    const ref = r.case.ref ?? caseId;
    let c = m.byCase.get(ref);
    if (!c) {
      c = {
        caseId,
        trials: [],
        outputs: [],
        keys: [],
        passed: 0,
        total: 0,
        asserts: { passed: 0, total: 0 },
        errors: [],
        metricValues: new Map(),
      };
      m.byCase.set(ref, c);
      m.cases.push(c);
    }
    m.jobs.total++;
    if (r.status === 'pass') m.jobs.pass++;
    if (r.status === 'error') m.jobs.error++;
    if (typeof r.answer.cost === 'number') {
      m.cost += r.answer.cost;
      m.hasCost = true;
    }
    c.total++;
    if (r.status === 'pass') c.passed++;
    c.keys.push(r.key);
    const trialOutputs: Map<string, PyValue>[] = [];
    for (const v of r.verdicts) {
      if (!v.metric || v.skipped) continue;
      const out = new Map<string, PyValue>([[v.metric, new PyFloat(v.score)]]);
      const version = native.metricVersions[v.metric];
      if (version !== undefined) out.set('metric_version', version);
      trialOutputs.push(out);
      const list = c.metricValues.get(v.metric) ?? [];
      list.push(v.score);
      c.metricValues.set(v.metric, list);
      if (v.metric.startsWith('assert_')) {
        c.asserts.total++;
        if (v.pass) c.asserts.passed++;
      }
    }
    // What apastra's scorecards compare models by (its comparison runtime reads latency_ms and cost_usd).
    if (r.status !== 'error' || r.output !== null) {
      trialOutputs.push(new Map([['latency_ms', new PyFloat(r.answer.latencyMs)]]));
      if (typeof r.answer.cost === 'number')
        trialOutputs.push(new Map([['cost_usd', new PyFloat(r.answer.cost)]]));
    }
    c.outputs.push(...trialOutputs);
    const trial = new Map<string, PyValue>([
      ['trial_id', `t${r.trial + 1}`],
      ['output', new Map<string, PyValue>([['text', r.output ?? null]])],
      ['evaluator_outputs', trialOutputs],
      ['status', r.status],
    ]);
    if (r.error ?? (r.status === 'error' ? r.reason : undefined)) {
      const why = r.error ?? r.reason;
      trial.set('error', why);
      c.errors.push(why);
    }
    c.trials.push(trial);
  }
  return [...models.values()].map(({ byCase: _byCase, ...m }) => m);
}

/** Groups the results of a run directory by model and case. */
export async function gatherRun(runDir: string, manifest: RunManifest): Promise<ModelRun[]> {
  return gatherResults(parsed(resultLinesInPlanOrder(runDir)), manifest);
}

async function* parsed(lines: AsyncIterable<string>): AsyncGenerator<JobResult> {
  for await (const line of lines) yield JSON.parse(line) as JobResult;
}

/**
 * The model runs apastra writes a folder for and judges: one per model; a run with no results
 * still gets one (an empty scorecard) under its first provider's model.
 */
export function modelRuns(runs: ModelRun[], manifest: RunManifest): ModelRun[] {
  if (runs.length > 0) return runs;
  const p = manifest.providers[0] ?? {};
  const model = typeof p.model === 'string' ? p.model : String(p.label ?? p.id ?? 'default');
  return [{ model, cases: [], jobs: { total: 0, pass: 0, error: 0 }, cost: 0, hasCost: false }];
}

/** The scorecard normalize.py computes for one model's run. */
export function modelScorecard(run: ModelRun): Map<string, PyValue> {
  return normalizeScorecard(
    run.cases.map((c) => ({
      case_id: c.caseId,
      evaluator_outputs: c.outputs.map((o) => Object.fromEntries(o)),
    })),
  );
}

/** The folder name suffix of a model when a run has several (one folder each). */
export function modelSuffix(model: string): string {
  return model.replace(/[^\p{L}\p{N}._-]+/gu, '_');
}

/** Whether a run exceeded the suite's cost budget. */
export function overBudget(native: ApastraNative, run: ModelRun): boolean {
  return native.costBudget !== undefined && run.cost > native.costBudget;
}
