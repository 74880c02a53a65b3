// Output (and context) transforms as promptfoo runs them (spec §2.1 step 9, §5.1): an inline
// JavaScript expression or function body, or a `file://` JavaScript/Python function, called with
// the value and a context object. Shared by the engine (provider, case and assertion transforms)
// and by scorers that transform their own inputs (e.g. a context transform).

import { extname } from 'node:path';
import { errorText, relativeWhere } from '../scorers/code/run-file.js';
import { truncate } from '../scorers/util.js';
import { MODULE_EXTENSIONS } from './import-module.js';
import { loadScriptFunction, processShim, type ScriptFunction } from './js-runtime.js';
import { callPython, PythonUnavailableError } from './python-worker.js';
import { scriptPath } from './script-ref.js';

/** A transform that could not run, threw, or returned nothing: the job becomes an error with this message. */
export class TransformError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransformError';
  }
}

/** What the transformed value is called inside inline code. */
export type TransformInput = 'output' | 'vars';

// TypeScript and JSX load through tsx, as in promptfoo (import-module.ts).
const JS_EXTENSIONS = MODULE_EXTENSIONS;

/** A `file://` transform: its path and optional function name. */
interface FileTransform {
  path: string;
  fn?: string;
}

/**
 * Splits `file://path[:fn]` at the last colon, and only when the part before it names a JavaScript
 * or Python file (promptfoo's rule for transforms, so a folder with `:` in its name still works).
 */
function parseFileTransform(code: string): FileTransform | undefined {
  if (!code.startsWith('file://')) return undefined;
  const rest = code.slice('file://'.length);
  const colon = rest.lastIndexOf(':');
  if (colon > 1) {
    const path = rest.slice(0, colon);
    const ext = extname(path).toLowerCase();
    if (JS_EXTENSIONS.has(ext) || ext === '.py') {
      const fn = rest.slice(colon + 1);
      return fn ? { path, fn } : { path };
    }
  }
  return { path: rest };
}

/** How a transform is named in messages: the file, or the inline code on one shortened line. */
export function transformLabel(code: string): string {
  if (code.startsWith('file://')) return code;
  return truncate(code.replace(/\s+/g, ' ').trim(), 80);
}

const compiled = new Map<string, ScriptFunction | string>();
const CACHE_LIMIT = 1000;

/** Inline code as a function of (input, context, process): one line is an expression, more lines a body. */
function compile(code: string, input: TransformInput): ScriptFunction | string {
  const key = `${input}\u0000${code}`;
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  let entry: ScriptFunction | string;
  try {
    entry = new Function(
      input,
      'context',
      'process',
      code.includes('\n') ? code : `return ${code}`,
    ) as ScriptFunction;
  } catch (err) {
    entry = errorText(err);
  }
  if (compiled.size >= CACHE_LIMIT) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  compiled.set(key, entry);
  return entry;
}

/**
 * Why a transform can never run (a file of the wrong kind, inline code that does not compile), in
 * one sentence, or undefined. For load-time checks; a missing file is reported by the loader.
 */
export function transformProblem(code: unknown, input: TransformInput = 'output'): string | undefined {
  if (typeof code !== 'string' || code.trim() === '')
    return 'a transform must be JavaScript code or a file:// path';
  const file = parseFileTransform(code);
  if (file) {
    const ext = extname(file.path).toLowerCase();
    if (!JS_EXTENSIONS.has(ext) && ext !== '.py')
      return `Unsupported transform file format: ${code} (use .js, .mjs, .cjs, .ts or .py)`;
    return undefined;
  }
  const fn = compile(code, input);
  return typeof fn === 'string' ? `transform does not compile: ${fn}` : undefined;
}

/** The files a transform reads (for the suite's content hash), or none for inline code. */
export function transformFile(code: string): string | undefined {
  return parseFileTransform(code)?.path;
}

export interface TransformOptions {
  /** Relative `file://` paths resolve against this folder (the suite's). */
  basePath?: string;
  /** The inline code's name for the value; default `output`. */
  input?: TransformInput;
}

/**
 * Runs a transform on a value with a context (`{vars, prompt, metadata}` for outputs). Anything that
 * goes wrong, including a null or undefined result, is a TransformError naming the transform.
 */
export async function runTransform(
  code: string,
  value: unknown,
  context: Record<string, unknown>,
  opts: TransformOptions = {},
): Promise<unknown> {
  const label = transformLabel(code);
  const failed = (message: string) => new TransformError(`Transform failed (${label}): ${message}`);
  const file = parseFileTransform(code);
  let result: unknown;
  if (file && extname(file.path).toLowerCase() === '.py') {
    const abs = scriptPath(file, opts.basePath);
    let reply: Awaited<ReturnType<typeof callPython>>;
    try {
      reply = await callPython({
        kind: 'file',
        path: abs,
        fn: file.fn ?? 'get_transform',
        args: [value, context],
      });
    } catch (err) {
      if (err instanceof PythonUnavailableError) throw failed(err.message);
      throw err;
    }
    if (!reply.ok) throw failed(`${reply.error}${relativeWhere(reply.where, opts.basePath)}`);
    result = reply.result;
  } else {
    let fn: ScriptFunction;
    if (file) {
      const problem = transformProblem(code);
      if (problem) throw new TransformError(problem);
      try {
        fn = await loadScriptFunction(scriptPath(file, opts.basePath), file.fn, code);
      } catch (err) {
        throw failed(errorText(err));
      }
    } else {
      const compiledFn = compile(code, opts.input ?? 'output');
      if (typeof compiledFn === 'string') throw failed(compiledFn);
      fn = compiledFn;
    }
    try {
      result = await fn(value, context, processShim(opts.basePath));
    } catch (err) {
      throw failed(errorText(err));
    }
  }
  if (result === null || result === undefined) {
    throw new TransformError(`Transform function did not return a value (${label})`);
  }
  return result;
}
