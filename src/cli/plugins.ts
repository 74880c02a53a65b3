// `--require MODULE` (any command, repeatable, anywhere before a `--`): a plugin module imported
// before the command runs, as `node --import` and mocha's `--require` do. A plugin extends assay
// through the library's public API (`registerFormat`, `registerScorer`, `registerProvider`): it
// imports `assay` (the package this CLI is) and registers at its top level.
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../core/errors.js';
import { printDiagnostics } from './common.js';

/** The arguments without the `--require` flags, and the modules they name, in order. */
export function takePlugins(argv: string[]): { args: string[]; modules: string[] } {
  const args: string[] = [];
  const modules: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (a === '--require') {
      const value = argv[i + 1];
      if (value === undefined || value === '')
        throw new InputError('--require: expected a module (a file such as ./plugin.mjs, or a package name)');
      modules.push(value);
      i++;
    } else if (a.startsWith('--require=')) {
      const value = a.slice('--require='.length);
      if (value === '') throw new InputError('--require=: expected a module');
      modules.push(value);
    } else args.push(a);
  }
  return { args, modules };
}

/**
 * Imports each plugin module: a path (`./plugin.mjs`, `/abs/plugin.js`) from the current folder, a
 * package name as Node resolves it from there. One that cannot be loaded is bad input (exit 2).
 */
export async function loadPlugins(modules: string[], cwd = process.cwd()): Promise<void> {
  for (const m of modules) {
    let url: string;
    try {
      url =
        m.startsWith('.') || isAbsolute(m)
          ? pathToFileURL(resolve(cwd, m)).href
          : pathToFileURL(createRequire(join(cwd, 'noop.js')).resolve(m)).href;
    } catch (err) {
      throw new InputError(`--require ${m}: not found (${(err as Error).message.split('\n')[0]})`);
    }
    try {
      await import(url);
    } catch (err) {
      if (err instanceof InputError) throw err;
      const e = err as NodeJS.ErrnoException;
      throw new InputError(
        `--require ${m}: ${e?.code === 'ERR_MODULE_NOT_FOUND' ? 'not found' : 'failed to load'}: ${(e?.message ?? String(err)).split('\n')[0]}`,
      );
    }
  }
}

/**
 * The command line without its `--require` flags, once their plugins are loaded; or the exit code
 * (2) when one cannot be, after saying why.
 */
export async function loadPluginsFrom(argv: string[]): Promise<string[] | number> {
  try {
    const { args, modules } = takePlugins(argv);
    await loadPlugins(modules);
    return args;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    printDiagnostics(err.diagnostics);
    return 2;
  }
}
