// `file://path[:function]` values of script assertions (spec §2.5): which runtime a file needs and
// which files assay refuses, shared by the scorers and the promptfoo loader.
import { extname, isAbsolute, resolve } from 'node:path';
import { MODULE_EXTENSIONS } from './import-module.js';

/** A script file named by an assertion value. */
export interface ScriptRef {
  /** The path as written (relative paths resolve against the suite's folder). */
  path: string;
  /** The function to call; undefined means the module's default (JS) or `get_assert` (Python). */
  fn?: string;
}

/** The runtime a script file runs in. */
export type ScriptRuntime = 'javascript' | 'python';

// TypeScript and JSX load through tsx, as in promptfoo (import-module.ts).
const JS_EXTENSIONS = MODULE_EXTENSIONS;

/**
 * Splits a `file://` value at the first `:` after the prefix, as promptfoo does (so `x.py:fn` names
 * a function). Returns undefined for inline code.
 */
export function parseScriptRef(value: string): ScriptRef | undefined {
  if (!value.startsWith('file://')) return undefined;
  const rest = value.slice('file://'.length);
  const colon = rest.indexOf(':');
  if (colon === -1) return { path: rest };
  const fn = rest.slice(colon + 1);
  // `file://x.js:` names no function: promptfoo's empty name is falsy, so the default is called.
  return fn === '' ? { path: rest.slice(0, colon) } : { path: rest.slice(0, colon), fn };
}

/** The runtime a script path needs, or undefined when its extension runs in neither. */
export function scriptRuntime(path: string): ScriptRuntime | undefined {
  const ext = extname(path).toLowerCase();
  if (JS_EXTENSIONS.has(ext)) return 'javascript';
  if (ext === '.py') return 'python';
  return undefined;
}

/**
 * Why a script file cannot be used, in one sentence, or undefined when it can. `type` is the
 * assertion type as written, for the message.
 */
export function scriptFileProblem(ref: ScriptRef, type: string): string | undefined {
  if (/\.d\.[cm]?ts$/i.test(ref.path))
    return `${type}: file://${ref.path} is a type declaration file, which holds no code`;
  if (scriptRuntime(ref.path) === undefined) {
    return `${type}: file://${ref.path} is not a script assay can run (use .js, .mjs, .cjs, .ts or .py)`;
  }
  if (ref.fn !== undefined && !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(ref.fn)) {
    return `${type}: "${ref.fn}" in file://${ref.path}:${ref.fn} is not a function name`;
  }
  return undefined;
}

/** The absolute path of a script, resolved against the suite's folder (or the working directory). */
export function scriptPath(ref: ScriptRef, basePath: string | undefined): string {
  return isAbsolute(ref.path) ? ref.path : resolve(basePath ?? process.cwd(), ref.path);
}
