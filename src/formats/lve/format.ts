// The LVE format's entry in the format registry: a repository (`.lverepo` or `repository/`), a
// category folder or one LVE folder (any folder with an LVE `test.json` below it), or a test.json.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SuiteFormat } from '../types.js';
import { SKIPPED_DIRS } from './folders.js';

/** Whether a JSON text is an LVE test.json: an object with checker_args and a model. */
export function looksLikeLveTest(text: string): boolean {
  try {
    const v = JSON.parse(text.replace(/^\ufeff/, '')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && 'checker_args' in v && 'model' in v;
  } catch {
    // A broken test.json next to an LVE's usual files is still an LVE, so its error can be shown.
    return false;
  }
}

function isLveDir(dir: string): boolean {
  const test = join(dir, 'test.json');
  if (!existsSync(test)) return false;
  try {
    const text = readFileSync(test, 'utf8');
    return looksLikeLveTest(text) || existsSync(join(dir, 'instances')) || /"checker_args"/.test(text);
  } catch {
    return false;
  }
}

/** Whether an LVE is in `dir` or below it (a bounded search). */
function holdsLve(dir: string, depth: number): boolean {
  if (isLveDir(dir)) return true;
  if (depth === 0) return false;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  for (const name of names) {
    if (name.startsWith('.') || SKIPPED_DIRS.has(name)) continue;
    const sub = join(dir, name);
    try {
      if (statSync(sub).isDirectory() && holdsLve(sub, depth - 1)) return true;
    } catch {}
  }
  return false;
}

/** LVE: a repository, a category, one LVE folder, or its test.json. */
export const format: SuiteFormat = {
  starter: async () => (await import('./starter.js')).starter,
  name: 'lve',
  expects:
    'an LVE repository (.lverepo, repository/<category>/…/test.json), a category or LVE folder, or an LVE test.json',
  options: ['modelMap', 'replay', 'argsFile', 'vars'],
  detectDir: (dir) => (existsSync(join(dir, '.lverepo')) || holdsLve(dir, 6) ? dir : undefined),
  detectFile: (path, text) => basename(path) === 'test.json' && looksLikeLveTest(text),
  async load(path, options) {
    return (await import('./load.js')).loadLveSuite(path, options);
  },
};
