// `--filter-failing FILE` given promptfoo's results JSON (`promptfoo eval -o results.json`), so a
// team moving over can run promptfoo's failures again: rows matched by their vars, as promptfoo does.
import { canonicalJsonAsWritten } from '../../core/hash.js';
import type { FailingKind, FailingSelection } from '../../engine/filter.js';
import { isRecord } from './context.js';

/** Whether a promptfoo row counts for `kind`: promptfoo's own tests on `success` and `failureReason` (2 = error). */
function promptfooRowIs(row: Record<string, unknown>, kind: FailingKind): boolean {
  if (kind === 'error') return row.failureReason === 2;
  if (row.success !== false) return false;
  return kind === 'any' || row.failureReason !== 2;
}

/** The failing cases of a promptfoo results file (`results.results[]`); undefined for any other file. */
export async function readPromptfooFailures(
  _file: string,
  text: string,
  kind: FailingKind,
): Promise<FailingSelection | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const outer = isRecord(parsed) ? parsed.results : undefined;
  if (!isRecord(outer) || !Array.isArray(outer.results)) return undefined;
  const selection: FailingSelection = { caseIds: new Set(), vars: new Set() };
  for (const r of outer.results) {
    if (isRecord(r) && promptfooRowIs(r, kind)) selection.vars.add(canonicalJsonAsWritten(r.vars ?? {}));
  }
  return selection;
}
