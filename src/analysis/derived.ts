// Named scores per prompt × provider column, and the metrics derived from them after each result
// (promptfoo's `derivedMetrics`, spec §6.2–6.3). Used by the scorecard and by the promptfoo JSON
// output so both report the same figures.
import { type Expr, evaluateExpression, parseExpression } from '../core/expression.js';
import type { DerivedMetricSpec, JobResult, Verdict } from '../core/types.js';

/** A derived metric's value for one column. */
export interface DerivedValue {
  name: string;
  value: number;
}

/** The name `__count` (results so far in the column) in derived-metric expressions. */
export const COUNT_NAME = '__count';

/**
 * One column's named scores as promptfoo totals them: for each metric, the sum over results of
 * (result value × the weight behind it), the number of assertions carrying it and the total weight;
 * derived metrics are re-evaluated after every result, in order, each seeing the ones before it.
 */
export class ColumnNamedScores {
  /** Totals by metric name, derived metrics included (as promptfoo stores them). */
  readonly namedScores: Record<string, number> = {};
  readonly namedScoresCount: Record<string, number> = {};
  readonly namedScoreWeights: Record<string, number> = {};
  private results = 0;
  private readonly derived: { name: string; expr: Expr | undefined }[];

  constructor(specs: readonly DerivedMetricSpec[] = []) {
    this.derived = specs.map((s) => ({ name: s.name, expr: parseOrUndefined(s.expression) }));
  }

  /** Adds one result's named scores, then updates the derived metrics. */
  add(r: Pick<JobResult, 'namedScores' | 'namedScoreWeights'> & { verdicts?: Verdict[] }): void {
    this.results++;
    for (const [name, value] of Object.entries(r.namedScores ?? {})) {
      const weight = r.namedScoreWeights?.[name];
      const count = contributingAssertions(r.verdicts ?? [], name);
      // A result written before weights were recorded counts its value once, as promptfoo's old totals.
      const total = weight === undefined ? value : value * weight;
      this.namedScores[name] = (this.namedScores[name] ?? 0) + total;
      this.namedScoresCount[name] = (this.namedScoresCount[name] ?? 0) + count;
      this.namedScoreWeights[name] = (this.namedScoreWeights[name] ?? 0) + (weight ?? count);
    }
    if (this.derived.length > 0) this.derive();
  }

  private derive(): void {
    const scope: Record<string, number> = { ...this.namedScores, [COUNT_NAME]: this.results };
    for (const { name, expr } of this.derived) {
      this.namedScores[name] ??= 0;
      if (!expr) continue;
      try {
        const value = evaluateExpression(expr, scope);
        this.namedScores[name] = value;
        scope[name] = value;
      } catch {
        // As promptfoo: a metric that cannot be computed yet (a name no result has reported so
        // far) keeps its previous value.
      }
    }
  }

  /** The derived metrics' current values, in spec order. */
  derivedValues(): DerivedValue[] {
    return this.derived.map(({ name }) => ({ name, value: this.namedScores[name] ?? 0 }));
  }
}

/**
 * How many assertions of a result carry a metric, as promptfoo counts its component results: the
 * members of a group (assert-set) count, the group itself does not (promptfoo's set result names
 * no assertion); a metric no assertion carries (a script's own named score) counts once.
 */
export function contributingAssertions(verdicts: Verdict[], metric: string): number {
  let count = 0;
  const visit = (list: Verdict[]): void => {
    for (const v of list) {
      if (v.skipped) continue;
      if (v.children) visit(v.children);
      else if (v.metric === metric) count++;
    }
  };
  visit(verdicts);
  return count || 1;
}

/** An expression that does not parse was refused at load; one reaching here (a hand-edited manifest) stays 0. */
function parseOrUndefined(text: string): Expr | undefined {
  try {
    return parseExpression(text);
  } catch {
    return undefined;
  }
}
