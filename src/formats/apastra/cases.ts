// Dataset rows and quick-eval cases: schema-checked (with the two deviations apastra's own docs
// commit — `id` for `case_id`, an assertion without `value` — as warnings), rendered with apastra's
// literal `{{name}}` replacement, and their inline assertions as `apastra:*` assertion specs.
import type { DiagnosticBag } from '../../core/errors.js';
import type { PyValue } from '../../core/python/json-loads.js';
import { pyStr } from '../../core/python/str.js';
import type { AssertionSpec, Message } from '../../core/types.js';
import { JUDGED_TYPES } from './assertions.js';
import type { Where } from './documents.js';
import { type SchemaProblem, schemaProblems } from './schemas.js';

/** A dataset or quick-eval case, checked. */
export interface ApastraCase {
  caseId: string;
  inputs: Record<string, unknown>;
  /** The inputs as Python holds them, in order (for `str()` rendering). */
  pyInputs: [string, PyValue][];
  expected: Record<string, unknown>;
  asserts: AssertionSpec[];
  metadata: Record<string, unknown>;
  where: Where;
}

function field(py: PyValue, key: string): PyValue | undefined {
  return py instanceof Map ? py.get(key) : undefined;
}

/**
 * Checks one case object against `dataset-case.schema.json`. Errors go to `bag`; the two
 * documented deviations are warnings. `at` positions a path inside the case.
 */
export function checkCase(
  value: unknown,
  py: PyValue,
  at: (path: (string | number)[]) => Where,
  mode: 'compat' | 'default',
  bag: DiagnosticBag,
): ApastraCase | undefined {
  const problems = schemaProblems('dataset-case', value);
  const obj = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<
    string,
    unknown
  >;
  const usesId = !('case_id' in obj) && typeof obj.id === 'string';
  let fatal = false;
  for (const p of problems) {
    const w = at(p.path);
    if (usesId && isIdDeviation(p)) continue;
    if (isMissingValue(p)) {
      bag.warn(
        w.file,
        `assertion has no "value" (apastra's schema requires one, though its docs omit it for is-json); read as None`,
        w,
      );
      continue;
    }
    bag.error(w.file, `not a valid apastra case: ${p.message}`, w);
    fatal = true;
  }
  if (usesId) {
    const w = at(['id']);
    bag.warn(
      w.file,
      `"id" used for "case_id" (apastra's schema requires case_id; its docs write id): read as case_id`,
      w,
    );
  }
  if (fatal) return undefined;
  const caseId = String(usesId ? obj.id : obj.case_id);
  const inputs = (obj.inputs ?? {}) as Record<string, unknown>;
  const pyIn = field(py, 'inputs');
  const pyInputs: [string, PyValue][] = pyIn instanceof Map ? [...pyIn] : [];
  const asserts: AssertionSpec[] = [];
  const list = Array.isArray(obj.assert) ? obj.assert : [];
  const pyList = field(py, 'assert');
  list.forEach((a, i) => {
    const pyA = Array.isArray(pyList) ? pyList[i] : null;
    asserts.push(inlineSpec(a, pyA ?? null, mode, at(['assert', i])));
  });
  return {
    caseId,
    inputs,
    pyInputs,
    expected: (obj.expected_outputs ?? {}) as Record<string, unknown>,
    asserts,
    metadata: (obj.metadata ?? {}) as Record<string, unknown>,
    where: at([]),
  };
}

function isIdDeviation(p: SchemaProblem): boolean {
  return (
    (p.keyword === 'required' && p.property === 'case_id' && p.path.length === 0) ||
    (p.keyword === 'additionalProperties' && p.property === 'id' && p.path.length === 1)
  );
}

function isMissingValue(p: SchemaProblem): boolean {
  return p.keyword === 'required' && p.property === 'value' && p.path[0] === 'assert' && p.path.length === 2;
}

