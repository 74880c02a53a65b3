import { randomInt } from 'node:crypto';
import { InputError } from '../core/errors.js';
import type { SuiteFilters } from '../core/types.js';
import { hasFilters, parseTestRange } from '../engine/filter.js';
import { intFlag } from './common.js';

/** `assay eval` flags that choose part of a suite, set vars, read env files or pace requests. */
export const FILTER_FLAGS = {
  'filter-metadata': { type: 'string', multiple: true },
  'filter-pattern': { type: 'string' },
  'filter-first-n': { type: 'string', short: 'n' },
  'filter-sample': { type: 'string' },
  seed: { type: 'string' },
  'filter-providers': { type: 'string' },
  'filter-targets': { type: 'string' },
  'filter-prompts': { type: 'string' },
  'filter-failing': { type: 'string' },
  'filter-failing-only': { type: 'string' },
  'filter-errors-only': { type: 'string' },
  'filter-range': { type: 'string' },
  var: { type: 'string', multiple: true },
  'env-file': { type: 'string', multiple: true },
  'env-path': { type: 'string', multiple: true },
  delay: { type: 'string' },
} as const;

/** Help text for FILTER_FLAGS. */
export const FILTER_FLAGS_USAGE = `Choosing tests (applied in this order; an empty selection runs nothing and exits 0):
      --filter-metadata K=V  tests whose metadata K contains V (a,b: either; \\, a comma);
                             repeatable: every condition must hold
      --filter-failing RUN   tests that failed or errored in an earlier run (run id or directory,
                             or a promptfoo/assay results JSON), matched by case id or vars
      --filter-failing-only RUN  tests that failed an assertion in RUN (errors left out)
      --filter-errors-only RUN   tests that errored in RUN (both -only flags: either)
      --filter-pattern RE    tests whose description matches RE (tests without one are dropped)
      --filter-range A:B     tests A to B-1, zero-based, counted like -n (A: or :B leave a side open)
  -n, --filter-first-n N     the first N tests, counted before list vars expand them
      --filter-sample N      N tests drawn at random; --seed S makes the draw repeatable
      --seed S               seed of --filter-sample (printed and recorded when not given)
      --filter-providers RE  providers whose id or label matches RE (alias --filter-targets)
      --filter-prompts RE    prompts whose label or id matches RE
Inputs:
      --var K=V              set var K in every test, as a default: a test's own K wins
                             (promptfoo: K=V=W sets K to V); repeatable
      --env-file FILE        read environment variables from FILE (repeatable or a,b; overrides
                             the shell). Default: .env in this folder and the suite's, filling
                             in only unset variables. Values are never written to the run
      --delay MS             after each provider call (not cache hits), wait MS; requests then
                             go one at a time (as in promptfoo: -j is ignored, with a warning)
`;

type Values = {
  [K in keyof typeof FILTER_FLAGS]?: (typeof FILTER_FLAGS)[K] extends { multiple: true } ? string[] : string;
};

/** The filters the flags ask for (undefined when none), without a seed for the sample yet. */
export function filtersFrom(values: Values): SuiteFilters | undefined {
  if (values['filter-providers'] !== undefined && values['filter-targets'] !== undefined)
    throw new InputError('give --filter-providers or --filter-targets, not both');
  const filters: SuiteFilters = {
    metadata: values['filter-metadata']?.length ? values['filter-metadata'] : undefined,
    pattern: values['filter-pattern'],
    firstN: intFlag('filter-first-n', values['filter-first-n'], 0),
    sample: intFlag('filter-sample', values['filter-sample'], 0),
    seed: intFlag('seed', values.seed, 0, 2 ** 32 - 1),
    providers: values['filter-providers'] ?? values['filter-targets'],
    prompts: values['filter-prompts'],
    failing: values['filter-failing'],
    failingOnly: values['filter-failing-only'],
    errorsOnly: values['filter-errors-only'],
    range: rangeFrom(values['filter-range']),
  };
  if (filters.seed !== undefined && filters.sample === undefined)
    throw new InputError('--seed goes with --filter-sample');
  warnIgnoredFailureFilters(filters);
  for (const k of Object.keys(filters) as (keyof SuiteFilters)[])
    if (filters[k] === undefined) delete filters[k];
  return hasFilters(filters) ? filters : undefined;
}

function rangeFrom(text: string | undefined): SuiteFilters['range'] {
  if (text === undefined) return undefined;
  const range = parseTestRange(text);
  if (typeof range === 'string') throw new InputError(range);
  return range;
}

/** promptfoo's precedence among the failure filters leaves one unused in two combinations: say which. */
function warnIgnoredFailureFilters(f: SuiteFilters): void {
  const ignored =
    f.failing !== undefined && f.failingOnly !== undefined && f.errorsOnly !== undefined
      ? '--filter-failing (--filter-failing-only with --filter-errors-only selects both kinds)'
      : f.failing !== undefined && f.failingOnly !== undefined
        ? '--filter-failing-only (--filter-failing already selects failures and errors)'
        : f.failing !== undefined && f.errorsOnly !== undefined
          ? '--filter-errors-only (--filter-failing already selects failures and errors)'
          : undefined;
  if (ignored) process.stderr.write(`assay: as in promptfoo, ${ignored} is ignored\n`);
}

/** A sample without a seed gets a random one, so the manifest says how to draw the same tests again. */
export function seedSample(filters: SuiteFilters | undefined): SuiteFilters | undefined {
  if (filters?.sample === undefined || filters.seed !== undefined) return filters;
  const seed = randomInt(0, 2 ** 31);
  process.stderr.write(
    `assay: --filter-sample drew with seed ${seed} (give --seed ${seed} to draw the same tests)\n`,
  );
  return { ...filters, seed };
}

/**
 * `--var K=V` values, parsed as promptfoo does: the value is the text between the first and the
 * second `=` (so `a=b=c` sets a to `b`, with a warning); a value may be empty.
 */
export function varsFrom(values: string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const vars: Record<string, string> = {};
  for (const text of values) {
    const [key, value, ...rest] = text.split('=');
    if (!key || value === undefined)
      throw new InputError(`--var ${text}: expected key=value (e.g. topic=bees)`);
    if (rest.length > 0)
      process.stderr.write(
        `assay: --var ${text}: as in promptfoo, the value stops at the next "=" (${key} = "${value}")\n`,
      );
    vars[key] = value;
  }
  return vars;
}

/** `--env-file` and its alias `--env-path`, in the order given. */
export function envFilesFrom(values: Values): string[] | undefined {
  const files = [...(values['env-file'] ?? []), ...(values['env-path'] ?? [])];
  return files.length > 0 ? files : undefined;
}
