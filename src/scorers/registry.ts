import type { Scorer } from './types.js';

const scorers = new Map<string, Scorer>();

/** Adds a scorer under its type name; a format-specific scorer uses a namespaced type (`lve:RegexChecker`). */
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
