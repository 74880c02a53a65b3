// The promptfoo format's entry in the format registry: cheap detection; the loader loads on demand.
import { existsSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { SuiteFormat } from '../types.js';
import { isRecord } from './context.js';

const CONFIG_NAMES = ['promptfooconfig.yaml', 'promptfooconfig.yml', 'promptfooconfig.json'];

/** The promptfoo config in a directory (`promptfooconfig.yaml`, `.yml`, `.json`, in that order). */
export function findPromptfooConfig(dir: string): string | undefined {
  for (const name of CONFIG_NAMES) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Whether a file looks like a promptfoo config: a YAML/JSON mapping with its top-level keys. */
export function looksLikePromptfooConfig(path: string, text: string): boolean {
  if (!['.yaml', '.yml', '.json'].includes(extname(path).toLowerCase())) return false;
  if (CONFIG_NAMES.includes(basename(path))) return true;
  // A cheap look at top-level keys, so detection does not parse every YAML file fully.
  const keys = new Set<string>();
  if (extname(path).toLowerCase() === '.json') {
    try {
      const value: unknown = JSON.parse(text);
      if (isRecord(value)) for (const k of Object.keys(value)) keys.add(k);
    } catch {
      // Broken JSON that names promptfoo's keys is a promptfoo config with a syntax error: let the
      // loader report it at its line, rather than calling the file unrecognisable.
      return (
        /^\s*\{/.test(text) &&
        /"(?:prompts|providers|targets)"\s*:/.test(text) &&
        /"(?:tests|prompts)"\s*:/.test(text)
      );
    }
  } else {
    for (const m of text.matchAll(/^(?:"([^"]+)"|'([^']+)'|([A-Za-z_$][\w$-]*))\s*:/gm))
      keys.add(m[1] ?? m[2] ?? m[3]);
  }
  const hasTests = keys.has('tests') || keys.has('defaultTest') || keys.has('scenarios');
  const hasProviders = keys.has('providers') || keys.has('targets');
  return (keys.has('prompts') && (hasProviders || hasTests)) || (hasProviders && hasTests);
}

/** promptfoo configs: `promptfooconfig.yaml` in a folder, or a YAML/JSON file with promptfoo's keys. */
export const format: SuiteFormat = {
  starter: async () => (await import('./starter.js')).starter,
  name: 'promptfoo',
  expects:
    'a promptfoo config (promptfooconfig.yaml/.yml/.json, or a YAML/JSON mapping with prompts, providers and tests)',
  options: ['vars', 'combine'],
  detectDir: findPromptfooConfig,
  detectFile: looksLikePromptfooConfig,
  async load(path, options) {
    return (await import('./index.js')).loadPromptfooSuite(path, {
      env: options.env,
      vars: options.vars,
      streamAboveBytes: options.streamAboveBytes,
      combine: options.combine,
    });
  },
};
