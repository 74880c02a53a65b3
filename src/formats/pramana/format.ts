// The pramana format's entry in the format registry: cheap detection; the loader loads on demand.
import { existsSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { SuiteFormat } from '../detect.js';

const TEST_KEYS = ['id', 'category', 'input', 'assertion'];

/** Whether a `.jsonl` file's first non-blank line is a pramana test (an object with its keys). */
export function looksLikePramanaTier(path: string, text: string): boolean {
  if (extname(path).toLowerCase() !== '.jsonl') return false;
  const first = text
    .replace(/^\ufeff/, '')
    .split(/\r\n|\r|\n/)
    .find((l) => l.trim() !== '');
  if (first === undefined) return false;
  try {
    const value: unknown = JSON.parse(first);
    return typeof value === 'object' && value !== null && TEST_KEYS.every((k) => k in value);
  } catch {
    // A malformed first line still belongs to pramana when its keys are there: the loader says what is wrong.
    return TEST_KEYS.every((k) => first.includes(`"${k}"`));
  }
}

/** A pramana suite folder: `manifest.toml` beside `.jsonl` tier files. */
export function findPramanaFolder(dir: string): string | undefined {
  if (!existsSync(join(dir, 'manifest.toml'))) return undefined;
  try {
    return readdirSync(dir).some((f) => f.endsWith('.jsonl')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** pramana suites: a tier `.jsonl` file, or a folder with `manifest.toml` and its tiers. */
export const format: SuiteFormat = {
  name: 'pramana',
  expects:
    'a pramana tier (.jsonl of tests with id, category, input, assertion) or a folder with manifest.toml',
  options: ['tiers'],
  detectDir: findPramanaFolder,
  detectFile: looksLikePramanaTier,
  async load(path, options) {
    return (await import('./index.js')).loadPramanaSuite(path, { tiers: options.tiers });
  },
};
