import { shortHash } from './hash.js';
import type { Case } from './types.js';

/**
 * Gives every case an id derived from its content (description, vars, assertions), so the id
 * survives reordering; identical cases get `-2`, `-3`… in order of appearance.
 */
export function assignCaseIds(cases: Omit<Case, 'id'>[]): Case[] {
  const seen = new Map<string, number>();
  return cases.map((c) => {
    const base = shortHash({
      d: c.description ?? null,
      v: c.vars,
      a: c.asserts.map(({ source: _s, ...a }) => a),
      c: c.conversations ?? null,
      o: c.options ?? null,
      p: c.providerOutput ?? null,
    });
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { ...c, id: n === 1 ? base : `${base}-${n}` } as Case;
  });
}
