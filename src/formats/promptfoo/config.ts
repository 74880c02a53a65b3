// The config file itself: parsing with positions, the `env:` block and load-time
// `{{ env.NAME }}` rendering, and the top-level keys assay refuses or ignores.
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { closest } from '../../core/suggest.js';
import { didYouMean, errorAt, isRecord, type LoadContext, notYet, warnAt } from './context.js';
import { renderEnvTemplates } from './env-templates.js';
import { dereferenced } from './json-refs.js';
import { jsonProblem, type PathPart, YamlFile, type YamlSplit } from './source.js';

const KNOWN_KEYS = [
  'description',
  'tags',
  'prompts',
  'providers',
  'targets',
  'tests',
  'defaultTest',
  'scenarios',
  'evaluateOptions',
  'commandLineOptions',
  'env',
  'nunjucksFilters',
  'derivedMetrics',
  'extensions',
  'metadata',
  'outputPath',
  'sharing',
  'tracing',
  'redteam',
  'writeLatestResults',
  'basePath',
];
const REFUSED_KEYS: Record<string, string> = {
  extensions: '`extensions` (lifecycle hooks)',
};
const IGNORED_KEYS: Record<string, string> = {
  redteam: 'red-team generation is not part of assay',
};

/** Parsed config plus its positions. */
export interface ConfigFile {
  yaml: YamlFile;
  /** The config with `{{ env.… }}` rendered. */
  config: Record<string, unknown>;
  /** The rendered `env:` block, as strings. */
  env?: Record<string, string>;
}

/** Top-level keys whose absence leaves a run with nothing to test. */
const EMPTYING_KEYS = new Set(['prompts', 'providers', 'targets', 'tests']);

/** Reads the bytes of a config path; throws on a missing file (the caller reports it). */
export function readConfigText(path: string): string {
  return readFileSync(path, 'utf8');
}

function findRefs(value: unknown, path: PathPart[], out: PathPart[][]): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) findRefs(v, [...path, i], out);
  } else if (isRecord(value)) {
    if (typeof value.$ref === 'string') out.push([...path, '$ref']);
    for (const [k, v] of Object.entries(value)) findRefs(v, [...path, k], out);
  }
}

/**
 * Refuses every JSON `$ref` pointer in a file promptfoo does not dereference (a provider file), at
 * the pointer. The parts of the loader that meet such a mapping later skip it quietly, so each gets
 * one error, not a cascade.
 */
export function reportJsonRefs(ctx: LoadContext, yaml: YamlFile): void {
  const refs: PathPart[][] = [];
  findRefs(yaml.value, [], refs);
  for (const path of refs) {
    errorAt(
      ctx,
      yaml.locate(path),
      'a JSON `$ref` pointer here is not resolved: promptfoo resolves `$ref` in the config and its test files only; write the value out',
    );
  }
}

/**
 * Parses a config (YAML or JSON), reports syntax errors (keeping what parsed), renders
 * `{{ env.NAME }}` (first the `env:` block against the process env, then everything with the
 * block overlaid) and checks the top-level keys.
 */
export function parseConfig(
  ctx: LoadContext,
  file: string,
  text: string,
  processEnv: Record<string, string | undefined>,
  split?: YamlSplit,
): ConfigFile | undefined {
  const ext = extname(file).toLowerCase();
  if (!['.yaml', '.yml', '.json'].includes(ext)) {
    errorAt(ctx, { file }, notYet(`a ${ext || 'extension-less'} config (use .yaml, .yml or .json)`));
    return undefined;
  }
  if (ext === '.json') {
    // promptfoo's YAML loader reads JSON too, but a broken .json file deserves JSON's diagnosis.
    const problem = jsonProblem(text);
    if (problem) {
      const { message, ...pos } = problem;
      errorAt(ctx, { file, ...pos }, message);
      return undefined;
    }
  }
  // `$ref` pointers are resolved over the whole document: a config with any is read whole.
  const yaml = new YamlFile(file, text, {
    json: ext === '.json',
    split: split && !text.includes('$ref') ? split : undefined,
  });
  yaml.reportErrors(ctx.bag);
  // A document that could not be read at all has been reported; "not a mapping" would only echo it.
  if (yaml.unreadable) return undefined;
  // `$ref` pointers are replaced before anything reads the config (promptfoo dereferences first).
  const raw = dereferenced(ctx, yaml, resolve(file));
  if (!isRecord(raw)) {
    errorAt(
      ctx,
      yaml.locate([]),
      'a promptfoo config must be a mapping with `prompts`, `providers` and `tests`',
    );
    return undefined;
  }

  let env: Record<string, string> | undefined;
  if (raw.env !== undefined && raw.env !== null) {
    if (!isRecord(raw.env)) errorAt(ctx, yaml.locate(['env']), '`env` must be a mapping of names to values');
    else {
      env = {};
      const rendered = renderEnvTemplates(raw.env, processEnv);
      for (const [k, v] of Object.entries(rendered)) {
        if (v === undefined || v === null) continue;
        if (isRecord(v) || Array.isArray(v))
          errorAt(ctx, yaml.locate(['env', k]), `env value "${k}" must be text`);
        else env[k] = String(v);
      }
    }
  }
  const overlay = { ...processEnv, ...env };
  ctx.env = overlay;
  const config = renderEnvTemplates(raw, overlay);

  for (const key of Object.keys(raw)) {
    if (key in REFUSED_KEYS && raw[key] !== undefined && raw[key] !== null) {
      errorAt(ctx, yaml.locateKey([key]), notYet(REFUSED_KEYS[key]));
    } else if (key in IGNORED_KEYS && raw[key] !== undefined && raw[key] !== null) {
      warnAt(ctx, yaml.locateKey([key]), `\`${key}\` is ignored by assay: ${IGNORED_KEYS[key]}`);
    } else if (!KNOWN_KEYS.includes(key)) {
      const hint = didYouMean(key, KNOWN_KEYS);
      const near = closest(key, KNOWN_KEYS);
      // promptfoo allows any other key silently (a `$ref` target, notes such as `questions:` or
      // `vars:`), so it is said, not refused. Only a near miss of a missing `prompts`, `providers`
      // or `tests` (`test:`) is refused: the run would test nothing and look green.
      if (near !== undefined && EMPTYING_KEYS.has(near) && raw[near] === undefined)
        errorAt(ctx, yaml.locateKey([key]), `unknown top-level key "${key}"${hint}`);
      else warnAt(ctx, yaml.locateKey([key]), `unknown top-level key "${key}" is ignored${hint}`);
    }
  }
  return { yaml, config, env };
}
