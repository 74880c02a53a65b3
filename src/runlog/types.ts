import type { Counts } from '../core/scorecard.js';
import type { NativeFacts, SuiteFilters, SuiteScoring } from '../core/types.js';

/** The part of a suite a run covers, as the command line chose it. */
export interface Selection {
  filters?: SuiteFilters;
  /** `--var` values (applied when the suite loaded). */
  vars?: Record<string, string>;
}

export type RunStatus = 'running' | 'complete' | 'aborted' | 'interrupted';

/** manifest.json: what was run, with what, when, and how it ended. No secrets. */
export interface RunManifest {
  /** The run-log version (runlog/version.ts); absent in runs written before versions (0). */
  schemaVersion?: number;
  runId: string;
  assayVersion: string;
  status: RunStatus;
  /** Why the run stopped early (aborted/interrupted). */
  stopReason?: string;
  suite: {
    id: string;
    name: string;
    format: string;
    path: string;
    contentHash: string;
    nativeHash?: string;
    files: string[];
    /** Files read from outside the suite's folder (each also a load warning). */
    outsideFiles?: string[];
    cases: number;
    /**
     * The prompts run (`raw`: the template, `config`: its provider parameters, for outputs that show
     * them; `threadVar`: the var the engine added the thread's earlier turns under, PromptTemplate.threadVar).
     */
    prompts: {
      id: string;
      label: string;
      raw?: string;
      config?: Record<string, unknown>;
      threadVar?: string;
    }[];
    /** How results are summarised (breakdowns, weighted score): analysis recomputes scorecards from it. */
    scoring?: SuiteScoring;
    /** Format-specific facts for native outputs (Suite.native). */
    native?: NativeFacts;
  };
  providers: Record<string, unknown>[];
  options: {
    repeat: number;
    /** `--pass-at`: the k of pass@k and pass^k the scorecard gives for repeated cases (besides 1 and the trials). */
    passAt?: number[];
    maxConcurrency: number;
    shard?: { index: number; count: number };
    /** What narrowed the suite (`--filter-*`, `--var`): a resume must ask for the same. */
    selection?: Selection;
    /** `--delay`: milliseconds each worker waits after a provider call. */
    delayMs?: number;
    /** A job not finished after this many milliseconds was made an error. */
    jobTimeoutMs?: number;
    /** Past this many milliseconds from the start, jobs not finished were made errors. */
    maxRunMs?: number;
  };
  plannedJobs: number;
  /**
   * The grader of the model-graded assertions that name none of their own, and why it is that one
   * (`--grader`, the suite's default, or — for promptfoo — the keys in the environment).
   */
  grader?: { id: string; embedding?: string; reason: string };
  command: string[];
  cwd: string;
  startedAt: string;
  /** When the run was resumed (each `--resume`). */
  resumedAt?: string[];
  /** Set on a run made by `assay merge`: the runs it combines. */
  mergedFrom?: string[];
  /**
   * Set on a run made by `assay rescore`: the run whose recorded generations it scored again, how
   * many results that run held, and how many of them no job of the suite asked for.
   */
  rescoredFrom?: {
    runId: string;
    dir: string;
    results: number;
    unmatched: number;
    /** The source run's status when it did not complete (the re-score inherits it). */
    status?: RunStatus;
    /** Jobs of the suite's plan the source run never recorded (never run: left out of the re-score). */
    notRecorded?: number;
  };
  /**
   * The `-o` files the run was asked for and that are not yet written: set when the run ends, and
   * removed once every one of them is written. A run killed while writing them says so here.
   */
  outputsPending?: string[];
  endedAt?: string;
  counts?: Counts;
}
