import type { Scorer } from './types.js';

const scorers = new Map<string, Scorer>();

/**
 * Adds an assertion type: a promptfoo config's `assert: [{ type: '<type>', value: … }]` (and
 * `not-<type>`) is then judged by `scorer.score`, which gets the output, the rendered `value`, the
 * vars and the prompt, and returns `{ pass, score, reason }`. `validate` refuses a bad assertion at
 * load time (exit 2, positioned); `graded: true` makes it need a grader. A format-specific scorer
 * uses a namespaced type (`lve:RegexChecker`); a plugin's type must not clash with a built-in one
 * (an Error says so).
 *
 * @example
 * registerScorer({
 *   type: 'word-count-at-most',
 *   description: 'the output has at most `value` words',
 *   score: ({ output, value }) => {
 *     const n = output.split(/\s+/).filter(Boolean).length;
 *     return { pass: n <= Number(value), score: n <= Number(value) ? 1 : 0, reason: `${n} words` };
 *   },
 * });
 */
export function registerScorer(scorer: Scorer): void {
  if (scorers.has(scorer.type)) throw new Error(`scorer "${scorer.type}" is registered twice`);
  scorers.set(scorer.type, scorer);
}

/** The scorer for a type (without `not-`), or undefined. */
export function getScorer(type: string): Scorer | undefined {
  return scorers.get(type);
}

/** Every registered type name, sorted. */
export function scorerTypes(): string[] {
  return [...scorers.keys()].sort();
}

/**
 * Splits an assertion type as written by a user (`not-contains`) into the base type and negation.
 * Returns undefined when the base type is unknown.
 */
export function resolveAssertionType(written: string): { type: string; negate: boolean } | undefined {
  if (scorers.has(written)) return { type: written, negate: false };
  if (written.startsWith('not-') && scorers.has(written.slice(4)))
    return { type: written.slice(4), negate: true };
  return undefined;
}
