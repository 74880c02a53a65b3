// `--filter-failing`, `--filter-failing-only`, `--filter-errors-only`: which cases an earlier run
// failed or errored on, read from its run directory (or from a promptfoo results JSON, so a team
// moving over can re-run promptfoo's failures).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { canonicalJsonAsWritten } from '../core/hash.js';
import { isRecord } from '../core/records.js';
import { checkFilters, type FailingSelection, hasFilters, type SuiteFilters } from '../engine/filter.js';
import { readResults } from './reader.js';

/** Which results of the earlier run select their cases: failures and errors, failures only, errors only. */
export type FailingKind = 'any' | 'fail' | 'error';

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
export async function readFailing(source: string, kind: FailingKind = 'any'): Promise<FailingSelection> {
  if (existsSync(join(source, 'manifest.json'))) return failingInRun(source, kind);
  return failingInJson(source, kind);
}

/**
 * The selection the filters ask for, with promptfoo's precedence: `--filter-failing-only` and
 * `--filter-errors-only` together select both; otherwise `--filter-failing` wins over either.
 */
export async function readSelectedFailures(
  filters: SuiteFilters | undefined,
): Promise<FailingSelection | undefined> {
  if (!filters) return undefined;
  if (filters.failingOnly !== undefined && filters.errorsOnly !== undefined) {
    const a = await readFailing(filters.failingOnly, 'fail');
    const b = await readFailing(filters.errorsOnly, 'error');
    return { caseIds: new Set([...a.caseIds, ...b.caseIds]), vars: new Set([...a.vars, ...b.vars]) };
  }
  if (filters.failing !== undefined) return readFailing(filters.failing, 'any');
  if (filters.failingOnly !== undefined) return readFailing(filters.failingOnly, 'fail');
  if (filters.errorsOnly !== undefined) return readFailing(filters.errorsOnly, 'error');
  return undefined;
}

/** Whether a run-log status counts for `kind` (a skipped case neither failed nor errored). */
function statusIs(status: unknown, kind: FailingKind): boolean {
  if (kind === 'fail') return status === 'fail';
  if (kind === 'error') return status === 'error';
  return status === 'fail' || status === 'error';
}

/** Whether a promptfoo row counts for `kind`: promptfoo's own tests on `success` and `failureReason` (2 = error). */
function promptfooRowIs(row: Record<string, unknown>, kind: FailingKind): boolean {
  if (kind === 'error') return row.failureReason === 2;
  if (row.success !== false) return false;
  return kind === 'any' || row.failureReason !== 2;
}

async function failingInRun(runDir: string, kind: FailingKind): Promise<FailingSelection> {
  const failing = new Map<string, { caseId: string; vars: string }>();
  for await (const r of readResults(runDir)) {
    if (statusIs(r.status, kind))
      failing.set(r.key, { caseId: r.caseId, vars: canonicalJsonAsWritten(r.vars) });
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
 * A results JSON: promptfoo's (`results.results[]` with `success`, `vars`) or assay's own
 * (`results[]` with `status`, `caseId`, `vars`). Matched by vars, as promptfoo does, and by case id
 * when the file has them.
 */
function failingInJson(file: string, kind: FailingKind): FailingSelection {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError({
      file,
      message: `${FLAG[kind]}: cannot read this results file as JSON: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  const selection: FailingSelection = { caseIds: new Set(), vars: new Set() };
  const outer = isRecord(parsed) ? parsed.results : undefined;
  if (isRecord(outer) && Array.isArray(outer.results)) {
    for (const r of outer.results) {
      if (isRecord(r) && promptfooRowIs(r, kind)) selection.vars.add(canonicalJsonAsWritten(r.vars ?? {}));
    }
    return selection;
  }
  if (Array.isArray(outer)) {
    for (const r of outer) {
      if (!isRecord(r) || !statusIs(r.status, kind)) continue;
      if (typeof r.caseId === 'string') selection.caseIds.add(r.caseId);
      selection.vars.add(canonicalJsonAsWritten(r.vars ?? {}));
    }
    return selection;
  }
  throw new InputError({
    file,
    message: `${FLAG[kind]}: not a results file; expected promptfoo output (results.results[]) or assay -o JSON (results[])`,
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
