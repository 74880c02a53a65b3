// The config keys that change how a run goes rather than what it tests: `evaluateOptions`,
// `commandLineOptions` and `outputPath` (spec §1.1, §8). They become the suite's run defaults,
// which command-line flags override one by one.
import { extname, resolve } from 'node:path';
import type { RunDefaults, SuiteFilters } from '../../core/types.js';
import { brief, didYouMean, errorAt, isRecord, type LoadContext, notYet, warnAt } from './context.js';
import type { YamlFile } from './source.js';

/** What the loader itself applies from `commandLineOptions` (the rest goes to the run). */
export interface LoadDefaults {
  /** `commandLineOptions.var`: vars under the command line's `--var`. */
  vars?: Record<string, string>;
  promptPrefix?: string;
  promptSuffix?: string;
  /** `commandLineOptions.description`: the run's name. */
  description?: string;
}

type Kind = 'int0' | 'int1' | 'bool' | 'string' | 'strings';

type Filters = SuiteFilters;
/** Where a value goes: a RunDefaults field or a filter, and how it is converted on the way. */
type Rule = [Kind, keyof RunDefaults | `filters.${keyof Filters}`, ((v: never) => unknown)?];

// 0 means "no limit" in promptfoo.
const positive = (v: number): number | undefined => (v > 0 ? v : undefined);

// promptfoo's EvaluateOptions keys assay honours, with the RunDefaults field each sets.
const EVALUATE: Record<string, Rule> = {
  maxConcurrency: ['int1', 'maxConcurrency'],
  repeat: ['int1', 'repeat'],
  delay: ['int0', 'delayMs'],
  cache: ['bool', 'cache'],
  showProgressBar: ['bool', 'progress'],
  timeoutMs: ['int0', 'jobTimeoutMs', positive],
  maxEvalTimeMs: ['int0', 'maxRunMs', positive],
};
// Keys of promptfoo's EvaluateOptions that only steer its own UI or API callers.
const EVALUATE_NO_EFFECT = ['eventSource', 'silent', 'interactiveProviders', 'isRedteam'];

// promptfoo's CommandLineOptions keys assay honours as defaults of its own flags.
const COMMAND_LINE: Record<string, Rule> = {
  maxConcurrency: ['int1', 'maxConcurrency'],
  repeat: ['int1', 'repeat'],
  delay: ['int0', 'delayMs'],
  cache: ['bool', 'cache'],
  progressBar: ['bool', 'progress'],
  grader: ['string', 'grader'],
  filterPattern: ['string', 'filters.pattern'],
  filterFirstN: ['int0', 'filters.firstN'],
  filterSample: ['int0', 'filters.sample'],
  filterSampleSeed: ['int0', 'filters.seed'],
  filterProviders: ['string', 'filters.providers'],
  filterTargets: ['string', 'filters.providers'],
  filterMetadata: ['strings', 'filters.metadata'],
  filterFailing: ['string', 'filters.failing', (v: string) => resolve(v)],
  filterFailingOnly: ['string', 'filters.failingOnly', (v: string) => resolve(v)],
  filterErrorsOnly: ['string', 'filters.errorsOnly', (v: string) => resolve(v)],
  // Relative to the config's folder, as promptfoo resolves it (the CLI does, knowing the folder).
  envPath: ['strings', 'envFiles'],
};

/** Stores a converted option value where its rule says. */
function assign(defaults: RunDefaults, [, target, convert]: Rule, value: unknown): void {
  const v = convert ? convert(value as never) : value;
  if (v === undefined) return;
  if (target.startsWith('filters.')) {
    defaults.filters = { ...defaults.filters, [target.slice('filters.'.length)]: v };
  } else (defaults as Record<string, unknown>)[target] = v;
}
// Keys the loader applies itself.
const COMMAND_LINE_LOAD = ['var', 'promptPrefix', 'promptSuffix', 'description', 'output'];
// Keys that only steer promptfoo's console, database or sharing: nothing in assay to change.
const COMMAND_LINE_NO_EFFECT = [
  'verbose',
  'table',
  'tableCellMaxLength',
  'write',
  'share',
  'noShare',
  'watch',
  // Labels promptfoo stores with the eval in its database.
  'tags',
];
// Keys that would replace parts of the suite or need promptfoo's database: refused.
const COMMAND_LINE_REFUSED: Record<string, string> = {
  prompts: '`commandLineOptions.prompts` (list the prompts under `prompts`)',
  providers: '`commandLineOptions.providers` (list them under `providers`, or give assay -p)',
  tests: '`commandLineOptions.tests` (list the test files under `tests`)',
  vars: '`commandLineOptions.vars` (list the test files under `tests`)',
  assertions: '`commandLineOptions.assertions` (standalone assertion mode)',
  modelOutputs: '`commandLineOptions.modelOutputs` (standalone assertion mode)',
  config: '`commandLineOptions.config`',
  generateSuggestions: 'prompt suggestions (`generateSuggestions`)',
  retryErrors: '`retryErrors` (use assay eval --resume --retry-errors)',
};

