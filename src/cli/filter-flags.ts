import { randomInt } from 'node:crypto';
import { InputError } from '../core/errors.js';
import type { SuiteFilters } from '../core/types.js';
import { hasFilters, parseTestRange } from '../engine/filter.js';
import { intFlag } from './common.js';
import type { CommandValues } from './options.js';

type Values = CommandValues<'eval'>;

/** The filters the flags ask for (undefined when none), without a seed for the sample yet. */
export function filtersFrom(values: Values): SuiteFilters | undefined {
  if (values['filter-providers'] !== undefined && values['filter-targets'] !== undefined)
    throw new InputError('give --filter-providers or --filter-targets, not both');
  const filters: SuiteFilters = {
    metadata: values['filter-metadata']?.length ? values['filter-metadata'] : undefined,
    pattern: values['filter-pattern'],
    firstN: intFlag('filter-first-n', values['filter-first-n'], 0),
    sample: intFlag('filter-sample', values['filter-sample'], 0),
    seed:
      values['filter-sample-seed'] !== undefined && values.seed === undefined
        ? intFlag('filter-sample-seed', values['filter-sample-seed'], 0, 2 ** 32 - 1)
        : intFlag('seed', values.seed, 0, 2 ** 32 - 1),
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
