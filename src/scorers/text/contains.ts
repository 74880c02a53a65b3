import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape, hasTemplate, not, parseCommaList, truncate, verdict, writtenType } from '../util.js';

/** A needle promptfoo accepts for `contains`/`icontains`: a non-empty string or a number. */
function needle(type: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && !Number.isNaN(value)) return String(value);
  if (isListLike(value))
    throw new ScorerInputError(
      `Invariant failed: "${type}" assertion type must have a string or number value`,
    );
  throw new ScorerInputError(
    `"${type}" assertion needs a non-empty string or number value, got ${describeShape(value)}`,
  );
}

/** A prefix for `starts-with`: promptfoo accepts only a non-empty string. */
function prefix(value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (isListLike(value))
    throw new ScorerInputError('Invariant failed: "starts-with" assertion type must have a string value');
  throw new ScorerInputError(
    `"starts-with" assertion needs a non-empty string value, got ${describeShape(value)}`,
  );
}

/** A list (or mapping) where one needle belongs: promptfoo loads it and errors each row it scores. */
function isListLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** The load-time warning for a list where one needle belongs: its rows will be errors, as in promptfoo. */
function listNeedleDoubt(type: string, spec: AssertionSpec): string | undefined {
  if (!isListLike(spec.value)) return undefined;
  const list = type === 'starts-with' ? '' : ` (contains-any or contains-all take a list)`;
  return `${writtenType(type, spec)} has a ${Array.isArray(spec.value) ? 'list' : 'mapping'} value: each of its rows is an error, as in promptfoo${list}`;
}

/**
 * Load-time check of a single needle. A missing or empty literal value would make every job an
 * error at score time (promptfoo §11 #22), so it is reported at load; a template value can only
 * be judged once rendered.
 */
function singleValueProblem(type: string, spec: AssertionSpec, numbersAllowed: boolean): string | undefined {
  const v = spec.value;
  const name = writtenType(type, spec);
  if (v === undefined || v === '') return `${name} needs a non-empty value, got ${emptyShape(v)}`;
  if (typeof v === 'string' || isListLike(v)) return undefined;
  if (numbersAllowed && typeof v === 'number') {
    return Number.isNaN(v) ? `${name} needs a non-empty value, got NaN` : undefined;
  }
  const wanted = numbersAllowed ? 'a string or number' : 'a string';
  return `"${type}" needs ${wanted} value, got ${describeShape(v)}`;
}

/**
 * The items of a contains-any/all value: an array (each item a non-empty string or a number) or a
 * comma-separated string. An empty list is an error: "any of nothing" would always fail and "all of
 * nothing" would always pass, whatever the model said.
 */
function needleList(type: string, value: unknown): string[] {
  let items: string[];
  if (typeof value === 'string') {
    items = parseCommaList(value, type);
  } else if (Array.isArray(value)) {
    items = value.map((item, i) => {
      if (typeof item === 'string' && item !== '') return item;
      if (typeof item === 'number' && !Number.isNaN(item)) return String(item);
      throw new ScorerInputError(
        `"${type}" item ${i + 1} must be a non-empty string or a number, got ${describeShape(item)}`,
      );
    });
  } else {
    throw new ScorerInputError(
      `"${type}" assertion needs an array or a comma-separated string value, got ${describeShape(value)}`,
    );
  }
  if (items.length === 0) throw new ScorerInputError(`"${type}" assertion has no items to look for`);
  return items;
}

/**
 * Load-time check of a contains-any/all value: its shape, and that it names something to look for
 * ("any of nothing" always fails and "all of nothing" always passes, whatever the model said).
 * A templated string is judged only once rendered.
 */
