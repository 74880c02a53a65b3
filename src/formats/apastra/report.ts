// `--output-format apastra`: apastra's run folder (`promptops/runs/<suite-id>-<timestamp>/`) —
// run_manifest.json, scorecard.json (normalize.py's aggregation), cases.jsonl (one line per case,
// per_trial_outputs and the evaluator_outputs list normalize reads), artifact_refs.json and, when
// something went wrong, failures.json — each validated against apastra's schema before it is
// written. Then apastra's own judgement of the run: thresholds, and the regression policy against
// the suite's baseline when one exists.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import { PyFloat, type PyValue } from '../../core/python/json-loads.js';
import { toPyValue } from '../../core/python/str.js';
import type { Scorecard } from '../../core/scorecard.js';
import type { JobResult } from '../../core/types.js';
import { type OutputJudgement, type RunShape, registerOutputFormat } from '../../report/outputs.js';
import { readManifest, resultLinesInPlanOrder } from '../../runlog/reader.js';
import type { RunManifest } from '../../runlog/types.js';
import { assayVersion } from '../../version.js';
import { gatePaths, judgeRun } from './judge.js';
import { type ApastraNative, apastraNative, type CaseEntry, type ModelRun } from './native.js';
import { normalizeScorecard } from './normalize.js';
import { type SchemaName, schemaProblems } from './schemas.js';

function nativeOf(manifest: RunManifest): ApastraNative {
  const native = apastraNative.maybe(manifest.suite.native);
  if (!native) throw new Error(`the run is not of an apastra suite (format ${manifest.suite.format})`);
  return native;
}

function checkRun(run: RunShape): string | undefined {
  if (!apastraNative.maybe(run.native))
    return `the run is not of an apastra suite or quick eval (format ${run.format}); --output-format apastra needs one`;
  return undefined;
}

/** `<suite-id>-<YYYY-MM-DD-HHmmss>` (UTC), the run folder name apastra's eval skill gives. */
export function runFolderName(manifest: RunManifest): string {
  const native = nativeOf(manifest);
  const d = new Date(manifest.startedAt);
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  return `${native.suiteId.replace(/[^\p{L}\p{N}._-]+/gu, '_')}-${stamp}`;
}

function modelOf(manifest: RunManifest, providerId: string): string {
  const p = manifest.providers.find((x) => (x.label ?? x.id) === providerId) ?? {};
  return typeof p.model === 'string' ? p.model : providerId;
}

