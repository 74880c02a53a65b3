// `--filter-failing`: which cases an earlier run failed or errored on, read from its run directory
// (or from a promptfoo results JSON, so a team moving over can re-run promptfoo's failures).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import {
  canonicalJson,
  checkFilters,
  type FailingSelection,
  hasFilters,
  type SuiteFilters,
} from '../engine/filter.js';
import { readResults } from './reader.js';

/** Where `--filter-failing VALUE` points: a run directory, or a results JSON file. */
export function resolveFailingSource(value: string, runsDir: string): string {
  for (const dir of [join(runsDir, value), resolve(value)]) {
    if (existsSync(join(dir, 'manifest.json'))) return dir;
  }
  const file = resolve(value);
  if (existsSync(file) && statSync(file).isFile()) return file;
  throw new InputError(
    `--filter-failing ${value}: not a run id in ${runsDir}, a run directory, or a results JSON file`,
  );
}

/** The cases that did not pass in an earlier run (the last result of each job counts). */
export async function readFailing(source: string): Promise<FailingSelection> {
  if (existsSync(join(source, 'manifest.json'))) return failingInRun(source);
  return failingInJson(source);
}

async function failingInRun(runDir: string): Promise<FailingSelection> {
  const failing = new Map<string, { caseId: string; vars: string }>();
  for await (const r of readResults(runDir)) {
    if (r.status === 'fail' || r.status === 'error')
      failing.set(r.key, { caseId: r.caseId, vars: canonicalJson(r.vars) });
    else failing.delete(r.key);
  }
  const selection: FailingSelection = { caseIds: new Set(), vars: new Set() };
  for (const f of failing.values()) {
    selection.caseIds.add(f.caseId);
    selection.vars.add(f.vars);
  }
  return selection;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A results JSON: promptfoo's (`results.results[]` with `success`, `vars`) or assay's own
 * (`results[]` with `status`, `caseId`, `vars`). Matched by vars, as promptfoo does, and by case id
 * when the file has them.
 */
function failingInJson(file: string): FailingSelection {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError({
      file,
      message: `--filter-failing: cannot read this results file as JSON: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  const selection: FailingSelection = { caseIds: new Set(), vars: new Set() };
  const outer = isRecord(parsed) ? parsed.results : undefined;
  if (isRecord(outer) && Array.isArray(outer.results)) {
    for (const r of outer.results) {
      if (isRecord(r) && r.success === false) selection.vars.add(canonicalJson(r.vars ?? {}));
    }
    return selection;
  }
  if (Array.isArray(outer)) {
    for (const r of outer) {
      if (!isRecord(r) || (r.status !== 'fail' && r.status !== 'error')) continue;
      if (typeof r.caseId === 'string') selection.caseIds.add(r.caseId);
      selection.vars.add(canonicalJson(r.vars ?? {}));
    }
    return selection;
  }
  throw new InputError({
    file,
    message:
      '--filter-failing: not a results file; expected promptfoo output (results.results[]) or assay -o JSON (results[])',
    severity: 'error',
  });
}

/**
 * Checks the filters (exit 2 on a bad pattern) and pins what a later resume compares: the
 * `--filter-failing` source as an absolute path. Undefined when no filter is set.
 */
export function pinFilters(
  filters: SuiteFilters | undefined,
  runsDir: string | undefined,
): SuiteFilters | undefined {
  if (!filters || !hasFilters(filters)) return undefined;
  checkFilters(filters);
  if (filters.failing === undefined) return filters;
  return { ...filters, failing: resolveFailingSource(filters.failing, resolve(runsDir ?? '.assay/runs')) };
}