/** Output file extensions and the format assay writes them in (promptfoo's JSON for `.json`). */
const OUTPUT_FORMATS: Record<string, string | undefined> = {
  '.json': 'promptfoo',
  '.jsonl': undefined,
  '.csv': undefined,
};

function parseValue(kind: Kind, value: unknown): unknown {
  // promptfoo's schema coerces numbers written as text ("5").
  const num = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  switch (kind) {
    case 'int0':
    case 'int1':
      return typeof num === 'number' && Number.isInteger(num) && num >= (kind === 'int1' ? 1 : 0)
        ? num
        : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'string':
      return typeof value === 'string' && value !== '' ? value : undefined;
    case 'strings':
      if (typeof value === 'string' && value !== '') return [value];
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')
        ? value
        : undefined;
  }
}

// The same bounds as the -j and --repeat flags: a typo must not plan a trillion jobs.
const MAXIMUM: Partial<Record<string, number>> = { repeat: 100_000, maxConcurrency: 10_000 };

const EXPECTED: Record<Kind, string> = {
  int0: 'a whole number ≥ 0',
  int1: 'a whole number ≥ 1',
  bool: 'true or false',
  string: 'a non-empty string',
  strings: 'a string or a list of strings',
};

/** Reads one mapping of run options into `defaults`, reporting each key assay cannot honour. */
function readOptions(
  ctx: LoadContext,
  yaml: YamlFile,
  key: 'evaluateOptions' | 'commandLineOptions',
  value: Record<string, unknown>,
  defaults: RunDefaults,
): void {
  const honoured = key === 'evaluateOptions' ? EVALUATE : COMMAND_LINE;
  const noEffect = key === 'evaluateOptions' ? EVALUATE_NO_EFFECT : COMMAND_LINE_NO_EFFECT;
  const known = [
    ...Object.keys(honoured),
    ...noEffect,
    ...(key === 'commandLineOptions' ? [...COMMAND_LINE_LOAD, ...Object.keys(COMMAND_LINE_REFUSED)] : []),
    ...(key === 'evaluateOptions' ? ['generateSuggestions'] : []),
  ];
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    const at = yaml.locateKey([key, name]);
    const rule = honoured[name];
    if (rule) {
      const parsed = parseValue(rule[0], v);
      const max = MAXIMUM[rule[1]];
      if (parsed === undefined || (max !== undefined && (parsed as number) > max))
        errorAt(
          ctx,
          yaml.locate([key, name]),
          `\`${key}.${name}\` must be ${max !== undefined ? `a whole number from 1 to ${max}` : EXPECTED[rule[0]]}, not ${brief(v)}`,
        );
      else assign(defaults, rule, parsed);
    } else if (noEffect.includes(name)) {
      warnAt(
        ctx,
        at,
        `\`${key}.${name}\` has no effect in assay (it steers promptfoo's own console or database)`,
      );
    } else if (key === 'evaluateOptions' && name === 'generateSuggestions') {
      if (v === true) errorAt(ctx, at, notYet('prompt suggestions (`generateSuggestions`)'));
    } else if (key === 'commandLineOptions' && name in COMMAND_LINE_REFUSED) {
      errorAt(ctx, at, notYet(COMMAND_LINE_REFUSED[name]));
    } else if (!COMMAND_LINE_LOAD.includes(name) || key !== 'commandLineOptions') {
      // promptfoo drops keys its schema does not know, so a config written for a newer promptfoo
      // still runs: a warning (naming a likely typo), not a refusal.
      warnAt(ctx, at, `unknown \`${key}\` key "${name}" is ignored${didYouMean(name, known)}`);
    }
  }
}