function listValueProblem(type: string, spec: AssertionSpec): string | undefined {
  const v = spec.value;
  const name = writtenType(type, spec);
  if (v === undefined || v === '') return `${name} needs a non-empty value, got ${emptyShape(v)}`;
  if (typeof v === 'string') {
    if (hasTemplate(v)) return undefined;
    let items: string[];
    try {
      items = parseCommaList(v, type);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    return items.length === 0 ? `${name} needs at least one item, got ${JSON.stringify(v)}` : undefined;
  }
  if (!Array.isArray(v))
    return `"${type}" needs an array or a comma-separated string value, got ${describeShape(v)}`;
  if (v.length === 0) return `${name} needs a non-empty list, got an empty list`;
  const bad = v.findIndex((item) => typeof item !== 'string' && typeof item !== 'number');
  if (bad !== -1) {
    return `"${type}" item ${bad + 1} must be a string or a number, got ${describeShape(v[bad])}`;
  }
  const empty = v.indexOf('');
  if (empty !== -1) return `"${type}" item ${empty + 1} must be non-empty, got an empty string`;
  return undefined;
}

/** "no value" or "an empty string", for the messages about a missing needle. */
function emptyShape(value: unknown): string {
  return value === '' ? 'an empty string' : describeShape(value);
}

function scoreContains(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const v = needle('contains', input.value);
  return verdict(
    input.output.includes(v) !== negate,
    `Expected output to ${not(negate)}contain "${truncate(v)}"`,
  );
}

function scoreIContains(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const v = needle('icontains', input.value);
  // toLowerCase on both sides and no normalisation: promptfoo's rule ("İ" lower-cases to "i̇").
  const found = input.output.toLowerCase().includes(v.toLowerCase());
  return verdict(found !== negate, `Expected output to ${not(negate)}contain "${truncate(v)}"`);
}

function scoreStartsWith(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const v = prefix(input.value);
  return verdict(
    input.output.startsWith(v) !== negate,
    `Expected output to ${not(negate)}start with "${truncate(v)}"`,
  );
}

function listScorer(type: string, mode: 'any' | 'all', caseless: boolean): Scorer {
  return {
    type,
    description: `Output contains ${mode === 'any' ? 'at least one' : 'every one'} of the values${caseless ? ', ignoring case' : ''}`,
    validate: (spec) => listValueProblem(type, spec),
    score(input) {
      const negate = input.spec.negate === true;
      const items = needleList(type, input.value);
      const haystack = caseless ? input.output.toLowerCase() : input.output;
      const has = (item: string): boolean => haystack.includes(caseless ? item.toLowerCase() : item);
      const shown = truncate(items.join(', '));
      if (mode === 'any') {
        return verdict(
          items.some(has) !== negate,
          `Expected output to ${not(negate)}contain one of "${shown}"`,
        );
      }
      const missing = items.filter((item) => !has(item));
      return verdict(
        (missing.length === 0) !== negate,
        `Expected output to ${not(negate)}contain all of [${shown}]. Missing: [${truncate(missing.join(', '))}]`,
      );
    },
  };
}

/** The contains family: contains, icontains, starts-with and the any/all list forms. */
export const containsScorers: Scorer[] = [
  {
    type: 'contains',
    description: 'Output contains the value (case-sensitive)',
    validate: (spec) => singleValueProblem('contains', spec, true),
    lint: (spec) => listNeedleDoubt('contains', spec),
    score: scoreContains,
  },
  {
    type: 'icontains',
    description: 'Output contains the value, ignoring case',
    validate: (spec) => singleValueProblem('icontains', spec, true),
    lint: (spec) => listNeedleDoubt('icontains', spec),
    score: scoreIContains,
  },
  {
    type: 'starts-with',
    description: 'Output starts with the value',
    validate: (spec) => singleValueProblem('starts-with', spec, false),
    lint: (spec) => listNeedleDoubt('starts-with', spec),
    score: scoreStartsWith,
  },
  listScorer('contains-any', 'any', false),
  listScorer('contains-all', 'all', false),
  listScorer('icontains-any', 'any', true),
  listScorer('icontains-all', 'all', true),
];
