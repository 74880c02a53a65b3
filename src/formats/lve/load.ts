// Loads LVEs into one assay Suite: every recorded instance (or every --args / --var input) of every
// LVE becomes a case whose conversation is the LVE's prompt filled with the instance's prompt
// values, checked by its checker (`lve:<ClassName>`), run on the provider its model maps to.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { DiagnosticBag } from '../../core/errors.js';
import { assignCaseIds } from '../../core/ids.js';
import { displayPath } from '../../core/positions.js';
import type { PyValue } from '../../core/python/json-loads.js';
import type { Case, ProviderSpec, Suite } from '../../core/types.js';
import { isKnownProviderId, providerPatterns } from '../../providers/registry.js';
import type { LoadOptions } from '../types.js';
import { buildCase, CATEGORY_SEVERITY, type LveRef } from './cases.js';
import { checkerSignature, UNPORTABLE_BUILTINS, UNPORTABLE_CUSTOM } from './checker-signatures.js';
import { checkerType } from './checkers.js';
import { SKIPPED_DIRS } from './folders.js';
import { type LveInstance, readInstanceFile, readInstances } from './instances.js';
import { DUMMY_MODEL, providerForModel } from './models.js';
import { readLveTest } from './test-json.js';

export { type LveNative, lveNative } from './native.js';

import type { LveNative } from './native.js';

/** The repository root above a path: the folder with `.lverepo`, else the parent of `repository/`. */
export function repositoryRoot(path: string): string | undefined {
  let dir = resolve(path);
  for (;;) {
    if (existsSync(join(dir, '.lverepo'))) return dir;
    if (basename(dir) === 'repository') return dirname(dir);
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * Category and name as LVE derives them (§1) from the path below the nearest `repository/` folder
 * above the LVE (else below the repository root): the category is the first folder, the name the
 * second-to-last component when two or more follow it, else the last. `rel` is that path, from
 * the folder holding `repository/`.
 */
export function categoryAndName(
  root: string | undefined,
  lveDir: string,
): { category: string; name: string; rel: string } {
  let base = root;
  for (let dir = dirname(lveDir); dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) === 'repository') {
      base = dirname(dir);
      break;
    }
    if (root !== undefined && dir === root) break;
  }
  if (base === undefined) return { category: '', name: basename(lveDir), rel: basename(lveDir) };
  const rel = relative(base, lveDir).split(sep);
  const parts = rel[0] === 'repository' ? rel.slice(1) : rel;
  const category = parts[0] ?? '';
  const after = parts.slice(1);
  const name = after.length > 1 ? after[after.length - 2] : (after[0] ?? category);
  return { category, name, rel: rel.join('/') };
}

/** Why an LVE's checker cannot run in assay, if it cannot. */
function unportable(checker: string, hasFiles: boolean): string | undefined {
  const needs = UNPORTABLE_BUILTINS[checker] ?? UNPORTABLE_CUSTOM[checker];
  if (needs) return `${checker} needs ${needs}, which assay does not have`;
  if (!checkerSignature(checker) && !hasFiles)
    return `${checker} is neither an LVE built-in checker nor defined in checker/checker*.py of this LVE`;
  return undefined;
}

/** Every LVE folder at or below `dir`, in path order (a folder reached twice through links, once). */
function findLves(dir: string, seen = new Set<string>()): string[] {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return [];
  }
  if (seen.has(real)) return [];
  seen.add(real);
  if (existsSync(join(dir, 'test.json'))) return [dir];
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    if (name.startsWith('.') || SKIPPED_DIRS.has(name)) continue;
    const sub = join(dir, name);
    try {
      if (statSync(sub).isDirectory()) out.push(...findLves(sub, seen));
    } catch {}
  }
  return out;
}

