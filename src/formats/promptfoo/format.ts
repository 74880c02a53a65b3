// The promptfoo format's entry in the format registry: cheap detection; the loader loads on demand.
import { existsSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { registerOutputRule } from '../../core/answer.js';
import type { SuiteFormat } from '../types.js';
import { isRecord } from './context.js';
import { PROMPTFOO_INTERPRETERS } from './interpreters.js';

// A promptfoo suite's answers read as promptfoo's providers build their output (Suite.answerRule).
registerOutputRule('promptfoo', async () => (await import('./output-rule.js')).PROMPTFOO_RULE);

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
  options: ['vars', 'combine', 'prompts', 'tests', 'promptPrefix', 'promptSuffix'],
  flags: [
    {
      name: 'prompt-prefix',
      type: 'string',
      arg: 'TEXT',
      commands: ['eval', 'validate'],
      description:
        "put TEXT before every prompt (as commandLineOptions.promptPrefix: the defaultTest's own prefix wins)",
      load: { option: 'promptPrefix' },
    },
    {
      name: 'prompt-suffix',
      type: 'string',
      arg: 'TEXT',
      commands: ['eval', 'validate'],
      description:
        "put TEXT after every prompt (as commandLineOptions.promptSuffix: the defaultTest's own suffix wins)",
      load: { option: 'promptSuffix' },
    },
  ],
  detectDir: findPromptfooConfig,
  detectFile: looksLikePromptfooConfig,
  loadObject: async (config, options) =>
    (await import('./config-object.js')).loadPromptfooObject(config, options),
  interpreters: PROMPTFOO_INTERPRETERS,
  failures: {
    describes: 'promptfoo output (results.results[])',
    read: async (file, text, kind) => (await import('./failures.js')).readPromptfooFailures(file, text, kind),
  },
  async load(path, options) {
    return (await import('./load.js')).loadPromptfooSuite(path, {
      env: options.env,
      vars: options.vars,
      streamAboveBytes: options.streamAboveBytes,
      combine: options.combine,
      prompts: options.prompts,
      tests: options.tests,
      promptPrefix: options.promptPrefix,
      promptSuffix: options.promptSuffix,
    });
  },
};
