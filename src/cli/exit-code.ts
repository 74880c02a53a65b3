// The exit code of a finished run, and the `--max-errors` budget it is judged against.
import { InputError } from '../core/errors.js';
import { allowedErrors, type ErrorBudget } from '../evaluate/error-budget.js';

/**
 * The exit code of a finished run (see `assay --help`). A suite that sets a pass-rate rule
 * (promptfoo's PROMPTFOO_PASS_RATE_THRESHOLD / PROMPTFOO_FAILED_TEST_EXIT_CODE) decides a
 * complete run by it instead: errors count against the pass rate, and no results at all pass.
 */
export function exitCode(
  status: string,
  counts: { total: number; pass?: number; fail: number; error: number },
  maxErrors: ErrorBudget | undefined,
  rule: { passRatePercent?: number; failedExitCode?: number } = {},
): number {
  if (status !== 'complete') return 3;
  if (rule.passRatePercent !== undefined) {
    const judged = (counts.pass ?? 0) + counts.fail + counts.error;
    const rate = judged === 0 ? Number.NaN : ((counts.pass ?? 0) / judged) * 100;
    return rate < rule.passRatePercent ? (rule.failedExitCode ?? 1) : 0;
  }
  const allowed = allowedErrors(maxErrors, counts.total, 0);
  if (counts.error > allowed) return 3;
  return counts.fail > 0 ? 1 : 0;
}

/** Parses `--max-errors`: a count (`5`) or a percentage of the planned jobs (`2%`). */
export function parseErrorBudget(value: string): ErrorBudget {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(value);
  if (pct && Number(pct[1]) <= 100) return { fraction: Number(pct[1]) / 100 };
  if (/^\d+$/.test(value)) return { count: Number(value) };
  throw new InputError(
    `--max-errors ${value}: expected a count (e.g. 5) or a percentage up to 100% (e.g. 2%)`,
  );
}
