// The pramana format's entry in the format registry: cheap detection; the loader loads on demand.
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { SuiteFormat } from '../types.js';

/** Keys of a pramana test besides `id`; a first line with `id` and any of them marks a tier. */
const TEST_KEYS = ['category', 'input', 'metadata', 'assertion', 'ideal'];

/**
 * Whether a `.jsonl` file's first non-blank line looks like a pramana test: an object with `id` and
 * at least one other test key. A test that fails pramana's validation still marks its file, so the
 * loader can say what is wrong with it instead of "not a suite".
 */
export function looksLikePramanaTier(path: string, text: string): boolean {
  if (extname(path).toLowerCase() !== '.jsonl') return false;
  const first = text
    .replace(/^\ufeff/, '')
    .split(/\r\n|\r|\n/)
    .find((l) => l.trim() !== '');
  if (first === undefined) return false;
  try {
    const value: unknown = JSON.parse(first);
    return (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      'id' in value &&
      TEST_KEYS.some((k) => k in value)
    );
  } catch {
    // A malformed first line still belongs to pramana when its keys are there: the loader says what is wrong.
    return first.includes('"id"') && TEST_KEYS.some((k) => first.includes(`"${k}"`));
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

/** Whether a path is the `manifest.toml` of a pramana folder (which stands for the folder). */
function isManifestFile(path: string): boolean {
  return basename(path) === 'manifest.toml' && findPramanaFolder(dirname(path)) !== undefined;
}

/** pramana suites: a tier `.jsonl` file, or a folder with `manifest.toml` and its tiers. */
export const format: SuiteFormat = {
  starter: async () => (await import('./starter.js')).starter,
  name: 'pramana',
  expects:
    'a pramana tier (.jsonl of tests with id, category, input, assertion) or a folder with manifest.toml (or that manifest.toml)',
  options: ['tiers'],
  flags: [
    {
      name: 'tier',
      type: 'string',
      multiple: true,
      arg: 'NAME',
      description:
        'a tier to run: cheap, moderate, comprehensive, or all (repeatable; default: the cheapest)',
      load: { option: 'tiers' },
    },
  ],
  detectDir: findPramanaFolder,
  detectFile: (path, text) => isManifestFile(path) || looksLikePramanaTier(path, text),
  async load(path, options) {
    const target = isManifestFile(path) ? dirname(path) : path;
    return (await import('./load.js')).loadPramanaSuite(target, { tiers: options.tiers });
  },
  async hashFile(path) {
    if (extname(path).toLowerCase() !== '.jsonl') return undefined;
    return (await import('./hash.js')).pramanaFileHash(path);
  },
};
