// apastra's regression comparison (`compare.py`): a candidate scorecard against a baseline under
// a policy of rules, rule by rule in policy order — floor before delta, the direction rules, a
// missing metric failing at the rule's severity, a flaky candidate metric downgrading a failure to
// a warning, `cost_delta`, and info entries for ungated metrics. Numbers keep Python's int/float
// distinction, so messages and the report read exactly as compare.py writes them.

import { printable } from '../../core/printable.js';
import { PyFloat, PyInt, type PyValue } from '../../core/python/json-loads.js';
import { pyStr } from '../../core/python/str.js';

type Num = PyInt | PyFloat | boolean;

function isNum(v: PyValue | undefined): v is Num {
  return v instanceof PyInt || v instanceof PyFloat || typeof v === 'boolean';
}

function num(v: Num): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v instanceof PyInt ? Number(v.value) : v.value;
}

function isInt(v: Num): boolean {
  return !(v instanceof PyFloat);
}

/** Python's `a - b` on numbers: an int when both are ints. */
function sub(a: Num, b: Num): PyInt | PyFloat {
  if (isInt(a) && isInt(b)) {
    const x = typeof a === 'boolean' ? BigInt(Number(a)) : (a as PyInt).value;
    const y = typeof b === 'boolean' ? BigInt(Number(b)) : (b as PyInt).value;
    return new PyInt(x - y);
  }
  return new PyFloat(num(a) - num(b));
}

/** Python's `a + b` / `a - b` for the delta bound, as a plain number for comparison. */
function get(d: PyValue | undefined, key: string): PyValue | undefined {
  return d instanceof Map ? d.get(key) : undefined;
}

/** `candidate.get("scorecard", {}).get(key, {}) if "scorecard" in candidate else candidate.get(key, {})`. */
function section(doc: PyValue, key: string): Map<string, PyValue> {
  const outer = doc instanceof Map && doc.has('scorecard') ? get(doc, 'scorecard') : doc;
  const v = get(outer ?? new Map(), key);
  return v instanceof Map ? v : new Map();
}

/** `doc.get("manifest", {}).get("total_cost", doc.get("total_cost", 0.0))`. */
function totalCost(doc: PyValue): PyValue {
  const manifest = get(doc, 'manifest');
  const fallback =
    doc instanceof Map && doc.has('total_cost') ? (doc.get('total_cost') as PyValue) : new PyFloat(0);
  if (manifest instanceof Map && manifest.has('total_cost')) return manifest.get('total_cost') as PyValue;
  return fallback;
}

/** A JSON value's kind, as a message names it. */
function kindOf(v: PyValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'boolean' || isNum(v)) return 'a number';
  return 'an object';
}

/**
 * What compare.py would crash on in one side's document (it calls `.get` on each level and
 * subtracts the costs), as a sentence; undefined when it reads. Only the candidate's
 * `flake_rates` are read.
 */
export function sideProblem(doc: PyValue, side: 'candidate' | 'baseline'): string | undefined {
  if (!(doc instanceof Map))
    return `expected a JSON object (an apastra scorecard, or one wrapped as {"scorecard": …}), got ${kindOf(doc)}`;
  const wrapped = doc.has('scorecard');
  const outer = wrapped ? doc.get('scorecard') : doc;
  if (!(outer instanceof Map)) return `"scorecard" must be an object, got ${kindOf(outer)}`;
  for (const key of side === 'candidate' ? ['normalized_metrics', 'flake_rates'] : ['normalized_metrics']) {
    if (outer.has(key) && !(outer.get(key) instanceof Map))
      return `"${wrapped ? 'scorecard.' : ''}${key}" must be an object, got ${kindOf(outer.get(key))}`;
  }
  if (doc.has('manifest') && !(doc.get('manifest') instanceof Map))
    return `"manifest" must be an object, got ${kindOf(doc.get('manifest'))}`;
  const cost = totalCost(doc);
  if (!isNum(cost)) return `"total_cost" must be a number, got ${kindOf(cost)}`;
  return undefined;
}

/** One evidence entry of the report. */
export type Evidence = Map<string, PyValue>;

/** The regression report, as compare.py writes it (a Python dict, in its key order). */
export interface RegressionOutcome {
  status: 'pass' | 'warning' | 'fail';
  report: Map<string, PyValue>;
  /** Set when a side is an assay run that did not complete (`--allow-partial`): how whole each is. */
  incomplete?: string[];
}

/** A policy problem compare.py would crash on; the caller reports it as bad input. */
export class PolicyError extends Error {}

/**
 * compare.py's `main`, minus the files: `candidate` and `baseline` are parsed JSON documents (a
 * scorecard or a `{scorecard: …}` wrapper), `policy` the parsed policy, and the refs the paths
 * the report names. Ungated metrics are listed in name order (compare.py iterates a set, whose
 * order Python does not fix).
 */
