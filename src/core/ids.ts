import { sha256 } from './hash.js';
import type { Case } from './types.js';

// Positions say where a case was written, not what it is: they stay out of its identity.
const withoutSource = (key: string, value: unknown): unknown => (key === 'source' ? undefined : value);

/**
 * Sets on every case (in place) an id derived from its content (description, vars, assertions, conversations,
 * options, fixed output), so the id survives reordering; identical cases get `-2`, `-3`… in order
 * of appearance. Loaders build cases with keys in a fixed order, so plain JSON is canonical enough
 * (and several times cheaper than sorting keys, which matters at 100k cases).
 */
export function assignCaseIds(cases: Omit<Case, 'id'>[]): Case[] {
  const seen = new Map<string, number>();
  return cases.map((c) => {
    const content = JSON.stringify(
      [
        c.description ?? null,
        c.vars,
        c.asserts,
        c.conversations ?? null,
        c.options ?? null,
        c.providerOutput ?? null,
      ],
      withoutSource,
    );
    const base = sha256(content).slice(0, 12);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const withId = c as Case;
    withId.id = n === 1 ? base : `${base}-${n}`;
    return withId;
  });
}
