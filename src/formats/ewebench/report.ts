// `--output-format ewebench`: ÈwéBench's own results file (ewebench_<model>_<run_id>.json), read
// from the run directory. Figures come from the scorecard (the tool's rounding rules are suite
// scoring parameters); this file only lays them out as the tool does.

import { pyJsonDumps } from '../../core/python/json-dumps.js';
import { PyFloat } from '../../core/python/json-loads.js';
import { pyRound, pySlice } from '../../core/python/text.js';
import type { WeightedGroup } from '../../core/scorecard.js';
import type { JobResult } from '../../core/types.js';
import { type OutputRun, type RunShape, registerOutputFormat } from '../../report/outputs.js';
import { eweNative } from './native.js';

type RunManifest = OutputRun['manifest'];

interface Detail {
  /** The test's id as its file gives it (string or number). */
  test_id: string | number;
  score: PyFloat;
  response_preview: string;
  error?: string;
}

interface CategoryResult {
  score: PyFloat;
  total: number;
  passed: number;
  details: Detail[];
  skipped: boolean;
  errors?: { test_id: string | number; error: string }[];
}

/** `YYYYMMDD_HHMMSS` in local time, as the tool names its runs. */
function runIdOf(iso: string): string {
  const d = new Date(iso);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}_${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** Python's `datetime.now().isoformat()`: local time, no zone, microseconds unless zero. */
function localIso(iso: string): string {
  const d = new Date(iso);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const base = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  return d.getMilliseconds() === 0 ? base : `${base}.${p(d.getMilliseconds() * 1000, 6)}`;
}

/** The model name and endpoint as the tool reports them. */
function modelOf(manifest: RunManifest): { model: string; endpoint: string } {
  const p = manifest.providers[0] ?? {};
  const id = String(p.id ?? '');
  const model = typeof p.model === 'string' ? p.model : id;
  const endpoint = typeof p.baseUrl === 'string' ? `${p.baseUrl}/chat/completions` : id;
  return { model, endpoint };
}

/** A model name made safe as part of a file name (the tool writes `/` into a sub-folder and fails). */
export function fileSafeModelName(model: string): string {
  const safe = model.replace(/[^\p{L}\p{N}._-]+/gu, '_').replace(/^\.+/, '_');
  return safe === '' ? 'model' : safe;
}

/** Why an ÈwéBench results file cannot describe this run, if it cannot. */
function checkEweBenchRun(run: RunShape): string | undefined {
  const native = eweNative.maybe(run.native);
  if (!native)
    return `the run is not of an ÈwéBench suite (format ${run.format}); --output-format ewebench needs one`;
  if (run.providers !== 1)
    return `an ÈwéBench results file describes one model; this run has ${run.providers} (run each with its own -p)`;
  if (run.repeat !== 1) return 'an ÈwéBench results file has one answer per test; this run uses --repeat';
  const unknown = native.categories.find((c) => c.known === false && c.tests !== null);
  if (unknown)
    return `"${unknown.key}" is not one of the ten ÈwéBench categories, so an ÈwéBench results file cannot hold its tests (name the file after a category, e.g. reasoning.json)`;
  return undefined;
}

/** An error with no score at all (the test could not be scored, or the call failed and nothing was scored). */
function unscored(r: JobResult): boolean {
  return r.status === 'error' && r.verdicts.length === 0;
}

/** Builds the tool's report object from a finished run. */
export async function eweBenchReport(run: OutputRun): Promise<Record<string, unknown>> {
  const { manifest, scorecard } = run;
  // The host checked the run's shape (checkEweBenchRun) before calling the writer.
  const native = eweNative.read(manifest.suite.native);
  // Compat mode leaves unscored errors out of the figures, as the tool would if it skipped them.
  const exclude = manifest.suite.scoring?.weightedScore?.unscoredErrors === 'exclude';
  const groups = new Map<string, WeightedGroup>(
    (scorecard.weightedScore?.groups ?? []).map((g) => [g.value, g]),
  );
  const details = new Map<string, Detail[]>();
  const errors = new Map<string, { test_id: string | number; error: string }[]>();
  for await (const r of run.results()) {
    const category = String(r.case.metadata?.category ?? '');
    const raw = r.case.metadata?.test_id;
    const testId = typeof raw === 'number' || typeof raw === 'string' ? raw : r.caseId;
    if (exclude && unscored(r)) {
      const list = errors.get(category) ?? [];
      list.push({ test_id: testId, error: r.error ?? r.reason });
      errors.set(category, list);
      continue;
    }
    const d: Detail = {
      test_id: testId,
      score: new PyFloat(pyRound(r.score, 3)),
      response_preview: pySlice(r.output ?? '', 200),
    };
    // Compat mode scores a failed call's `[ERROR] …` text as the tool does; the entry then looks
    // like the tool's. Otherwise an error entry says what went wrong.
    if (unscored(r)) d.error = r.error ?? r.reason;
    const list = details.get(category) ?? [];
    list.push(d);
    details.set(category, list);
  }
  const categories: Record<string, CategoryResult> = {};
  for (const c of native.categories) {
    const g = groups.get(c.key);
    const ran = g !== undefined && g.total > 0 && g.rounded !== undefined;
    const result: CategoryResult = ran
      ? {
          score: new PyFloat(g.rounded as number),
          total: g.total,
          passed: g.pass,
          details: details.get(c.key) ?? [],
          skipped: false,
        }
      : { score: new PyFloat(0), total: 0, passed: 0, details: [], skipped: true };
    const errs = errors.get(c.key);
    if (errs) result.errors = errs;
    categories[c.key] = result;
  }
  const all = Object.values(categories);
  const { model, endpoint } = modelOf(manifest);
  return {
    benchmark: native.benchmark,
    version: native.version,
    run_id: runIdOf(manifest.startedAt),
    model,
    endpoint,
    timestamp: localIso(manifest.endedAt ?? manifest.startedAt),
    ewe_score: new PyFloat(scorecard.weightedScore?.rounded ?? 0),
    categories,
    summary: {
      total_tests: all.reduce((n, c) => n + c.total, 0),
      total_passed: all.reduce((n, c) => n + c.passed, 0),
      categories_evaluated: all.filter((c) => !c.skipped).length,
      categories_skipped: all.filter((c) => c.skipped).length,
    },
  };
}

registerOutputFormat({
  name: 'ewebench',
  layout: 'file',
  extensions: [],
  check: checkEweBenchRun,
  description: "ÈwéBench's results JSON (ewebench_<model>_<run_id>.json); -o DIR/ writes that name into DIR",
  fileName({ manifest }) {
    return `ewebench_${fileSafeModelName(modelOf(manifest).model)}_${runIdOf(manifest.startedAt)}.json`;
  },
  async write(run, out) {
    await out.write(pyJsonDumps(await eweBenchReport(run), { indent: 2, ensureAscii: false }));
  },
});
