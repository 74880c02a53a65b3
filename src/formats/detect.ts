import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Suite } from '../core/types.js';

export interface LoadOptions {
  env?: Record<string, string | undefined>;
}

/**
 * Finds and loads a suite from a path (a file or a folder), recognising its format by its shape.
 * Every loader returns the same core Suite; nothing after this point asks which format it was.
 */
export async function loadSuite(path: string | undefined, options: LoadOptions = {}): Promise<Suite> {
  const target = resolve(path ?? '.');
  let isDir: boolean;
  try {
    isDir = statSync(target).isDirectory();
  } catch {
    throw new InputError({ file: path ?? '.', message: 'no such file or folder', severity: 'error' });
  }
  const promptfoo = await import('./promptfoo/index.js');
  if (isDir) {
    const config = promptfoo.findPromptfooConfig(target);
    if (config) return promptfoo.loadPromptfooSuite(config, options);
    throw new InputError({
      file: path ?? '.',
      message:
        'no suite found in this folder (expected promptfooconfig.yaml, promptfooconfig.yml or promptfooconfig.json)',
      severity: 'error',
    });
  }
  let text: string;
  try {
    text = readFileSync(target, 'utf8');
  } catch (err) {
    throw new InputError({
      file: target,
      message: `cannot read: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  if (promptfoo.looksLikePromptfooConfig(target, text)) return promptfoo.loadPromptfooSuite(target, options);
  throw new InputError({
    file: target,
    message:
      'not a suite assay recognises: expected a promptfoo config (a YAML/JSON mapping with prompts, providers and tests)',
    severity: 'error',
  });
}
