// apastra evaluators as assay assertions, one per metric. apastra has no code for them (an agent
// scores them from prose), so assay settles each: keyword_recall is the general `keyword-recall`
// scorer, exact_match the general `equals`, schema the general `is-json` with the schema, and a
// judge metric the general `llm-rubric` through assay's grader.
import type { DiagnosticBag } from '../../core/errors.js';
import { pyStr, toPyValue } from '../../core/python/str.js';
import type { AssertionSpec } from '../../core/types.js';
import type { ApastraCase } from './cases.js';
import type { Where } from './documents.js';

/** An evaluator file, checked against its schema. */
export interface Evaluator {
  id: string;
  type: 'deterministic' | 'schema' | 'judge' | 'human';
  metrics: string[];
  config: Record<string, unknown>;
  metricVersions: Record<string, string>;
  where: Where;
  /** Positions of each metric name, for errors about it. */
  metricAt: Where[];
}

/** Deterministic metric names assay computes; apastra's docs name these two (exact_match with or without `_score`). */
const KEYWORD = new Set(['keyword_recall']);
const EXACT = new Set(['exact_match', 'exact_match_score']);

/** Checks what the evaluator asks can be computed (load time, once per evaluator). */
export function checkEvaluator(e: Evaluator, bag: DiagnosticBag): void {
  if (e.type === 'human') {
    bag.error(
      e.where.file,
      `evaluator "${e.id}" is of type human: a person scores it, so assay cannot run it`,
      e.where,
    );
    return;
  }
  if (e.type === 'deterministic') {
    e.metrics.forEach((m, i) => {
      if (!KEYWORD.has(m) && !EXACT.has(m))
        bag.error(
          e.metricAt[i].file,
          `deterministic metric "${m}" has no defined computation; assay computes keyword_recall, exact_match and exact_match_score (apastra defines no others)`,
          e.metricAt[i],
        );
    });
  }
  if (e.type === 'schema') {
    const schema = e.config.schema;
    if (schema === undefined || schema === null || typeof schema !== 'object')
      bag.error(
        e.where.file,
        `schema evaluator "${e.id}" needs config.schema (a JSON Schema object)`,
        e.where,
      );
  }
  if (e.type === 'judge' && typeof e.config.rubric !== 'string')
    bag.warn(
      e.where.file,
      `judge evaluator "${e.id}" has no config.rubric: the grader judges by the metric names alone`,
      e.where,
    );
}

/** The expected field an exact_match metric compares with (§A5): config.match_field, else the only key. */
function exactField(e: Evaluator, c: ApastraCase, bag: DiagnosticBag): string | undefined {
  const configured = e.config.match_field ?? e.config.expected_field;
  if (typeof configured === 'string') return configured;
  const keys = Object.keys(c.expected);
  if (keys.length === 1) return keys[0];
  if (keys.length === 0) return undefined;
  bag.error(
    c.where.file,
    `case "${c.caseId}": evaluator "${e.id}" cannot tell which of expected_outputs ${keys.map((k) => `"${k}"`).join(', ')} to match exactly; set config.match_field in the evaluator`,
    c.where,
  );
  return undefined;
}

/**
 * The assertions one evaluator adds to one case: one per metric. `threshold` is the suite's
 * minimum for the metric, which then decides the case's pass; a metric without one is recorded
 * but never fails the case (weight 0).
 */
export function evaluatorSpecs(
  e: Evaluator,
  c: ApastraCase,
  thresholds: Record<string, number>,
  bag: DiagnosticBag,
): AssertionSpec[] {
  const out: AssertionSpec[] = [];
  for (const metric of e.metrics) {
    const t = thresholds[metric];
    const gate = typeof t === 'number' ? { threshold: t } : { threshold: 0, weight: 0 };
    const base = {
      metric,
      literal: true,
      source: e.where,
      options: { evaluator: e.id } as Record<string, unknown>,
    };
    if (e.type === 'deterministic' && KEYWORD.has(metric)) {
      const fieldName = typeof e.config.match_field === 'string' ? e.config.match_field : 'should_contain';
      const list = c.expected[fieldName];
      if (list !== undefined && !Array.isArray(list)) {
        bag.error(
          c.where.file,
          `case "${c.caseId}": expected_outputs.${fieldName} must be a list of keywords for keyword_recall`,
          c.where,
        );
        continue;
      }
      // Keywords compare as Python str(); an absent or empty list leaves the metric out for the case.
      const keywords = (list ?? []).map((k) => (typeof k === 'string' ? k : pyStr(toPyValue(k))));
      out.push({
        ...base,
        type: 'keyword-recall',
        value: keywords,
        options: { ...base.options, caseSensitive: e.config.case_sensitive === true, ifEmpty: 'skip' },
        ...gate,
      });
    } else if (e.type === 'deterministic' && EXACT.has(metric)) {
      const fieldName = exactField(e, c, bag);
      if (fieldName === undefined || !(fieldName in c.expected)) continue;
      const expected = c.expected[fieldName];
      out.push({
        ...base,
        type: 'equals',
        value: typeof expected === 'string' ? expected : pyStr(toPyValue(expected)),
        options: { ...base.options, ignoreCase: e.config.case_sensitive === false },
        ...gate,
      });
    } else if (e.type === 'schema') {
      out.push({ ...base, type: 'is-json', value: e.config.schema, ...gate });
    } else if (e.type === 'judge') {
      const rubric = typeof e.config.rubric === 'string' ? e.config.rubric : '';
      out.push({
        ...base,
        type: 'llm-rubric',
        value: `${rubric}\n\nScore the metric "${metric}" from 0.0 to 1.0.`.trim(),
        ...gate,
      });
    }
  }
  return out;
}
