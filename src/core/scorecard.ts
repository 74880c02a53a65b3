/** Aggregate figures for a set of job results, computed by analysis/ from a run log. */
export interface Counts {
  total: number;
  pass: number;
  fail: number;
  error: number;
  skip: number;
}

/**
 * A proportion or mean with its 95% interval: Wilson's for a pass rate and Student's t for a mean
 * score, over `n` judged jobs; or, when cases were repeated (`clustered`), an interval clustered
 * on the case, and `n` counts cases, not trials.
 */
export interface Rate {
  value: number;
  low: number;
  high: number;
  n: number;
  clustered?: boolean;
}

/** Means over the streamed answers: time to first token, and tokens per second where known. */
export interface StreamSummary {
  /** How many answers were streamed (cached and unstreamed ones are not counted). */
  answers: number;
  firstTokenMsMean: number;
  tokensPerSecondMean?: number;
}

export interface ScorecardCell extends Counts {
  promptId: string;
  promptLabel: string;
  providerId: string;
  /** Pass rate over pass + fail + error (errors count against, as in promptfoo). */
  passRate: Rate;
  meanScore: number;
  latencyMsMean: number;
  /** Streamed answers only (a provider's `stream: true`): mean time to first token, and tokens per second. */
  stream?: StreamSummary;
  tokens: number;
  cost: number;
  /** The suite's derived metrics (SuiteScoring.derivedMetrics) for this column, in order. */
  derivedMetrics?: { name: string; value: number }[];
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
  caseRef?: string;
  description?: string;
  /** The case's vars (long texts cut), so a report can name the case (report/naming.ts). */
  vars?: Record<string, unknown>;
  /** Where the case is written (an annotation's file and line). */
  source?: { file: string; line?: number };
  promptLabel: string;
  providerId: string;
  trial: number;
  status: 'fail' | 'error';
  /** The failing assertion type (or `error`) and its reason. */
  assertion?: string;
  reason: string;
  /** The start of the output (report/console.ts shows a one-line excerpt); absent when there was none. */
  output?: string;
}

/** One value of a breakdown key (e.g. category = math). */
export interface GroupSummary extends Counts {
  value: string;
  /** Pass rate over the group's non-skipped jobs, with its Wilson interval. */
  passRate: Rate;
  /** Mean job score with a 95% t interval. */
  meanScore: Rate;
  /** Each named score summed over the group's results (absent when none has one). */
  namedTotals?: Record<string, number>;
}

/** Results broken down by one case metadata key. */
export interface Breakdown {
  by: string;
  groups: GroupSummary[];
}

/** A weighted aggregate of group mean scores (see WeightedScoreSpec), in [0, 1] with a 95% interval. */
export interface WeightedScore {
  name: string;
  groupBy: string;
  /** Multiply by this for display (100 for a score out of 100). */
  scale: number;
  score: Rate;
  /** The scaled total as a rounding tool computes it (WeightedScoreSpec.roundGroup/roundTotal). */
  rounded?: number;
  groups: WeightedGroup[];
  /** Groups the spec weighs that have no scored result (not run, or every result left out). */
  notRun: { value: string; weight: number }[];
}

/** One group of a weighted score. `total` counts the results in its mean. */
export interface WeightedGroup {
  value: string;
  weight: number;
  meanScore: Rate;
  pass: number;
  total: number;
  /** Errors among `total` (scored as the suite says: 0, or their error text's score). */
  error: number;
  /** Errors with no score left out of the mean (WeightedScoreSpec.unscoredErrors = exclude). */
  unscored: number;
  skip: number;
  /** The scaled mean rounded as the spec says (WeightedScoreSpec.roundGroup). */
  rounded?: number;
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
  /** Tokens and cost of the graders' calls (model-graded assertions), apart from `tokens` and `cost`. */
  gradingTokens: number;
  gradingCost: number;
  latencyMsMean: number;
  /** Over every streamed answer of the run. */
  stream?: StreamSummary;
  cached: number;
  /** Breakdowns by case metadata keys (SuiteScoring.breakdowns). */
  breakdowns?: Breakdown[];
  weightedScore?: WeightedScore;
  /** When cases were repeated (`--repeat`): pass@k, pass^k and flakiness, per case then averaged. */
  repeats?: RepeatSummary;
}

/** What repeating the cases showed. A case is a case × prompt × provider; its trials are reduced first. */
export interface RepeatSummary {
  /** The most trials any case had. */
  trials: number;
  /** Cases with at least one judged trial. */
  cases: number;
  /** Cases whose trials disagree (some passed, some did not; errors count as not passing). */
  flaky: number;
  /** pass@k and pass^k (unbiased estimators, Chen et al. 2021), averaged over the cases with ≥ k judged trials. */
  atK: { k: number; passAtK: number; passHatK: number; cases: number }[];
  /** k asked for (`--pass-at`) that no case has that many judged trials for: not shown, and said. */
  atKDropped?: number[];
  /** The flakiest cases (pass share nearest one half), at most 10. */
  flakiest: {
    caseId: string;
    caseRef?: string;
    description?: string;
    vars?: Record<string, unknown>;
    promptLabel: string;
    providerId: string;
    passed: number;
    trials: number;
  }[];
}
