// selectProviders: the providers a run uses, the suite's own or those named with `-p`.

import { InputError } from '../core/errors.js';
import { aFormat } from '../core/printable.js';
import type { ProviderSpec, Suite } from '../core/types.js';
import { providerKey } from '../engine/plan.js';
import { isKnownProviderId, providerPatterns } from '../providers/registry.js';

/**
 * The providers to run: the suite's, or those named with `-p`. A name matching a suite provider
 * (exact id, exact label, or id ending in `:name`) keeps that provider's config.
 */
export function selectProviders(suite: Suite, overrides: string[] | undefined): ProviderSpec[] {
  if (!overrides || overrides.length === 0) {
    // Some formats (ÈwéBench) name no model: the model under test comes from the command line.
    if (suite.providers.length === 0)
      throw new InputError({
        file: suite.source.path,
        message: `${aFormat(suite.format)} suite names no model: give one with -p, e.g. -p openai:chat:MODEL (OPENAI_BASE_URL for a local OpenAI-compatible server)`,
        severity: 'error',
      });
    return suite.providers;
  }
  const out: ProviderSpec[] = [];
  const problems: string[] = [];
  for (const name of overrides) {
    const match =
      suite.providers.find((p) => p.id === name) ??
      suite.providers.find((p) => p.label === name) ??
      suite.providers.find((p) => p.id.endsWith(`:${name}`));
    const spec = match ?? (isKnownProviderId(name) ? { id: name } : undefined);
    if (spec && out.some((p) => providerKey(p) === providerKey(spec)))
      problems.push(`--provider ${name}: given twice`);
    else if (spec) out.push(spec);
    else
      problems.push(
        `--provider ${name}: unknown provider; expected one of: ${providerPatterns().join(', ')}`,
      );
  }
  if (problems.length > 0)
    throw new InputError(problems.map((message) => ({ file: '', message, severity: 'error' as const })));
  return out;
}
