// One place that turns what the caller asked for (command-line flags, or library options) and what
// the suite declares for itself (promptfoo's evaluateOptions/commandLineOptions) into the settings
// a run uses. The CLI and the library both go through it, so `assay eval` and `evaluate()` run a
// suite the same way.
import { InputError } from '../core/errors.js';
import type { ProviderSpec, Suite, SuiteFilters } from '../core/types.js';
import { isKnownProviderId, providerPatterns } from '../providers/registry.js';

export const DEFAULT_MAX_CONCURRENCY = 8;

/** What the caller asked for; each field given replaces the suite's own setting. */
export interface RequestedSettings {
  maxConcurrency?: number;
  repeat?: number;
  delayMs?: number;
  jobTimeoutMs?: number;
  maxRunMs?: number;
  /** The response cache, or false for none. */
  cache?: { path: string; ttlSeconds?: number } | false;
  grader?: ProviderSpec;
  filters?: SuiteFilters;
}

/** The settings a run uses. */
export interface RunSettings {
  maxConcurrency: number;
  repeat: number;
  /** Milliseconds a worker waits after each call that reached a provider (0: none). */
  delayMs: number;
  /** The wait when neither the provider nor the run sets one; keeps the concurrency. */
  fallbackDelayMs?: number;
  jobTimeoutMs?: number;
  maxRunMs?: number;
  cache: { path: string; ttlSeconds?: number } | false;
  grader?: ProviderSpec;
  filters?: SuiteFilters;
  /** What the caller should be told about how its request was changed (one line each). */
  notes: string[];
}

/** The settings for a run of `suite`, the caller's request over the suite's own run defaults. */
export function resolveRunSettings(suite: Suite, requested: RequestedSettings): RunSettings {
  const defaults = suite.runDefaults ?? {};
  const notes: string[] = [];
  const delayMs = requested.delayMs ?? defaults.delayMs ?? 0;
  let maxConcurrency = requested.maxConcurrency ?? defaults.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (delayMs > 0) {
    // promptfoo sends one request at a time whenever a delay is asked for, whatever -j says.
    if (requested.maxConcurrency !== undefined && requested.maxConcurrency > 1)
      notes.push(
        `-j ${requested.maxConcurrency} ignored: with a delay of ${delayMs} ms requests go one at a time (as in promptfoo)`,
      );
    maxConcurrency = 1;
  }
  const settings: RunSettings = {
    maxConcurrency,
    repeat: requested.repeat ?? defaults.repeat ?? 1,
    delayMs,
    cache: requested.cache === false || defaults.cache === false ? false : (requested.cache ?? false),
    notes,
  };
  if (defaults.fallbackDelayMs !== undefined) settings.fallbackDelayMs = defaults.fallbackDelayMs;
  const jobTimeoutMs = requested.jobTimeoutMs ?? defaults.jobTimeoutMs;
  if (jobTimeoutMs !== undefined) settings.jobTimeoutMs = jobTimeoutMs;
  const maxRunMs = requested.maxRunMs ?? defaults.maxRunMs;
  if (maxRunMs !== undefined) settings.maxRunMs = maxRunMs;
  const grader = requested.grader ?? graderSpec(defaults.grader, "the suite's commandLineOptions.grader");
  if (grader) settings.grader = grader;
  const filters = defaults.filters ? { ...defaults.filters, ...requested.filters } : requested.filters;
  if (filters) settings.filters = filters;
  return settings;
}

/** A grader given by id (`--grader ID`, or a suite's): a provider id assay knows. */
export function graderSpec(value: string | undefined, where = '--grader'): ProviderSpec | undefined {
  if (value === undefined) return undefined;
  if (!isKnownProviderId(value))
    throw new InputError(
      `${where} ${value}: unknown provider; expected one of: ${providerPatterns().join(', ')}`,
    );
  return { id: value };
}
