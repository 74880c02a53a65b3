// A provider that can make no call at all (no API key for a service that needs one, no cloud
// credential) is refused before the run starts: one message naming what to set and exit 2, not one
// identical error per job and exit 3.
import { InputError } from '../core/errors.js';
import type { Provider } from '../providers/types.js';

/** What the run is about to call, by role: the providers under test and the graders. */
export interface ProvidersToCall {
  /** The suite's (or the command line's) providers and the ones cases name; none for a re-score. */
  underTest: Iterable<Provider>;
  /** The graders the suite's model-graded assertions will ask. */
  graders: Iterable<Provider>;
}

/**
 * Throws an InputError (exit 2) naming every provider that cannot make a single call, and the suite
 * file that asks for it.
 */
export function refuseUnusableProviders(suiteFile: string, providers: ProvidersToCall): void {
  const reasons = new Set<string>();
  for (const p of providers.underTest) if (p.unusable) reasons.add(`provider ${p.id}: ${p.unusable}`);
  for (const p of providers.graders) if (p.unusable) reasons.add(`grader ${p.id}: ${p.unusable}`);
  if (reasons.size === 0) return;
  throw new InputError(
    [...reasons].map((message) => ({
      file: suiteFile,
      message: `${message} (no model was called)`,
      severity: 'error' as const,
    })),
  );
}
