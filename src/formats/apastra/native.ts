import type { PyValue } from '../../core/python/json-loads.js';

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
