// pramana's hashes, byte for byte with its Python implementation (`pramana.hash`).
import { sha256 } from '../../core/hash.js';
import { compareCodePoints, pyJsonDumps } from '../../core/python/json-dumps.js';
import type { PyValue } from '../../core/python/json-loads.js';
import { readTierFile } from './read.js';

/**
 * `hash_suite`: the raw parsed test objects (unvalidated, no defaults filled in) sorted by `id`
 * (a stable sort, by code point), written as one array by `json.dumps(sort_keys=True,
 * separators=(",", ":"))`, then SHA-256 of its UTF-8 bytes.
 */
export function pramanaSuiteHash(tests: PyValue[]): string {
  const idOf = (v: PyValue): string => {
    const id = v instanceof Map ? v.get('id') : undefined;
    if (typeof id !== 'string') throw new Error('pramanaSuiteHash: every test needs a string id');
    return id;
  };
  const sorted = [...tests].sort((a, b) => compareCodePoints(idOf(a), idOf(b)));
  return `sha256:${sha256(pyJsonDumps(sorted, { sortKeys: true, separators: [',', ':'] }))}`;
}

/**
 * `hash_suite` of any JSONL file, as pramana computes it without validating: undefined unless every
 * line parses (as Python's json.loads) to an object with a string `id` (pramana would raise).
 */
export function pramanaFileHash(path: string): string | undefined {
  const { lines, errors } = readTierFile(path, path);
  if (errors.length > 0 || lines.length === 0) return undefined;
  const values = lines.map((l) => l.value as PyValue);
  if (!values.every((v) => v instanceof Map && typeof v.get('id') === 'string')) return undefined;
  return pramanaSuiteHash(values);
}

/** `hash_result`: SHA-256 of `model_id|test_id|output` (UTF-8), the identity pramana's server dedupes on. */
export function pramanaResultHash(modelId: string, testId: string, output: string): string {
  return `sha256:${sha256(`${modelId}|${testId}|${output}`)}`;
}
