// The error budget (`--max-errors`): how many error results a run tolerates.

/** How many error results a run tolerates: a count, or a fraction of the planned jobs. */
export interface ErrorBudget {
  count?: number;
  fraction?: number;
}

/** The errors a budget allows out of `total` jobs; `unset` when it gives no count. */
export function allowedErrors(budget: ErrorBudget | undefined, total: number, unset: number): number {
  if (budget?.fraction !== undefined) return Math.floor(budget.fraction * total);
  return budget?.count ?? unset;
}
