// A config object a library program gives (instead of a file) as the JSON text a file loader reads,
// with the path in the object of every line, so a loader's positioned diagnostics (line, column)
// become paths in the object (`tests[3].assert[0].type`) that the program's author can find.
import { InputError } from './errors.js';
import type { Diagnostic } from './types.js';

/** `tests[3]`, `vars.city`, `vars["my key"]`: a step of a path as a program would write it. */
export function pathStep(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The data of `value` as JSON would keep it, refusing what a file could not hold (a function, a
 * symbol, a bigint, a class instance other than a Date, a cycle) with its path, instead of dropping it.
 */
function plainData(value: unknown, path: string, problems: Diagnostic[], seen: Set<object>): unknown {
  const at = path || '(config)';
  const refuse = (what: string) => {
    problems.push({
      file: at,
      message: `${what}: a config object holds data only (text, numbers, booleans, null, arrays, objects), as its file would`,
      severity: 'error',
    });
    return null;
  };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number')
    return Number.isFinite(value) ? value : refuse(`${value} is not a JSON number`);
  if (typeof value === 'function') return refuse('a function');
  if (typeof value === 'symbol' || typeof value === 'bigint') return refuse(`a ${typeof value}`);
  if (value === undefined) return undefined;
  if (value instanceof Date) return value.toJSON();
  const obj = value as object;
  if (seen.has(obj)) return refuse('a cycle (this value contains itself)');
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((e, i) => plainData(e, pathStep(path, i), problems, seen) ?? null);
    if (!isPlain(obj)) return refuse(`an instance of ${obj.constructor?.name ?? 'a class'}`);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const d = plainData(v, pathStep(path, k), problems, seen);
      if (d !== undefined) out[k] = d;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

/** The path of each line of `JSON.stringify(data, null, 2)` (index: line - 1). */
function linePaths(data: unknown): string[] {
  const out: string[] = [''];
  const visit = (x: unknown, path: string) => {
    if (x === null || typeof x !== 'object') return;
    const entries: [string | number, unknown][] = Array.isArray(x)
      ? x.map((e, i) => [i, e])
      : Object.entries(x as Record<string, unknown>);
    if (entries.length === 0) return;
    for (const [k, e] of entries) {
      const p = pathStep(path, k);
      out.push(p);
      visit(e, p);
    }
    out.push(path);
  };
  visit(data, '');
  return out;
}

/** A config object as the text of a JSON file, and the way back from its lines to paths. */
export interface ObjectText {
  text: string;
  /** Rewrites diagnostics positioned in `file` (the name the text was loaded under) to paths. */
  atPaths(diagnostics: Diagnostic[], file: string): Diagnostic[];
}

/** The JSON text of a config object; refuses (InputError, with paths) what JSON cannot hold. */
export function objectAsText(value: unknown): ObjectText {
  const problems: Diagnostic[] = [];
  const data = plainData(value, '', problems, new Set());
  if (problems.length > 0) throw new InputError(problems);
  const text = `${JSON.stringify(data, null, 2)}\n`;
  const paths = linePaths(data);
  return {
    text,
    atPaths: (diagnostics, file) =>
      diagnostics.map((d) => {
        if (d.file !== file) return d;
        const path = d.line !== undefined ? paths[d.line - 1] : undefined;
        const { line: _line, col: _col, ...rest } = d;
        return { ...rest, file: path || '(config)' };
      }),
  };
}
