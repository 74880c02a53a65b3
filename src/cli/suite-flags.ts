import { InputError } from '../core/errors.js';
import { aFormat } from '../core/printable.js';
import type { ProviderSpec } from '../core/types.js';
import { graderSpec } from '../evaluate/settings.js';
import type { LoadOptions } from '../formats/detect.js';

/** Flags that choose what part of a suite loads, shared by `eval`, `validate` and `hash`. */
export const SUITE_FLAGS = {
  tier: { type: 'string', multiple: true },
  category: { type: 'string', multiple: true },
  mode: { type: 'string' },
  suite: { type: 'string' },
  eval: { type: 'string' },
  'model-map': { type: 'string', multiple: true },
  replay: { type: 'boolean' },
  args: { type: 'string' },
} as const;

/** Help text for SUITE_FLAGS. */
export const SUITE_FLAGS_USAGE = `      --tier NAME            a tiered suite's tier to run (pramana: cheap, moderate, comprehensive,
                             or all; repeatable; default: the cheapest)
      --category NAME        run only this category (ÈwéBench; repeatable)
      --mode compat|fixed    scoring mode of formats whose tool has known defects (ÈwéBench):
                             compat reproduces the tool's numbers, fixed corrects them; apastra:
                             compat scores judged assertions with apastra's offline fallbacks
                             when no --grader is given
      --suite ID             the suite of an apastra workspace to run (by file name or id)
      --eval ID              the quick eval of an apastra workspace to run (by file name or id)
      --replay               LVE: no model; check each recorded instance's response again and
                             pass when the verdict equals its recorded passed (lve unit-test)
      --model-map ID=PROVIDER   LVE: run the LVEs of model ID on PROVIDER (repeatable)
      --args FILE            LVE: run these new inputs (JSON Lines of args) instead of the
                             recorded instances (--var k=v gives one)
`;

/** LoadOptions from parsed SUITE_FLAGS values. */
export function loadOptionsFrom(values: {
  tier?: string[];
  category?: string[];
  mode?: string;
  suite?: string;
  eval?: string;
  'model-map'?: string[];
  replay?: boolean;
  args?: string;
}): LoadOptions {
  const options: LoadOptions = {};
  if (values.replay) options.replay = true;
  if (values.args !== undefined) options.argsFile = values.args;
  if (values['model-map']?.length) {
    const map: Record<string, string> = {};
    for (const entry of values['model-map']) {
      const eq = entry.lastIndexOf('=');
      if (eq <= 0 || eq === entry.length - 1)
        throw new InputError(
          `--model-map ${entry}: expected MODEL=PROVIDER (e.g. meta/llama-2-7b-chat=openai:chat:llama2)`,
        );
      map[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    options.modelMap = map;
  }
  if (values.tier?.length) options.tiers = values.tier;
  if (values.category?.length) options.categories = values.category;
  if (values.mode !== undefined) {
    if (values.mode !== 'compat' && values.mode !== 'fixed')
      throw new InputError(`--mode ${values.mode}: expected compat or fixed`);
    options.mode = values.mode;
  }
  if (values.suite !== undefined) options.suiteId = values.suite;
  if (values.eval !== undefined) options.evalId = values.eval;
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
