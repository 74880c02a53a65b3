import type { PyValue } from '../../core/python/json-loads.js';
import { is, view } from '../../core/view.js';

// What the apastra loader records in the run manifest (`suite.native`) for the native run folder,
// the thresholds and the regression gate.

/** The facts of an apastra suite or quick eval that its run artifacts need. */
export interface ApastraNative {
  kind: 'suite' | 'eval';
  /** The workspace root (the folder holding promptops/). */
  root: string;
  suiteId: string;
  promptId?: string;
  /** Minimum per metric (a quick eval: `pass_rate`). */
  thresholds: Record<string, number>;
  /** `metric_versions` of the evaluators, by metric. */
  metricVersions: Record<string, string>;
  modelMatrix: string[];
  inputRefs: Record<string, string>;
  digests: { prompt_digest: string; dataset_digest: string; evaluator_digest: string };
  evaluatorRefs: string[];
  /** `budgets.cost_budget` (or `budgets.cost`), USD. */
  costBudget?: number;
  trials?: number;
}

/** The checked view of an apastra suite's facts as the run manifest keeps them (`suite.native`). */
export const apastraNative = view<ApastraNative>("an apastra suite's facts (manifest suite.native)", {
  kind: is.literal('suite', 'eval'),
  root: is.string,
  suiteId: is.string,
  promptId: is.optional(is.string),
  thresholds: is.recordOf(is.number),
  metricVersions: is.recordOf(is.string),
  modelMatrix: is.arrayOf(is.string),
  inputRefs: is.recordOf(is.string),
  digests: is.shape({ prompt_digest: is.string, dataset_digest: is.string, evaluator_digest: is.string }),
  evaluatorRefs: is.arrayOf(is.string),
  costBudget: is.optional(is.number),
  trials: is.optional(is.number),
});

/** One case of one model, as its trials come in. */
export interface CaseEntry {
  caseId: string;
  trials: Map<string, PyValue>[];
  outputs: Map<string, PyValue>[];
  keys: string[];
  passed: number;
  total: number;
  asserts: { passed: number; total: number };
  errors: string[];
  metricValues: Map<string, number[]>;
}

/** What the writer gathered of one model's results. */
export interface ModelRun {
  model: string;
  cases: CaseEntry[];
  jobs: { total: number; pass: number; error: number };
  cost: number;
  hasCost: boolean;
}
