// `--output-format apastra`: apastra's run folder (`promptops/runs/<suite-id>-<timestamp>/`) —
// run_manifest.json, scorecard.json (normalize.py's aggregation), cases.jsonl (one line per case,
// per_trial_outputs and the evaluator_outputs list normalize reads), artifact_refs.json and, when
// something went wrong, failures.json — each validated against apastra's schema before it is
// written. apastra's own judgement of the run (thresholds, regression policy, budget) is not an
// output: it is the format's gate (gate.ts), run by the host once the folders are written.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import { PyFloat, type PyValue } from '../../core/python/json-loads.js';
import { toPyValue } from '../../core/python/str.js';
import {
  type OutputFolder,
  type OutputRun,
  type RunShape,
  registerOutputFormat,
} from '../../report/outputs.js';
import { assayVersion } from '../../version.js';
import { gatherResults, modelRuns, modelScorecard, modelSuffix, nativeOf, overBudget } from './gather.js';
import { type ApastraNative, apastraNative, type ModelRun } from './native.js';
import { type SchemaName, schemaProblems } from './schemas.js';

type RunManifest = OutputRun['manifest'];

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

/** Writes one model's run folder; returns the scorecard written. */
export function writeModelFolder(
  folder: OutputFolder,
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
  const scorecard = modelScorecard(run);
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
  // The host writes the folder under a temporary name and renames it into place whole.
  folder.file('run_manifest.json', `${dumps(runManifest)}\n`);
  folder.file('scorecard.json', dumps(scorecard));
  folder.file('cases.jsonl', casesText);
  folder.file('artifact_refs.json', `${dumps(refs)}\n`);
  if (failures.length > 0) folder.file('failures.json', `${dumps(failures)}\n`);
  return scorecard;
}

/** Whether `dir` holds the apastra run folder of this run (written before: it may be replaced). */
function ownFolder(dir: string, runId: string): boolean {
  const path = join(dir, 'run_manifest.json');
  if (!existsSync(path)) return false;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as { environment?: { assay_run_id?: unknown } };
    return m.environment?.assay_run_id === runId;
  } catch {
    return false;
  }
}

/** The failures.json entries of one model's run: the budget, then each errored case. */
function failuresOf(native: ApastraNative, run: ModelRun): Map<string, PyValue>[] {
  const failures: Map<string, PyValue>[] = [];
  if (overBudget(native, run)) failures.push(new Map<string, PyValue>([['reason', 'Cost budget exceeded']]));
  for (const c of run.cases)
    for (const e of c.errors)
      failures.push(
        new Map<string, PyValue>([
          ['reason', e],
          ['case_id', c.caseId],
        ]),
      );
  return failures;
}

registerOutputFormat({
  name: 'apastra',
  layout: 'folder',
  extensions: [],
  check: checkRun,
  description:
    "apastra's run folder (run_manifest.json, scorecard.json, cases.jsonl, artifact_refs.json); -o DIR/ writes DIR/<suite-id>-<timestamp>/",
  fileName: ({ manifest }) => runFolderName(manifest),
  async write(run, sink) {
    const { manifest } = run;
    const native = nativeOf(manifest);
    const runs = modelRuns(await gatherResults(run.results(), manifest), manifest);
    for (const model of runs) {
      // Several models: one folder each, as apastra runs a suite once per model. Another run's
      // folder (two runs started in the same second) is kept: this one gets `-2`.
      const folder = sink.folder({
        ...(runs.length > 1 ? { suffix: modelSuffix(model.model) } : {}),
        replaceable: (dir) => ownFolder(dir, manifest.runId),
      });
      writeModelFolder(folder, run.dir, manifest, model, failuresOf(native, model));
    }
  },
});