/** One inline assertion as an assay spec: its metric is `assert_<type as written>`. */
export function inlineSpec(
  raw: unknown,
  py: PyValue,
  mode: 'compat' | 'default',
  where: Where,
): AssertionSpec {
  const obj =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  const written = obj && typeof obj.type === 'string' ? obj.type : '';
  const pyValue = field(py, 'value') ?? null;
  const value = obj?.value;
  const options: Record<string, unknown> = { written, str: pyStr(pyValue) };
  if (Array.isArray(pyValue)) options.items = pyValue.map(pyStr);
  const base = written.replace(/^not-/, '');
  if (base === 'similar') {
    let reference: PyValue = pyValue;
    // dict.get("threshold", 0.8): a threshold written as null stays None (float(None) then fails).
    let threshold: unknown = obj && 'threshold' in obj ? obj.threshold : 0.8;
    if (pyValue instanceof Map) {
      const v = value as Record<string, unknown>;
      if ('threshold' in v) threshold = v.threshold;
      reference = pyValue.has('value') ? (pyValue.get('value') as PyValue) : '';
    }
    options.reference = pyStr(reference);
    options.threshold = threshold;
  }
  const judged = JUDGED_TYPES.has(base);
  const type = judged
    ? mode === 'compat'
      ? 'apastra:judged-or-fallback'
      : 'apastra:judged'
    : 'apastra:assert';
  return {
    type,
    value,
    literal: true,
    metric: written ? `assert_${written}` : 'assert_invalid',
    options,
    source: where,
  };
}

/** The `{{name}}` placeholders of a template (literal names, as apastra replaces them). */
export function placeholders(template: unknown): string[] {
  const out = new Set<string>();
  const visit = (t: unknown): void => {
    if (typeof t === 'string') for (const m of t.matchAll(/\{\{([^{}]*)\}\}/g)) out.add(m[1]);
    else if (Array.isArray(t)) t.forEach(visit);
    else if (t && typeof t === 'object') Object.values(t).forEach(visit);
  };
  visit(template);
  return [...out];
}

/**
 * apastra's `render`: for each input in order, every literal `{{name}}` becomes Python `str(value)`
 * (so a value holding `{{other}}` is replaced again by a later input); unknown placeholders stay
 * as written. Lists and objects are rendered recursively (values only).
 */
export function renderTemplate(template: unknown, inputs: [string, PyValue][]): unknown {
  if (typeof template === 'string') {
    let text = template;
    for (const [name, value] of inputs) text = text.split(`{{${name}}}`).join(pyStr(value));
    return text;
  }
  if (Array.isArray(template)) return template.map((t) => renderTemplate(t, inputs));
  if (template && typeof template === 'object')
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderTemplate(v, inputs)]));
  return template;
}

const ROLES = new Set(['system', 'user', 'assistant']);

/**
 * The messages of a rendered template: a string is one user message; an array of
 * `{role, content}` is a chat (a bare string item is a user message). Undefined with a reason
 * for any other shape.
 */
export function templateMessages(rendered: unknown): Message[] | string {
  if (typeof rendered === 'string') return [{ role: 'user', content: rendered }];
  const list = Array.isArray(rendered)
    ? rendered
    : rendered &&
        typeof rendered === 'object' &&
        Array.isArray((rendered as Record<string, unknown>).messages)
      ? ((rendered as Record<string, unknown>).messages as unknown[])
      : undefined;
  if (!list)
    return 'a template object must hold "messages": [{role, content}, …] (apastra leaves chat templates to the agent)';
  const out: Message[] = [];
  for (const [i, m] of list.entries()) {
    if (typeof m === 'string') {
      out.push({ role: 'user', content: m });
      continue;
    }
    const r = m as Record<string, unknown>;
    if (!r || typeof r !== 'object' || !ROLES.has(String(r.role)) || typeof r.content !== 'string')
      return `template message ${i + 1}: expected {role: system|user|assistant, content: text}`;
    out.push({ role: r.role as Message['role'], content: r.content });
  }
  return out;
}