/** Loads an LVE repository, category, LVE folder or test.json. */
export async function loadLveSuite(path: string, options: LoadOptions): Promise<Suite> {
  const target = resolve(path);
  const start = statSync(target).isDirectory() ? target : dirname(target);
  const root = repositoryRoot(start);
  // A repository root with repository/ searches only that (history/ and the like stay out).
  const searchFrom =
    existsSync(join(start, '.lverepo')) && existsSync(join(start, 'repository'))
      ? join(start, 'repository')
      : start;
  const dirs = findLves(searchFrom);
  const bag = new DiagnosticBag();
  if (dirs.length === 0)
    bag.error(displayPath(target), 'no LVE here: expected a folder with a test.json at or below it');
  if (options.replay && (options.argsFile || options.vars))
    bag.error(
      displayPath(target),
      '--replay re-checks the recorded instances; it does not go with --args or --var',
    );
  const modelMap = options.modelMap ?? {};
  for (const [model, provider] of Object.entries(modelMap))
    if (!isKnownProviderId(provider))
      bag.error(
        '--model-map',
        `${model}=${provider}: unknown provider; expected one of: ${providerPatterns().join(', ')}`,
      );
  const override = (options.providers?.length ?? 0) > 0;
  let newArgs: LveInstance[] | undefined;
  if (options.argsFile) newArgs = readInstanceFile(resolve(options.argsFile), options.argsFile, bag, false);
  else if (options.vars)
    newArgs = [
      {
        file: '--var',
        line: 1,
        fileName: '--var',
        args: new Map(Object.entries(options.vars).map(([k, v]) => [k, v as PyValue])),
      },
    ];

  const cases: Omit<Case, 'id'>[] = [];
  const files: string[] = [];
  const providers = new Map<string, ProviderSpec>();
  const native: LveNative = { kind: 'lve', replay: options.replay === true, root: root ?? start, lves: [] };
  for (const dir of dirs) {
    const shown = displayPath(join(dir, 'test.json'));
    const test = readLveTest(dir, shown, bag);
    if (!test) continue;
    files.push(...test.files);
    const { category, name, rel } = categoryAndName(root, dir);
    native.lves.push({ path: rel, dir, category, name, model: test.model });
    const instances = newArgs ?? readInstances(dir, bag, options.ownAppends);
    if (instances.length === 0)
      bag.warn(
        shown,
        'this LVE has no recorded instances: nothing of it runs (give --args FILE or --var K=V to run new ones)',
      );
    for (const i of newArgs ? [] : instances) files.push(join(dir, 'instances', i.fileName));
    // The provider column of this LVE's model (the model id is its label); none with -p.
    let column: string | undefined;
    let modelError: string | undefined;
    const dummy =
      test.model === DUMMY_MODEL && !override && !options.replay && modelMap[DUMMY_MODEL] === undefined;
    if (dummy) {
      // LVE's dummy model answers from the instance's own args: no provider is called.
      column = DUMMY_MODEL;
      providers.set(column, { id: 'echo', label: column });
    } else if (!override && !options.replay) {
      const found = providerForModel(test.model, modelMap);
      column = test.model;
      if ('provider' in found) providers.set(test.model, { id: found.provider, label: test.model });
      else {
        modelError = found.reason;
        column = `${test.model} (no provider)`;
        providers.set(column, { id: 'echo', label: column });
      }
    }
    const type = checkerType(test.checkerName, test.checkerIsCustom);
    const ref: LveRef = {
      test,
      category,
      name,
      rel,
      checkerType: type,
      replay: options.replay === true,
      dummy,
    };
    // What will be an error result is said now too (assay validate shows it before any run).
    const needs = test.checkerIsCustom
      ? undefined
      : unportable(test.checkerName, test.customCheckerFiles.length > 0);
    if (needs && instances.length > 0)
      bag.warn(
        shown,
        `${needs}: its ${instances.length} instance(s) will be error results`,
        test.lineOf('checker_args'),
      );
    if (modelError && instances.length > 0)
      bag.warn(
        shown,
        `${modelError}; its ${instances.length} instance(s) will be error results`,
        test.lineOf('model'),
      );
    for (const instance of instances) {
      const c = buildCase(ref, instance, newArgs !== undefined);
      if (c.error !== undefined)
        bag.warn(instance.file, `this instance cannot run: ${c.error}`, { line: instance.line });
      else if (modelError && c.replay?.output === undefined) c.error = modelError;
      if (column) c.only = { providers: [column] };
      cases.push(c);
    }
  }
  const used = new Set(native.lves.map((l) => l.model));
  for (const model of Object.keys(modelMap))
    if (!used.has(model))
      bag.warn(
        '--model-map',
        `no LVE here names the model "${model}" (they name: ${[...used].sort().join(', ')})`,
      );
  bag.throwIfErrors();
  if (options.replay) providers.set('recorded', { id: 'echo', label: 'recorded' });
  const uniqueFiles = [...new Set(files)].filter((f) => existsSync(f));
  const hash = createHash('sha256');
  for (const f of uniqueFiles.sort()) {
    // A file a resumed run appended to is hashed as it was before (see LoadOptions.ownAppends).
    const upTo = options.ownAppends?.[resolve(f)];
    const content = upTo === undefined ? readFileSync(f) : readFileSync(f).subarray(0, upTo);
    hash.update(f).update('\0').update(content).update('\0');
  }
  if (options.argsFile) hash.update(readFileSync(resolve(options.argsFile)));
  if (options.vars) hash.update(JSON.stringify(options.vars));
  hash.update(options.replay ? 'replay' : 'run');
  const contentHash = hash.digest('hex');
  const base = root ?? start;
  return {
    id: contentHash.slice(0, 12),
    name: `LVE ${native.lves.length === 1 ? native.lves[0].path : basename(searchFrom === start ? start : base)}`,
    format: 'lve',
    source: { path: target, contentHash, files: uniqueFiles.map((f) => relative(base, f)) },
    basePath: base,
    prompts: [{ id: 'lve', label: 'lve', raw: '' }],
    providers: [...providers.values()],
    cases: assignCaseIds(cases),
    scoring: { breakdowns: ['lve', CATEGORY_SEVERITY] },
    native,
    warnings: bag.warnings,
  };
}
