import { InputError } from '../core/errors.js';
import { aFormat } from '../core/printable.js';
import type { ProviderSpec } from '../core/types.js';
import { graderSpec } from '../evaluate/settings.js';
import type { LoadOptions } from '../formats/detect.js';

/** LoadOptions from the flags every format may take (the formats' own: args.ts formatLoadOptions). */
export function loadOptionsFrom(values: { mode?: string }): LoadOptions {
  const options: LoadOptions = {};
  if (values.mode !== undefined) {
    if (values.mode !== 'compat' && values.mode !== 'fixed')
      throw new InputError(`--mode ${values.mode}: expected compat or fixed`);
    options.mode = values.mode;
  }
  return options;
}

/** `--grader ID` / `--embedder ID`: a provider id assay knows. */
export function graderFrom(value: string | undefined, flag = '--grader'): ProviderSpec | undefined {
  return graderSpec(value, flag);
}

/** `--expect-hash`: refuses a suite whose own hash is not the one pinned. */
export function checkExpectedHash(
  suite: {
    source: { path: string; nativeHash?: string; nativeHashes?: Record<string, string> };
    format: string;
  },
  expected: string | undefined,
): void {
  if (expected === undefined) return;
  const actual = suite.source.nativeHash;
  const parts = Object.entries(suite.source.nativeHashes ?? {});
  if (actual === undefined && parts.length > 1)
    throw new InputError({
      file: suite.source.path,
      message: `--expect-hash: this run joins ${parts.length} parts, each with its own hash (${parts.map(([n, h]) => `${n} ${h}`).join(', ')}); pin one part (pramana: --tier NAME)`,
      severity: 'error',
    });
  if (actual === undefined)
    throw new InputError({
      file: suite.source.path,
      message: `--expect-hash: ${aFormat(suite.format)} suite has no suite hash to check`,
      severity: 'error',
    });
  const norm = (h: string): string => (h.startsWith('sha256:') ? h : `sha256:${h}`).toLowerCase();
  if (norm(actual) !== norm(expected))
    throw new InputError({
      file: suite.source.path,
      message: `suite hash is ${actual}, but --expect-hash pins ${expected}: the suite's files changed (or this is another suite)`,
      severity: 'error',
    });
}
