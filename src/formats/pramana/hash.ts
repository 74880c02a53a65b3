// pramana's hashes, byte for byte with its Python implementation (`pramana.hash`).
import { sha256 } from '../../core/hash.js';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import type { PyValue } from '../../core/python/json-loads.js';
import { PyTypeError, pySorted } from '../../core/python/order.js';
import { readTierFile } from './read.js';

/**
 * `hash_suite`: the raw parsed test objects (unvalidated, no defaults filled in) sorted by `id` as
 * Python sorts (stable; numbers by value, strings by code point, lists item by item), written as
 * one array by `json.dumps(sort_keys=True, separators=(",", ":"))`, then SHA-256 of its UTF-8
 * bytes. Throws PyTypeError where pramana's sort raises (ids it cannot order), and an Error for a
 * test with no `id` (pramana's KeyError).
 */
export function pramanaSuiteHash(tests: PyValue[]): string {
  const idOf = (v: PyValue): PyValue => {
    if (!(v instanceof Map) || !v.has('id')) throw new Error('pramanaSuiteHash: every test needs an id');
    return v.get('id') as PyValue;
  };
  const sorted = pySorted(tests, idOf);
  return `sha256:${sha256(pyJsonDumps(sorted, { sortKeys: true, separators: [',', ':'] }))}`;
}

/**
 * `hash_suite` of any JSONL file, as pramana computes it without validating: an empty or blank
 * file is `[]`; undefined unless every line parses (as Python's json.loads) to an object with an
 * `id`, and the ids can be ordered (pramana would raise).
 */
export function pramanaFileHash(path: string): string | undefined {
  const { lines, errors } = readTierFile(path, path);
  if (errors.length > 0) return undefined;
  const values = lines.map((l) => l.value as PyValue);
  if (!values.every((v) => v instanceof Map && v.has('id'))) return undefined;
  try {
    return pramanaSuiteHash(values);
  } catch (err) {
    if (err instanceof PyTypeError) return undefined;
    throw err;
  }
}

/** `hash_result`: SHA-256 of `model_id|test_id|output` (UTF-8), the identity pramana's server dedupes on. */
export function pramanaResultHash(modelId: string, testId: string, output: string): string {
  return `sha256:${sha256(`${modelId}|${testId}|${output}`)}`;
}
