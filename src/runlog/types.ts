import type { Counts } from '../core/scorecard.js';

export type RunStatus = 'running' | 'complete' | 'aborted' | 'interrupted';

/** manifest.json: what was run, with what, when, and how it ended. No secrets. */
export interface RunManifest {
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
    cases: number;
    prompts: { id: string; label: string }[];
  };
  providers: Record<string, unknown>[];
  options: { repeat: number; maxConcurrency: number };
  plannedJobs: number;
  command: string[];
  cwd: string;
  startedAt: string;
  endedAt?: string;
  counts?: Counts;
}