export function comparePolicy(
  candidate: PyValue,
  baseline: PyValue,
  policy: PyValue,
  refs: { candidate: string; baseline: string },
): RegressionOutcome {
  const cm = section(candidate, 'normalized_metrics');
  const bm = section(baseline, 'normalized_metrics');
  const flakes = section(candidate, 'flake_rates');
  const cCost = totalCost(candidate);
  const bCost = totalCost(baseline);
  if (!isNum(cCost) || !isNum(bCost)) throw new PolicyError('total_cost must be a number');
  const costDelta = sub(cCost, bCost);
  const evidence: Evidence[] = [];
  let blocker = false;
  let warning = false;
  const ruled = new Set<string>();
  const rules = get(policy, 'rules');
  for (const [i, rule] of (Array.isArray(rules) ? rules : []).entries()) {
    const metric = get(rule, 'metric');
    const severity = get(rule, 'severity');
    if (typeof metric !== 'string') throw new PolicyError(`rule ${i + 1} has no metric`);
    const floor = get(rule, 'floor') ?? null;
    const allowed = get(rule, 'allowed_delta') ?? null;
    const direction = get(rule, 'direction') ?? null;
    // compare.py compares the rate with 0.0 (a missing one is 0.0): null or a non-number raises.
    const flake = flakes.get(metric);
    if (flakes.has(metric) && !isNum(flake))
      throw new PolicyError(`the candidate's flake rate of "${metric}" is not a number`);
    const isFlaky = isNum(flake) ? num(flake) > 0 : false;
    const c = cm.get(metric) ?? null;
    const b = bm.get(metric) ?? null;
    if (c === null || b === null) {
      evidence.push(
        new Map<string, PyValue>([
          ['metric', metric],
          ['candidate_value', c],
          ['baseline_value', b],
          ['status', 'fail'],
          ['message', 'Metric missing in candidate or baseline.'],
        ]),
      );
      if (severity === 'blocker') blocker = true;
      if (severity === 'warning') warning = true;
      continue;
    }
    if (!isNum(c) || !isNum(b))
      throw new PolicyError(`metric "${metric}" is not a number in the candidate or baseline`);
    for (const [name, v] of [
      ['floor', floor],
      ['allowed_delta', allowed],
    ] as const)
      if (v !== null && !isNum(v)) throw new PolicyError(`rule for "${metric}": ${name} must be a number`);
    const delta = sub(c, b);
    let passed = true;
    let message = '';
    const cv = num(c);
    const bv = num(b);
    if (direction === 'higher_is_better') {
      if (floor !== null && cv < num(floor as Num)) {
        passed = false;
        message = `Value ${pyStr(c)} below floor ${pyStr(floor)}.`;
      } else if (allowed !== null && cv < bv - num(allowed as Num)) {
        passed = false;
        message = `Delta ${pyStr(delta)} exceeds allowed drop ${pyStr(allowed)}.`;
      }
    } else if (direction === 'lower_is_better') {
      if (floor !== null && cv > num(floor as Num)) {
        passed = false;
        message = `Value ${pyStr(c)} above ceiling ${pyStr(floor)}.`;
      } else if (allowed !== null && cv > bv + num(allowed as Num)) {
        passed = false;
        message = `Delta ${pyStr(delta)} exceeds allowed rise ${pyStr(allowed)}.`;
      }
    }
    if (!passed && isFlaky) message += ' (quarantined due to flakiness)';
    ruled.add(metric);
    evidence.push(
      new Map<string, PyValue>([
        ['metric', metric],
        ['candidate_value', c],
        ['baseline_value', b],
        ['delta', delta],
        ['status', passed ? 'pass' : 'fail'],
        ['message', message],
      ]),
    );
    if (!passed) {
      if (isFlaky) warning = true;
      else {
        if (severity === 'blocker') blocker = true;
        if (severity === 'warning') warning = true;
      }
    }
  }
  const all = [...new Set([...cm.keys(), ...bm.keys()])].filter((m) => !ruled.has(m)).sort();
  for (const metric of all) {
    const c = cm.get(metric) ?? null;
    const b = bm.get(metric) ?? null;
    // compare.py subtracts any two values that are not null, and raises where Python cannot.
    if (c !== null && b !== null && (!isNum(c) || !isNum(b)))
      throw new PolicyError(`ungated metric "${metric}" is not a number in the candidate or baseline`);
    if (c !== null && b !== null && isNum(c) && isNum(b))
      evidence.push(
        new Map<string, PyValue>([
          ['metric', metric],
          ['candidate_value', c],
          ['baseline_value', b],
          ['delta', sub(c, b)],
          ['status', 'info'],
          ['message', 'Ungated metric surfaced for informational purposes.'],
        ]),
      );
    else
      evidence.push(
        new Map<string, PyValue>([
          ['metric', metric],
          ['candidate_value', c],
          ['baseline_value', b],
          ['status', 'info'],
          ['message', 'Ungated metric missing in candidate or baseline.'],
        ]),
      );
  }
  const status = blocker ? 'fail' : warning ? 'warning' : 'pass';
  return {
    status,
    report: new Map<string, PyValue>([
      ['status', status],
      ['baseline_ref', refs.baseline],
      ['candidate_ref', refs.candidate],
      ['cost_delta', costDelta],
      ['evidence', evidence],
    ]),
  };
}

/** The report as lines a person reads: status, then each evidence entry. */
export function renderRegression(outcome: RegressionOutcome): string {
  const mark =
    outcome.status === 'pass'
      ? 'PASS ✅'
      : outcome.status === 'warning'
        ? 'WARNING ⚠️ (fails the gate)'
        : 'FAIL ❌';
  const lines = [`Regression: ${mark}`];
  for (const note of outcome.incomplete ?? []) lines.push(`  not complete: ${note}`);
  const evidence = outcome.report.get('evidence') as Evidence[];
  for (const e of evidence) {
    const status = String(e.get('status'));
    if (status === 'info') continue;
    const c = e.get('candidate_value') ?? null;
    const b = e.get('baseline_value') ?? null;
    const msg = String(e.get('message') ?? '');
    lines.push(
      `  ${String(e.get('metric'))}: ${c === null ? 'missing' : pyStr(c)} vs baseline ${b === null ? 'missing' : pyStr(b)} ${status === 'pass' ? '✅' : '❌'}${msg ? ` ${msg}` : ''}`,
    );
  }
  const info = evidence.filter((e) => e.get('status') === 'info').length;
  if (info > 0) lines.push(`  (${info} ungated metric${info === 1 ? '' : 's'} listed in the report)`);
  return `${printable(lines.join('\n'), true)}\n`;
}
