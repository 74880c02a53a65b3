// Helpers shared by the text-metric scorers: value shapes checked at load and at score time.
import type { AssertionSpec } from '../../core/types.js';
import { ScorerInputError } from '../types.js';
import { describeShape, hasTemplate, writtenType } from '../util.js';

/** The assertion's own threshold, or the type's default when none was given (`??`: 0 is a threshold). */
export function thresholdOr(spec: AssertionSpec, fallback: number): number {
  return spec.threshold ?? fallback;
}

/** A string value that may be empty (levenshtein compares against "" too); throws ScorerInputError. */
export function stringValue(type: string, value: unknown): string {
  if (typeof value === 'string') return value;
  throw new ScorerInputError(
    `"${type}" assertion type must have a string value, got ${describeShape(value)}`,
  );
}

/** Load-time check of a string value; `nonEmpty` when an empty reference makes the metric undefined. */
export function stringValueProblem(type: string, spec: AssertionSpec, nonEmpty: boolean): string | undefined {
  const v = spec.value;
  if (v === undefined) return `${writtenType(type, spec)} needs a string value, got no value`;
  if (typeof v !== 'string') return `"${type}" needs a string value, got ${describeShape(v)}`;
  if (nonEmpty && v.trim() === '') return `${writtenType(type, spec)} needs a non-empty reference text`;
  return undefined;
}

/**
 * The reference texts of bleu/gleu/meteor: one string or a non-empty list of strings, none blank
 * unless `allowEmpty` (a blank reference has no n-grams, so every output would score against
 * nothing; meteor scores it 0, as promptfoo does). Throws ScorerInputError.
 */
export function referenceTexts(type: string, value: unknown, allowEmpty = false): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw new ScorerInputError(`"${type}" assertion has an empty list of references`);
  list.forEach((item, i) => {
    if (typeof item !== 'string') {
      throw new ScorerInputError(
        `"${type}" assertion type must have a string or array of strings value (item ${i + 1} is ${describeShape(item)})`,
      );
    }
    if (!allowEmpty && item.trim() === '') {
      throw new ScorerInputError(`"${type}" reference ${i + 1} is empty`);
    }
  });
  return list as string[];
}

/** Load-time check of bleu/gleu references; templated strings are judged once rendered. */
export function referencesProblem(type: string, spec: AssertionSpec, allowEmpty = false): string | undefined {
  const v = spec.value;
  if (v === undefined)
    return `${writtenType(type, spec)} needs a reference string or a list of them, got no value`;
  if (typeof v === 'string' && hasTemplate(v)) return undefined;
  try {
    referenceTexts(type, v, allowEmpty);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return undefined;
}

/** Splits text into n-grams (space-joined), as promptfoo's overlap metrics build them. */
export function nGrams(words: readonly string[], n: number): string[] {
  const grams: string[] = [];
  for (let i = 0; i + n <= words.length; i++) grams.push(words.slice(i, i + n).join(' '));
  return grams;
}

/** How many times each n-gram occurs. */
export function countGrams(grams: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const gram of grams) counts.set(gram, (counts.get(gram) ?? 0) + 1);
  return counts;
}

/** Σ min(candidate count, reference count): matches clipped so a repeated word is not over-credited. */
export function clippedMatches(candidate: Map<string, number>, reference: Map<string, number>): number {
  let matches = 0;
  for (const [gram, count] of candidate) matches += Math.min(count, reference.get(gram) ?? 0);
  return matches;
}
