// Cases that name their own provider (promptfoo's per-test `provider`, spec §1.5): the distinct
// providers a suite needs besides those under test, and the key the engine finds them by.
import { suiteCases } from '../core/cases.js';
import { canonicalJson } from '../core/hash.js';
import type { Case, ProviderSpec, Suite } from '../core/types.js';

/** The identity of a case's provider: its id, label and config (where it was written does not count). */
export function caseProviderKey(spec: ProviderSpec): string {
  const { source: _source, ...rest } = spec;
  return canonicalJson(rest);
}

/** The distinct providers the suite's cases name, by key, in order of first appearance. */
export function caseProviderSpecs(suite: Suite): Map<string, ProviderSpec> {
  const specs = new Map<string, ProviderSpec>();
  for (const c of suiteCases(suite)) addCaseProvider(specs, c);
  return specs;
}

/** Adds the provider a case names for itself (if any, and new) to `specs`. */
export function addCaseProvider(specs: Map<string, ProviderSpec>, c: Case): void {
  const spec = c.preparation?.options?.provider;
  if (spec && !specs.has(caseProviderKey(spec))) specs.set(caseProviderKey(spec), spec);
}
