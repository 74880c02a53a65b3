import { sha256 } from './hash.js';
import type { Case } from './types.js';

// Positions say where a case was written, not what it is: they stay out of its identity.
const withoutSource = (key: string, value: unknown): unknown => (key === 'source' ? undefined : value);

/**
 * Exactly `JSON.stringify(value, withoutSource)` (ids recorded in old run logs depend on these
 * bytes), written out for plain data: a replacer function called on every key cost more than the
 * hashing at 100k cases. Anything but plain objects, arrays and primitives goes to JSON.stringify.
 */
function contentJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break;
    default:
      return JSON.stringify(value, withoutSource);
  }
  if (value === null) return 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return JSON.stringify(value, withoutSource);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += contentJson(value[i]) ?? 'null';
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return JSON.stringify(value, withoutSource);
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    if (key === 'source') continue;
    const item = contentJson((value as Record<string, unknown>)[key]);
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  return `${out}}`;
}

/** The text a case's id is the hash of (exported for the test that pins it to the original form). */
export function caseContent(c: Omit<Case, 'id'>): string {
  return contentJson([
    c.description ?? null,
    c.vars,
    c.asserts,
    c.conversations ?? null,
    c.options ?? null,
    c.providerOutput ?? null,
  ]) as string;
}

/**
 * Sets on every case (in place) an id derived from its content (description, vars, assertions, conversations,
 * options, fixed output), so the id survives reordering; identical cases get `-2`, `-3`… in order
 * of appearance. Loaders build cases with keys in a fixed order, so plain JSON is canonical enough
 * (and several times cheaper than sorting keys, which matters at 100k cases).
 */
export function assignCaseIds(cases: Omit<Case, 'id'>[]): Case[] {
  const seen = new Map<string, number>();
  const withIds = cases.map((c) => {
    const base = sha256(caseContent(c)).slice(0, 12);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const withId = c as Case;
    withId.id = n === 1 ? base : `${base}-${n}`;
    return withId;
  });
  return assignCaseRefs(withIds);
}

/** The text a case's default ref is the hash of: what the model is asked, not how it is checked. */
export function askedContent(c: Omit<Case, 'id'>): string {
  return contentJson([c.description ?? null, c.vars, c.conversations ?? null]) as string;
}

/**
 * Sets every case's stable identity (in place): the loader's `ref` (the format's own id) when it
 * gave one, else `h:` and a hash of the case's description, vars and conversations. A ref used
 * again gets `#2`, `#3`… in order of appearance, so refs are unique within the suite.
 */
export function assignCaseRefs<C extends Omit<Case, 'id'>>(cases: C[]): C[] {
  const seen = new Map<string, number>();
  for (const c of cases) {
    const base = c.ref ?? `h:${sha256(askedContent(c)).slice(0, 12)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    c.ref = n === 1 ? base : `${base}#${n}`;
  }
  return cases;
}
