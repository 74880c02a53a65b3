// A promptfoo config given as an object (`evaluate({ config })`) instead of a file: read by the same
// loader as a promptfoo config file, its diagnostics given as paths in the object
// (`tests[3].assert[0].type: unknown assertion type …`). Relative `file://` references resolve
// against `basePath` (default: the current folder).
import { join, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { objectAsText } from '../../core/object-text.js';
import { displayPath } from '../../core/positions.js';
import type { Suite } from '../../core/types.js';
import type { LoadOptions } from '../types.js';
import { loadPromptfooSuite } from './load.js';

/** The name the object's text is read under (never written): the suite's source path names it. */
const OBJECT_FILE = 'promptfoo-config-object.json';

export async function loadPromptfooObject(
  config: unknown,
  options: LoadOptions & { basePath?: string },
): Promise<Suite> {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new InputError({
      file: '(config)',
      message: 'expected a promptfoo config object (prompts, providers, tests)',
      severity: 'error',
    });
  const asText = objectAsText(config);
  const abs = join(resolve(options.basePath ?? '.'), OBJECT_FILE);
  const file = displayPath(abs);
  let suite: Suite;
  try {
    suite = await loadPromptfooSuite(abs, {
      env: options.env,
      vars: options.vars,
      streamAboveBytes: options.streamAboveBytes,
      prompts: options.prompts,
      tests: options.tests,
      promptPrefix: options.promptPrefix,
      promptSuffix: options.promptSuffix,
      text: asText.text,
    });
  } catch (err) {
    if (err instanceof InputError) throw new InputError(asText.atPaths(err.diagnostics, file));
    throw err;
  }
  const description = (config as Record<string, unknown>).description;
  return {
    ...suite,
    name: typeof description === 'string' && description !== '' ? suite.name : 'config object',
    warnings: asText.atPaths(suite.warnings, file),
  };
}
