// `--filter-failing`, `--filter-failing-only`, `--filter-errors-only`: which cases an earlier run
// failed or errored on, read from its run directory, from assay's own `-o` JSON, or from a results
// file of a format's own tool (promptfoo's results JSON), read by the readers the caller passes
// (the formats' `failures` hooks).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { canonicalJsonAsWritten } from '../core/hash.js';
import { isRecord } from '../core/records.js';
import type { SuiteFilters } from '../core/types.js';
import {
  checkFilters,
  type FailingKind,
  type FailingSelection,
  type FailuresReader,
  hasFilters,
} from '../engine/filter.js';
import { readResults } from './reader.js';

export type { FailingKind } from '../engine/filter.js';

const FLAG: Record<FailingKind, string> = {
  any: '--filter-failing',
  fail: '--filter-failing-only',
  error: '--filter-errors-only',
};

/** Where `--filter-failing VALUE` (or its `-only` forms) points: a run directory, or a results JSON file. */
export function resolveFailingSource(value: string, runsDir: string, kind: FailingKind = 'any'): string {
  for (const dir of [join(runsDir, value), resolve(value)]) {
    if (existsSync(join(dir, 'manifest.json'))) return dir;
  }
  const file = resolve(value);
  if (existsSync(file) && statSync(file).isFile()) return file;
  throw new InputError(
    `${FLAG[kind]} ${value}: not a run id in ${runsDir}, a run directory, or a results JSON file`,
  );
}

/**
 * The cases of an earlier run whose results are of `kind` (the last result of each job counts):
 * `any` failed or errored, `fail` failed an assertion, `error` errored.
 */
export async function readFailing(
  source: string,
  kind: FailingKind = 'any',
  readers: FailuresReader[] = [],
): Promise<FailingSelection> {
  if (existsSync(join(source, 'manifest.json'))) return failingInRun(source, kind);
  return failingInFile(source, kind, readers);
}

/**
 * The selection the filters ask for, with promptfoo's precedence: `--filter-failing-only` and
 * `--filter-errors-only` together select both; otherwise `--filter-failing` wins over either.
 */
export async function readSelectedFailures(
  filters: SuiteFilters | undefined,
  readers: FailuresReader[] = [],
): Promise<FailingSelection | undefined> {
  if (!filters) return undefined;
  if (filters.failingOnly !== undefined && filters.errorsOnly !== undefined) {
    const a = await readFailing(filters.failingOnly, 'fail', readers);
    const b = await readFailing(filters.errorsOnly, 'error', readers);
    return { caseIds: new Set([...a.caseIds, ...b.caseIds]), vars: new Set([...a.vars, ...b.vars]) };
  }
  if (filters.failing !== undefined) return readFailing(filters.failing, 'any', readers);
  if (filters.failingOnly !== undefined) return readFailing(filters.failingOnly, 'fail', readers);
  if (filters.errorsOnly !== undefined) return readFailing(filters.errorsOnly, 'error', readers);
  return undefined;
}

/** Whether a run-log status counts for `kind` (a skipped case neither failed nor errored). */
function statusIs(status: unknown, kind: FailingKind): boolean {
  if (kind === 'fail') return status === 'fail';
  if (kind === 'error') return status === 'error';
  return status === 'fail' || status === 'error';
}

async function failingInRun(runDir: string, kind: FailingKind): Promise<FailingSelection> {
  const failing = new Map<string, { caseId: string; vars: string }>();
  for await (const r of readResults(runDir)) {
    if (statusIs(r.status, kind))
      failing.set(r.key, { caseId: r.caseId, vars: canonicalJsonAsWritten(r.case.vars) });
    else failing.delete(r.key);
  }
  const selection: FailingSelection = { caseIds: new Set(), vars: new Set() };
  for (const f of failing.values()) {
    selection.caseIds.add(f.caseId);
    selection.vars.add(f.vars);
  }
  return selection;
}

/**
 * A results file: one a reader recognises (promptfoo's `results.results[]`, by its vars), else
 * assay's own `-o` JSON (`results[]` with `status`, `caseId`, `case.vars`, or `vars` in a
 * file written before run-log version 2), matched by vars, as promptfoo
 * does, and by case id.
 */
async function failingInFile(
  file: string,
  kind: FailingKind,
  readers: FailuresReader[],
): Promise<FailingSelection> {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Said below, as a file that cannot be read as JSON.
  }
  if (text !== undefined)
    for (const reader of readers) {
      const found = await reader.read(file, text, kind);
      if (found) return found;
    }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError({
      file,
      message: `${FLAG[kind]}: cannot read this results file as JSON: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  const selection: FailingSelection = { caseIds: new Set(), vars: new Set() };
  const outer = isRecord(parsed) ? parsed.results : undefined;
  if (Array.isArray(outer)) {
    for (const r of outer) {
      if (!isRecord(r) || !statusIs(r.status, kind)) continue;
      if (typeof r.caseId === 'string') selection.caseIds.add(r.caseId);
      // A row's vars: under `case` since run-log version 2, beside the status before it.
      const vars = isRecord(r.case) && 'vars' in r.case ? r.case.vars : r.vars;
      selection.vars.add(canonicalJsonAsWritten(vars ?? {}));
    }
    return selection;
  }
  const expected = [...readers.map((r) => r.describes), 'assay -o JSON (results[])'].join(' or ');
  throw new InputError({
    file,
    message: `${FLAG[kind]}: not a results file; expected ${expected}`,
    severity: 'error',
  });
}

/**
 * Checks the filters (exit 2 on a bad pattern) and pins what a later resume compares: the earlier
 * runs the failure filters read, as absolute paths. Undefined when no filter is set.
 */
export function pinFilters(
  filters: SuiteFilters | undefined,
  runsDir: string | undefined,
): SuiteFilters | undefined {
  if (!filters || !hasFilters(filters)) return undefined;
  checkFilters(filters);
  const root = resolve(runsDir ?? '.assay/runs');
  const pinned = { ...filters };
  if (pinned.failing !== undefined) pinned.failing = resolveFailingSource(pinned.failing, root, 'any');
  if (pinned.failingOnly !== undefined)
    pinned.failingOnly = resolveFailingSource(pinned.failingOnly, root, 'fail');
  if (pinned.errorsOnly !== undefined)
    pinned.errorsOnly = resolveFailingSource(pinned.errorsOnly, root, 'error');
  return pinned;
}
