// Running JavaScript assertions: inline code compiled once per distinct text (spec §5.3), and
// `file://` modules imported once per absolute path.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ScorerInputError } from '../scorers/types.js';
import { importModule } from './import-module.js';

/** A user's assertion function. */
export type ScriptFunction = (...args: unknown[]) => unknown;

const CACHE_LIMIT = 1000;
/** Compiled inline code (or its syntax error message), keyed by the code as written. */
const compiled = new Map<string, ScriptFunction | string>();

function isEscaped(code: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && code[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** The last `;` outside string literals (promptfoo's scan: quotes only, not regexes or `${}`). */
function lastStatementSemicolon(code: string): number {
  let single = false;
  let double = false;
  let template = false;
  let last = -1;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i];
    if (!isEscaped(code, i)) {
      if (ch === "'" && !double && !template) single = !single;
      else if (ch === '"' && !single && !template) double = !double;
      else if (ch === '`' && !single && !double) template = !template;
    }
    if (ch === ';' && !single && !double && !template) last = i;
  }
  return last;
}

/**
 * The function body for one line of inline JavaScript: `return <expr>`, or, when the line starts
 * with `const`/`let`/`var`, `return` inserted before the expression after the last `;`.
 */
export function singleLineBody(code: string): string {
  const trimmed = code.trim().replace(/;+\s*$/, '');
  if (/^(const|let|var)\s/.test(trimmed)) {
    const semi = lastStatementSemicolon(trimmed);
    if (semi !== -1) {
      const expression = trimmed.slice(semi + 1).trim();
      if (expression) return `${trimmed.slice(0, semi + 1)} return ${expression}`;
    }
    // No final expression: the body returns undefined, which fails as promptfoo's does.
    return trimmed;
  }
  return `return ${trimmed}`;
}

/** The function body for inline code: multi-line code verbatim (it must `return`), else one line. */
export function inlineBody(code: string): string {
  const text = code.trimEnd();
  return text.includes('\n') ? text : singleLineBody(text);
}

/**
 * Compiles inline code into `(output, context, process) => result`, once per distinct text.
 * Returns the syntax error's message when it does not compile.
 */
export function compileInline(code: string): ScriptFunction | string {
  const hit = compiled.get(code);
  if (hit !== undefined) return hit;
  let entry: ScriptFunction | string;
  try {
    entry = new Function('output', 'context', 'process', inlineBody(code)) as ScriptFunction;
  } catch (err) {
    entry = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  if (compiled.size >= CACHE_LIMIT) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  compiled.set(code, entry);
  return entry;
}

const shims = new Map<string, NodeJS.Process>();

/**
 * The `process` inline code sees: the real one, plus `mainModule.require` (resolving from the
 * suite's folder) because ESM has no main module and promptfoo scripts use it to reach `require`.
 */
export function processShim(basePath: string | undefined): NodeJS.Process {
  const base = basePath ?? process.cwd();
  let shim = shims.get(base);
  if (!shim) {
    const mainModule = { require: createRequire(join(base, 'noop.js')) };
    shim = new Proxy(process, {
      get(target, prop) {
        if (prop === 'mainModule') return mainModule;
        const value: unknown = Reflect.get(target, prop, target);
        // Methods of process expect the real object as `this`.
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    shims.set(base, shim);
  }
  return shim;
}

type Module = Record<string, unknown>;
const modules = new Map<string, Promise<Module>>();

function importOnce(absPath: string): Promise<Module> {
  let pending = modules.get(absPath);
  if (!pending) {
    pending = importModule(absPath) as Promise<Module>;
    modules.set(absPath, pending);
  }
  return pending;
}

function member(owner: unknown, path: string): { fn?: ScriptFunction } {
  let target: unknown = owner;
  let parent: unknown;
  for (const part of path.split('.')) {
    if ((typeof target !== 'object' && typeof target !== 'function') || target === null) return {};
    parent = target;
    target = (target as Record<string, unknown>)[part];
  }
  if (typeof target !== 'function') return {};
  // A method named `Class.method` or `obj.fn` keeps its object as `this`.
  return { fn: (target as ScriptFunction).bind(parent) };
}

/**
 * Loads the function a `file://x.js[:fn]` value names: the named export (also found on a
 * CommonJS `module.exports` object), else the default export (or a transpiled `default.default`).
 * A module that does not load, or lacks the function, makes the assertion unusable (a job error).
 */
export async function loadScriptFunction(
  absPath: string,
  fn: string | undefined,
  shown: string,
): Promise<ScriptFunction> {
  let mod: Module;
  try {
    mod = await importOnce(absPath);
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new ScorerInputError(`cannot load ${shown}: ${message.split('\n')[0]}`);
  }
  if (fn !== undefined) {
    const found = member(mod, fn).fn ?? member(mod.default, fn).fn;
    if (found) return found;
    throw new ScorerInputError(`${shown} has no exported function "${fn}"`);
  }
  const main = mod.default;
  if (typeof main === 'function') return main as ScriptFunction;
  const inner = member(main, 'default').fn;
  if (inner) return inner;
  throw new ScorerInputError(
    `Assertion malformed: ${shown} must export a function or have a default export as a function`,
  );
}
