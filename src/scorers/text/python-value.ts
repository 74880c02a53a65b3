// How the Python-semantics scorers read their options and expected values. Their callers translate
// suites written for Python tools, so a value is used the way such a tool indexes it.
import type { AssertionSpec } from '../../core/types.js';
import { ScorerInputError } from '../types.js';

/** `options.caseSensitive` (default true): false lowercases both sides with Python's `str.lower`. */
export function caseSensitive(spec: AssertionSpec): boolean {
  return spec.options?.caseSensitive !== false;
}

/**
 * Throws when there is no value: with `options.noValueError` when given (the suite's own tool's
 * wording, so the error reads as its users know it), else a plain sentence.
 */
export function requireValue(spec: AssertionSpec, value: unknown): asserts value is NonNullable<unknown> {
  if (value !== null && value !== undefined) return;
  const custom = spec.options?.noValueError;
  throw new ScorerInputError(
    typeof custom === 'string' && custom !== '' ? custom : 'needs a value, got none',
  );
}

function checkString(item: unknown, where: string): string {
  if (typeof item !== 'string') throw new ScorerInputError(`${where} must be a string, got ${typeof item}`);
  return item;
}

/** A string, or the first item of a list (Python's `value[0]`: an empty list is an IndexError). */
export function firstString(spec: AssertionSpec, value: unknown): string {
  requireValue(spec, value);
  if (!Array.isArray(value)) return checkString(value, 'the value');
  if (value.length === 0) throw new ScorerInputError('list index out of range');
  return checkString(value[0], 'item 1');
}

/** A string as a one-item list, or a list of strings (possibly empty). */
export function stringList(spec: AssertionSpec, value: unknown): string[] {
  requireValue(spec, value);
  if (!Array.isArray(value)) return [checkString(value, 'the value')];
  return value.map((item, i) => checkString(item, `item ${i + 1}`));
}

/** Load-time check shared by these scorers: a string or a list of strings. */
export function stringOrListProblem(spec: AssertionSpec): string | undefined {
  const v = spec.value;
  if (v === undefined || v === null) return `${spec.type} needs a value (a string or a list of strings)`;
  if (typeof v === 'string') return undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return undefined;
  return `${spec.type} needs a string or a list of strings`;
}

/** Shortens text quoted in a reason. */
export function quote(text: string, limit = 120): string {
  const shown = text.length <= limit ? text : `${text.slice(0, limit)}…`;
  return JSON.stringify(shown);
}