/** The loader's own share of `commandLineOptions`: `var`, `promptPrefix`, `promptSuffix`, `description`. */
function loadDefaults(ctx: LoadContext, yaml: YamlFile, value: Record<string, unknown>): LoadDefaults {
  const out: LoadDefaults = {};
  const text = (name: string): string | undefined => {
    const v = value[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    errorAt(
      ctx,
      yaml.locate(['commandLineOptions', name]),
      `\`commandLineOptions.${name}\` must be a string`,
    );
    return undefined;
  };
  out.promptPrefix = text('promptPrefix');
  out.promptSuffix = text('promptSuffix');
  out.description = text('description');
  const vars = value.var;
  if (vars !== undefined && vars !== null) {
    if (!isRecord(vars) || Object.values(vars).some((v) => isRecord(v) || Array.isArray(v)))
      errorAt(
        ctx,
        yaml.locate(['commandLineOptions', 'var']),
        '`commandLineOptions.var` must be a mapping of names to text values',
      );
    else
      out.vars = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, v === null ? '' : String(v)]));
  }
  for (const k of Object.keys(out) as (keyof LoadDefaults)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** `outputPath` (and `commandLineOptions.output`): files written after the run, relative to the working folder as promptfoo writes them. */
function outputTargets(
  ctx: LoadContext,
  yaml: YamlFile,
  path: (string | number)[],
  value: unknown,
): RunDefaults['outputs'] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((p) => typeof p !== 'string' || p === '')) {
    errorAt(ctx, yaml.locate(path), `\`${path.join('.')}\` must be a file path or a list of file paths`);
    return undefined;
  }
  const out: NonNullable<RunDefaults['outputs']> = [];
  for (const [i, p] of (list as string[]).entries()) {
    const ext = extname(p).toLowerCase();
    if (ext === '') {
      // promptfoo runs the eval, then fails this one write ("Unsupported output file format").
      warnAt(
        ctx,
        yaml.locate(typeof value === 'string' ? path : [...path, i]),
        `results file "${p}" has no extension, so it is not written (promptfoo fails the same write after the run); the run is kept in the runs folder`,
      );
      continue;
    }
    if (!(ext in OUTPUT_FORMATS)) {
      errorAt(
        ctx,
        yaml.locate(typeof value === 'string' ? path : [...path, i]),
        `${notYet(`writing a ${ext || 'extension-less'} results file`)}; assay writes .json (promptfoo's results JSON), .jsonl and .csv`,
      );
      continue;
    }
    const format = OUTPUT_FORMATS[ext];
    out.push(format ? { path: resolve(p), format } : { path: resolve(p) });
  }
  return out;
}

/**
 * Reads `evaluateOptions`, `commandLineOptions` and `outputPath` into run defaults (for the CLI)
 * and the defaults the loader applies itself. Keys assay cannot honour are errors, named.
 */
export function parseRunOptions(
  ctx: LoadContext,
  config: Record<string, unknown>,
  yaml: YamlFile,
): { run?: RunDefaults; load: LoadDefaults } {
  const run: RunDefaults = {};
  let load: LoadDefaults = {};
  for (const key of ['evaluateOptions', 'commandLineOptions'] as const) {
    const value = config[key];
    if (value === undefined || value === null) continue;
    if (!isRecord(value)) {
      errorAt(ctx, yaml.locate([key]), `\`${key}\` must be a mapping`);
      continue;
    }
    readOptions(ctx, yaml, key, value, run);
    if (key === 'commandLineOptions') {
      load = loadDefaults(ctx, yaml, value);
      if (value.output !== undefined && value.output !== null) {
        const outputs = outputTargets(ctx, yaml, [key, 'output'], value.output);
        if (outputs) run.outputs = outputs;
      }
    }
  }
  // `outputPath` is promptfoo's `-o`; its own `-o` replaces it, as assay's does.
  if (config.outputPath !== undefined && config.outputPath !== null) {
    const outputs = outputTargets(ctx, yaml, ['outputPath'], config.outputPath);
    if (outputs) run.outputs = [...(run.outputs ?? []), ...outputs];
  }
  return { run: Object.keys(run).length > 0 ? run : undefined, load };
}
