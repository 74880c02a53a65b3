// The ÈwéBench format's entry in the format registry: cheap detection by shape; the loader loads on demand.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { SuiteFormat } from '../types.js';
import { categoryByKey } from './categories.js';

/** Fields only ÈwéBench tests carry; a test array with none of them is someone else's. */
const EWE_FIELDS = ['eval_method', 'expected_keywords', 'expected_format'];

/** Whether a JSON text is an ÈwéBench test array: objects with `prompt` or `messages`, and ÈwéBench fields. */
export function looksLikeEweBenchTests(text: string): boolean {
  // A byte-order mark does not hide the file's shape; the loader says what is wrong with it.
  const body = text.replace(/^\ufeff/, '');
  if (!body.trimStart().startsWith('[')) return false;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return false;
  }
  if (!Array.isArray(value) || value.length === 0) return false;
  const isTest = (t: unknown): t is Record<string, unknown> =>
    typeof t === 'object' && t !== null && !Array.isArray(t) && ('prompt' in t || 'messages' in t);
  return value.every(isTest) && value.some((t) => EWE_FIELDS.some((f) => f in t));
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether a folder holds at least one ÈwéBench test file: one of the ten category file names, or
 * a JSON test array of ÈwéBench's shape. A broken category file still marks the folder, so the
 * loader can say what is wrong with it.
 */
function holdsTests(dir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  return names.some((name) => {
    if (extname(name).toLowerCase() !== '.json') return false;
    if (categoryByKey(name.slice(0, -'.json'.length))) return true;
    try {
      return looksLikeEweBenchTests(readFileSync(join(dir, name), 'utf8'));
    } catch {
      return false;
    }
  });
}

/** An ÈwéBench folder (its `tests/` holds test arrays) or a `tests/` folder itself. */
export function findEweBenchDir(dir: string): string | undefined {
  const tests = join(dir, 'tests');
  if (existsSync(tests) && isDir(tests) && holdsTests(tests)) return dir;
  return holdsTests(dir) ? dir : undefined;
}

/** ÈwéBench: a folder with `tests/<category>.json`, the `tests/` folder, or one category file. */
export const format: SuiteFormat = {
  starter: async () => (await import('./starter.js')).starter,
  name: 'ewebench',
  expects:
    'an ÈwéBench folder (tests/<category>.json: JSON arrays of tests with prompt or messages and eval_method), or one such file',
  options: ['categories', 'mode'],
  flags: [
    {
      name: 'category',
      type: 'string',
      multiple: true,
      arg: 'NAME',
      description: 'run only this category (repeatable)',
      load: { option: 'categories' },
    },
  ],
  detectDir: findEweBenchDir,
  detectFile: (path, text) => extname(path).toLowerCase() === '.json' && looksLikeEweBenchTests(text),
  async load(path, options) {
    return (await import('./load.js')).loadEweBenchSuite(path, options);
  },
};
