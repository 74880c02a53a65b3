// Typed views of data a format keeps in loosely typed places — the facts a suite records for its
// native outputs (Suite.native, kept in the run manifest) and an assertion's scorer options
// (AssertionSpec.options). The format declares the type and a reader that checks the data's shape;
// code reads the data only through the reader, never by casting it (inspect_ai reads a sample's
// metadata the same way, through `Sample.metadata_as(model)`).

import { isRecord } from './records.js';

/** A check of one value's shape. */
export type Check = (value: unknown) => boolean;

/** Checks for the shapes JSON data takes. */
export const is = {
  string: ((v) => typeof v === 'string') as Check,
  number: ((v) => typeof v === 'number') as Check,
  boolean: ((v) => typeof v === 'boolean') as Check,
  /** Any value at all (present or not). */
  any: (() => true) as Check,
  literal:
    (...values: unknown[]): Check =>
    (v) =>
      values.includes(v),
  optional:
    (check: Check): Check =>
    (v) =>
      v === undefined || check(v),
  nullable:
    (check: Check): Check =>
    (v) =>
      v === null || check(v),
  arrayOf:
    (check: Check): Check =>
    (v) =>
      Array.isArray(v) && v.every(check),
  recordOf:
    (check: Check): Check =>
    (v) =>
      isRecord(v) && Object.values(v).every(check),
  shape:
    (fields: Record<string, Check>): Check =>
    (v) =>
      isRecord(v) && Object.entries(fields).every(([k, check]) => check(v[k])),
};

/** A format's typed view of loosely typed data. */
export interface View<T> {
  /** What the data is, for messages (e.g. "apastra's suite facts"). */
  readonly what: string;
  /** What is wrong with a value as this data (the first field that does not fit), or undefined. */
  problem(value: unknown): string | undefined;
  /** The value, typed; throws a ViewError saying what does not fit. */
  read(value: unknown): T;
  /** The value, typed, when it has this shape; undefined when it is absent or of another shape. */
  maybe(value: unknown): T | undefined;
}

/** Data read through a view that does not have its shape. */
export class ViewError extends Error {}

/** A view of objects with these fields (each checked; fields not listed are let through). */
export function view<T extends object>(what: string, fields: Record<string, Check>): View<T> {
  const problem = (value: unknown): string | undefined => {
    if (!isRecord(value)) return `${what}: not an object`;
    for (const [k, check] of Object.entries(fields))
      if (!check(value[k]))
        return `${what}: ${k} is ${JSON.stringify(value[k]) ?? 'absent'}, not of its type`;
    return undefined;
  };
  return {
    what,
    problem,
    read(value: unknown): T {
      const p = problem(value);
      if (p !== undefined) throw new ViewError(p);
      // Checked above, field by field: this is the one place the data is given its type.
      return value as T;
    },
    maybe(value: unknown): T | undefined {
      return value !== undefined && problem(value) === undefined ? (value as T) : undefined;
    },
  };
}
