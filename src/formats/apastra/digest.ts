// apastra's content digests (its digest convention): the document as compact JSON with sorted
// keys, SHA-256 of the UTF-8 bytes, `sha256:<hex>`; JSONL as its canonical lines joined by `\n`.
// apastra's two implementations differ in one detail: `runtime/digest.py` escapes non-ASCII text
// (`ensure_ascii=True`, Python's default), `validators/compute-digest.sh` writes it raw. assay
// records the first (the digest the runtime puts in run manifests) and accepts either as a match.
import { createHash } from 'node:crypto';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import type { PyValue } from '../../core/python/json-loads.js';

export type DigestVariant = 'ascii' | 'utf8';

function sha(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** `json.dumps(value, separators=(',', ':'), sort_keys=True[, ensure_ascii=False])`. */
export function canonicalJson(value: PyValue, variant: DigestVariant = 'ascii'): string {
  return pyJsonDumps(value, { sortKeys: true, separators: [',', ':'], ensureAscii: variant === 'ascii' });
}

/** The digest of one YAML or JSON document. */
export function documentDigest(value: PyValue, variant: DigestVariant = 'ascii'): string {
  return sha(canonicalJson(value, variant));
}

/** The digest of a JSONL file's values (blank lines already skipped). */
export function jsonlDigest(values: PyValue[], variant: DigestVariant = 'ascii'): string {
  return sha(values.map((v) => canonicalJson(v, variant)).join('\n'));
}

/** A document without its own top-level `digest` key: what a stored digest is computed over. */
export function withoutDigestKey(value: PyValue): PyValue {
  if (!(value instanceof Map) || !value.has('digest')) return value;
  const copy = new Map(value);
  copy.delete('digest');
  return copy;
}

/** Both variants of a digest, for checking a stored value. */
export function bothDigests(compute: (variant: DigestVariant) => string): string[] {
  const ascii = compute('ascii');
  const utf8 = compute('utf8');
  return ascii === utf8 ? [ascii] : [ascii, utf8];
}
