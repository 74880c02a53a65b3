// apastra's scorecard aggregation (`normalize.py`): every numeric value of every dict in each
// case's `evaluator_outputs` (except `metric_version`), per metric — the mean over all of them,
// the population variance, a definition with its version, and the share of cases whose values for
// the metric differ (flake rate).
import { PyFloat, PyInt, type PyValue } from '../../core/python/json-loads.js';

/** One line of cases.jsonl as normalize reads it. */
export interface NormalizeCase {
  case_id?: string;
  evaluator_outputs?: Record<string, unknown>[];
}

function numeric(v: unknown): number | undefined {
  // Python: isinstance(value, (int, float)) — bool is an int.
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (v instanceof PyInt) return Number(v.value);
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

/** normalize.py's `normalize_scorecard`, as a Python dict (floats stay floats when written). */
export function normalizeScorecard(cases: NormalizeCase[]): Map<string, PyValue> {
  if (cases.length === 0)
    return new Map<string, PyValue>([
      ['normalized_metrics', new Map()],
      ['metric_definitions', new Map()],
      ['variance', new Map()],
    ]);
  const sum = new Map<string, number>();
  const values = new Map<string, number[]>();
  const versions = new Map<string, PyValue>();
  const byCase = new Map<string, Map<string, number[]>>();
  for (const c of cases) {
    const caseId = c.case_id ?? 'unknown';
    for (const out of c.evaluator_outputs ?? []) {
      const version = 'metric_version' in out ? (out.metric_version as PyValue) : '1.0.0';
      for (const [key, raw] of Object.entries(out)) {
        if (key === 'metric_version') continue;
        const v = numeric(raw);
        if (v === undefined) continue;
        sum.set(key, (sum.get(key) ?? 0) + v);
        if (!values.has(key)) {
          values.set(key, []);
          versions.set(key, version);
          byCase.set(key, new Map());
        }
        values.get(key)?.push(v);
        const perCase = byCase.get(key) as Map<string, number[]>;
        if (!perCase.has(caseId)) perCase.set(caseId, []);
        perCase.get(caseId)?.push(v);
      }
    }
  }
  const metrics = new Map<string, PyValue>();
  const definitions = new Map<string, PyValue>();
  const variance = new Map<string, PyValue>();
  const flakes = new Map<string, PyValue>();
  for (const [key, list] of values) {
    const count = list.length;
    const mean = (sum.get(key) as number) / count;
    metrics.set(key, new PyFloat(mean));
    let sq = 0;
    for (const x of list) sq += (x - mean) ** 2;
    // (x - mean) ** 2 of ints and a float mean is a float; the sum of those, divided, a float.
    variance.set(key, new PyFloat(sq / count));
    definitions.set(
      key,
      new Map<string, PyValue>([
        ['type', 'float'],
        ['range', mean <= 1 ? [new PyInt(0n), new PyInt(1n)] : [new PyInt(0n), null]],
        ['version', versions.get(key) ?? '1.0.0'],
      ]),
    );
    const perCase = byCase.get(key) as Map<string, number[]>;
    let flaky = 0;
    for (const vs of perCase.values()) if (Math.max(...vs) - Math.min(...vs) > 1e-6) flaky++;
    flakes.set(key, new PyFloat(flaky / perCase.size));
  }
  return new Map<string, PyValue>([
    ['normalized_metrics', metrics],
    ['metric_definitions', definitions],
    ['variance', variance],
    ['flake_rates', flakes],
  ]);
}
