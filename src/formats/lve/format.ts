// The LVE format's entry in the format registry: a repository (`.lverepo` or `repository/`), a
// category folder or one LVE folder (any folder with an LVE `test.json` below it), or a test.json.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InputError } from '../../core/errors.js';
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
  flags: [
    {
      name: 'replay',
      type: 'boolean',
      description:
        "no model; check each recorded instance's response again and pass when the verdict equals its recorded passed (lve unit-test)",
      load: { option: 'replay' },
    },
    {
      name: 'model-map',
      type: 'string',
      multiple: true,
      arg: 'ID=PROVIDER',
      description: 'run the LVEs of model ID on PROVIDER (repeatable)',
      load: { option: 'modelMap', parse: (value) => modelMap(value as string[]) },
    },
    {
      name: 'args',
      type: 'string',
      arg: 'FILE',
      description:
        'run these new inputs (JSON Lines of args) instead of the recorded instances (--var k=v gives one)',
      load: { option: 'argsFile' },
    },
    {
      name: 'record',
      type: 'string',
      arg: 'NAME.jsonl',
      commands: ['eval'],
      description:
        'append each result as a TestInstance (as lve record writes it) to instances/NAME.jsonl of its own LVE folder; -o DIR/ --output-format lve writes the same tree under DIR',
      record: 'lve',
    },
  ],
  detectDir: (dir) => (existsSync(join(dir, '.lverepo')) || holdsLve(dir, 6) ? dir : undefined),
  detectFile: (path, text) => basename(path) === 'test.json' && looksLikeLveTest(text),
  async load(path, options) {
    return (await import('./load.js')).loadLveSuite(path, options);
  },
};

/** `--model-map ID=PROVIDER…`: the provider for each model id. */
function modelMap(entries: string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.lastIndexOf('=');
    if (eq <= 0 || eq === entry.length - 1)
      throw new InputError(
        `--model-map ${entry}: expected MODEL=PROVIDER (e.g. meta/llama-2-7b-chat=openai:chat:llama2)`,
      );
    map[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return map;
}
