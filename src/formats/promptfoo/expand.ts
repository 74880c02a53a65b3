// promptfoo's cartesian var expansion (spec §2.2): a var holding a list of strings (more exactly,
// a list whose first element is a string) runs once per element; a `file://` glob runs once per
// matching file. The first var varies slowest.
import type { Case } from '../../core/types.js';
import { errorAt, type LoadContext } from './context.js';
import { globFiles, isGlobPattern } from './glob.js';
import type { VarLocator } from './var-files.js';

function valuesOf(ctx: LoadContext, name: string, value: unknown, at: VarLocator): unknown[] {
  if (typeof value === 'string' && value.startsWith('file://')) {
    const path = value.slice('file://'.length);
    // A plain path is one value; if the file is missing, loading it says so.
    if (!isGlobPattern(path)) return [value];
    const matches = globFiles(path, ctx.files.basePath);
    if (matches.length > 0) return matches.map((m) => `file://${ctx.files.relative(m)}`);
    errorAt(ctx, at(name, []), `No files found for variable ${name}: ${value}`);
    return [];
  }
  if (Array.isArray(value) && typeof value[0] === 'string') return value;
  return [value];
}

/** Expands one case into one case per combination of its list-valued vars. */
export function expandVars(
  ctx: LoadContext,
  c: Omit<Case, 'id'>,
  disabled: boolean,
  at: VarLocator,
): Omit<Case, 'id'>[] {
  if (disabled) return [c];
  const names = Object.keys(c.vars);
  const valueLists = names.map((name) => valuesOf(ctx, name, c.vars[name], at));
  // Nothing expands (each var is its one value, the common case): the merged vars are the case's
  // own already, and the same keys and values a rebuilt copy would hold.
  if (valueLists.every((values, i) => values.length === 1 && values[0] === c.vars[names[i]])) return [c];
  let combos: Record<string, unknown>[] = [{}];
  for (const [i, name] of names.entries()) {
    const values = valueLists[i];
    const next: Record<string, unknown>[] = [];
    for (const combo of combos) for (const v of values) next.push({ ...combo, [name]: v });
    combos = next;
  }
  // The merged case is this expansion's own: set in place, as a spread copy gets a hidden class of
  // its own in V8 (~300 bytes per case at 100k cases).
  if (combos.length === 1) {
    c.vars = combos[0];
    return [c];
  }
  return combos.map((vars) => ({ ...c, vars }));
}