/** Groups a run's results by model and case, in plan order. */
export async function gatherRun(runDir: string, manifest: RunManifest): Promise<ModelRun[]> {
  const native = nativeOf(manifest);
  const models = new Map<string, ModelRun & { byCase: Map<string, CaseEntry> }>();
  for await (const line of resultLinesInPlanOrder(runDir)) {
    const r = JSON.parse(line) as JobResult;
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

function dumps(value: PyValue, indent = 2): string {
  return pyJsonDumps(value, { indent, ensureAscii: false });
}

function validated(name: SchemaName, value: PyValue, what: string): void {
  const problems = schemaProblems(name, JSON.parse(pyJsonDumps(value, { ensureAscii: true })));
  if (problems.length > 0)
    throw new Error(
      `${what} would not be valid against apastra's ${name} schema: ${problems.map((p) => p.message).join('; ')}`,
    );
}

function sha256Text(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** Writes one model's run folder into `dir` (replacing a partial one); returns the scorecard written. */
export function writeModelFolder(
  dir: string,
  runDir: string,
  manifest: RunManifest,
  run: ModelRun,
  failures: Map<string, PyValue>[],
): Map<string, PyValue> {
  const native = nativeOf(manifest);
  const caseLines: Map<string, PyValue>[] = run.cases.map(
    (c) =>
      new Map<string, PyValue>([
        ['case_id', c.caseId],
        ['per_trial_outputs', c.trials],
        ['evaluator_outputs', c.outputs],
        [
          'pointers',
          new Map<string, PyValue>([
            ['assay_results', 'results.jsonl'],
            ['job_keys', c.keys],
          ]),
        ],
      ]),
  );
  for (const [i, line] of caseLines.entries()) validated('run-case', line, `cases.jsonl line ${i + 1}`);
  const casesText =
    caseLines.map((l) => pyJsonDumps(l, { ensureAscii: false })).join('\n') + (caseLines.length ? '\n' : '');
  const scorecard = normalizeScorecard(
    run.cases.map((c) => ({
      case_id: c.caseId,
      evaluator_outputs: c.outputs.map((o) => Object.fromEntries(o)),
    })),
  );
  validated('scorecard', scorecard, 'scorecard.json');
  const status = failures.some((f) => f.get('reason') === 'Cost budget exceeded')
    ? 'budget_exceeded'
    : manifest.status === 'complete'
      ? 'success'
      : manifest.status;
  const sampling = new Map<string, PyValue>();
  const runManifest = new Map<string, PyValue>([
    ['suite_id', native.suiteId],
    ['timestamp', manifest.endedAt ?? manifest.startedAt],
    [
      'timestamps',
      new Map<string, PyValue>([
        ['started_at', manifest.startedAt],
        ['completed_at', manifest.endedAt ?? null],
      ]),
    ],
    ['harness_identifier', 'assay'],
    ['harness_version', assayVersion()],
    ['status', status],
    ['total_cost', new PyFloat(run.cost)],
    [
      'environment',
      new Map<string, PyValue>([
        ['assay_run_id', manifest.runId],
        ['assay_run_dir', runDir],
        ['trials', toPyValue(manifest.options.repeat)],
      ]),
    ],
    ['model_ids', [run.model]],
    ['sampling_config', sampling],
    ['resolved_digests', toPyValue(native.digests)],
    [
      'input_refs',
      toPyValue({
        ...native.inputRefs,
        suite_id: native.suiteId,
        evaluators: native.evaluatorRefs.join(','),
      }),
    ],
  ]);
  validated('run-manifest', runManifest, 'run_manifest.json');
  const resultsPath = join(runDir, 'results.jsonl');
  const refs = new Map<string, PyValue>([
    [
      'references',
      new Map<string, PyValue>(
        existsSync(resultsPath)
          ? [
              [
                'assay_results',
                new Map<string, PyValue>([
                  ['uri', pathToFileURL(resultsPath).href],
                  ['digest', sha256Text(readFileSync(resultsPath, 'utf8'))],
                  ['mime_type', 'application/jsonl'],
                ]),
              ],
            ]
          : [],
      ),
    ],
  ]);
  validated('artifact-refs', refs, 'artifact_refs.json');
  if (failures.length > 0) validated('run-failures', failures, 'failures.json');
  // Written beside the target and renamed into place: a half-written folder never looks like a run.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'run_manifest.json'), `${dumps(runManifest)}\n`);
  writeFileSync(join(tmp, 'scorecard.json'), dumps(scorecard));
  writeFileSync(join(tmp, 'cases.jsonl'), casesText);
  writeFileSync(join(tmp, 'artifact_refs.json'), `${dumps(refs)}\n`);
  if (failures.length > 0) writeFileSync(join(tmp, 'failures.json'), `${dumps(failures)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return scorecard;
}

/** Whether `dir` holds the apastra run folder of another assay run (so it must not be replaced). */
function heldByAnotherRun(dir: string, runId: string): boolean {
  const path = join(dir, 'run_manifest.json');
  if (!existsSync(dir)) return false;
  if (!existsSync(path)) return true;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as { environment?: { assay_run_id?: unknown } };
    return m.environment?.assay_run_id !== runId;
  } catch {
    return true;
  }
}

/** `dir`, or `dir-2`, `dir-3`…: two runs started in the same second get folders of their own. */
function folderFor(dir: string, runId: string, taken: Set<string> = new Set()): string {
  let target = dir;
  for (let i = 2; taken.has(target) || heldByAnotherRun(target, runId); i++) target = `${dir}-${i}`;
  taken.add(target);
  return target;
}

/** Writes the run folder(s) of a finished run into `dir` and judges the run as apastra would. */
export async function writeApastraRun(runDir: string, dir: string): Promise<OutputJudgement> {
  const manifest = readManifest(runDir);
  const native = nativeOf(manifest);
  const runs = await gatherRun(runDir, manifest);
  // A run with no results still gets its folder (an empty scorecard) and its judgement.
  if (runs.length === 0) {
    const p = manifest.providers[0] ?? {};
    const model = typeof p.model === 'string' ? p.model : String(p.label ?? p.id ?? 'default');
    runs.push({ model, cases: [], jobs: { total: 0, pass: 0, error: 0 }, cost: 0, hasCost: false });
  }
  const texts: string[] = [];
  let failed = false;
  // Two models whose names sanitise alike (mod/b, mod_b) must not share a folder in one run.
  const taken = new Set<string>();
  const written: string[] = [];
  for (const run of runs) {
    // Several models: one folder each, as apastra runs a suite once per model.
    const target = folderFor(
      runs.length > 1 ? `${dir}-${run.model.replace(/[^\p{L}\p{N}._-]+/gu, '_')}` : dir,
      manifest.runId,
      taken,
    );
    const failures: Map<string, PyValue>[] = [];
    if (native.costBudget !== undefined && run.cost > native.costBudget)
      failures.push(new Map<string, PyValue>([['reason', 'Cost budget exceeded']]));
    for (const c of run.cases)
      for (const e of c.errors)
        failures.push(
          new Map<string, PyValue>([
            ['reason', e],
            ['case_id', c.caseId],
          ]),
        );
    const scorecard = writeModelFolder(target, runDir, manifest, run, failures);
    const judged = await judgeRun(native, run, scorecard, target, gatePaths(native), runDir, manifest.status);
    written.push(target);
    texts.push(runs.length > 1 ? `Run folder ${target}\n${judged.text}` : judged.text);
    if (judged.failed) failed = true;
    if (native.costBudget !== undefined && run.cost > native.costBudget) {
      texts.push(`Budget: total cost ${run.cost} exceeds cost_budget ${native.costBudget} ❌\n`);
      failed = true;
    }
  }
  return { text: texts.join('\n'), failed, written };
}

registerOutputFormat({
  name: 'apastra',
  extensions: [],
  check: checkRun,
  description:
    "apastra's run folder (run_manifest.json, scorecard.json, cases.jsonl, artifact_refs.json); -o DIR/ writes DIR/<suite-id>-<timestamp>/",
  fileName(runDir) {
    return runFolderName(readManifest(runDir));
  },
  async writeFolder(runDir: string, _scorecard: Scorecard, dir: string) {
    return writeApastraRun(runDir, dir);
  },
});
