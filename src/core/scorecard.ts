/** Aggregate figures for a set of job results, computed by analysis/ from a run log. */
export interface Counts {
  total: number;
  pass: number;
  fail: number;
  error: number;
  skip: number;
}

/** A proportion with its 95% Wilson score interval. */
export interface Rate {
  value: number;
  low: number;
  high: number;
  n: number;
}

export interface ScorecardCell extends Counts {
  promptId: string;
  promptLabel: string;
  providerId: string;
  /** Pass rate over pass + fail + error (errors count against, as in promptfoo). */
  passRate: Rate;
  meanScore: number;
  latencyMsMean: number;
  tokens: number;
  cost: number;
}

export interface MetricSummary {
  name: string;
  mean: number;
  count: number;
}

/** One failing or erroring job, kept for the console summary (bounded list). */
export interface FailureNote {
  key: string;
  caseId: string;
  description?: string;
  promptLabel: string;
  providerId: string;
  trial: number;
  status: 'fail' | 'error';
  /** The failing assertion type (or `error`) and its reason. */
  assertion?: string;
  reason: string;
}

export interface Scorecard {
  counts: Counts;
  passRate: Rate;
  meanScore: number;
  cells: ScorecardCell[];
  metrics: MetricSummary[];
  failures: FailureNote[];
  /** How many failures exist beyond the ones listed. */
  failuresOmitted: number;
  tokens: number;
  cost: number;
  latencyMsMean: number;
  cached: number;
}
