import { hash } from 'node:crypto';

/** sha256 hex digest of a string or bytes. */
export function sha256(data: string | Uint8Array): string {
  // One-shot `hash` (Node >= 20.12; package.json requires 20.18.1) is about twice as fast as a
  // Hash object for the short strings hashed once per case and once per job.
  return hash('sha256', data, 'hex');
}

/**
 * JSON with object keys sorted, so equal values always serialise to the same bytes: the text a
 * value is hashed by (ids, cache keys). An object's own fields are read, whatever its `toJSON` says
 * (a Date is its ISO text); fields holding undefined are left out.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * JSON with object keys sorted, of the value as `JSON.stringify` writes it (`toJSON` honoured): the
 * same text for a value and for its copy read back from a run log, so vars held in memory can be
 * matched with vars read from an earlier run's results (`--filter-failing`).
 */
export function canonicalJsonAsWritten(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort())
      sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** A short stable id for a value (first 12 hex digits of the sha256 of its canonical JSON). */
export function shortHash(value: unknown, length = 12): string {
  return sha256(canonicalJson(value)).slice(0, length);
}

/** The key of a job: stable across runs of the same suite, so resume, sharding and caching can rely on it. */
export function jobKey(caseId: string, promptId: string, providerId: string, trial: number): string {
  return sha256(`${caseId}\u0000${promptId}\u0000${providerId}\u0000${trial}`).slice(0, 16);
}
