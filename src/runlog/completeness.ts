// Whether a run is the whole of what it planned: what a gate must know before it calls anything
// `unchanged`, `improved` or PASS. A run is whole when its manifest says `complete`, it is not one
// shard of a suite, and its log holds every planned job (a log cut short is not complete, whatever
// its manifest says).
import { readManifest, readResults } from './reader.js';
import type { RunManifest } from './types.js';

export interface Completeness {
  runId: string;
  status: RunManifest['status'];
  /** The jobs the run planned. */
  planned: number;
  /** Distinct jobs its log holds. */
  recorded: number;
  /**
   * Planned jobs with no result: planned − recorded, plus, for a re-score of a run that did not
   * complete, the jobs of the suite that run never reached.
   */
  missing: number;
  /** Set on one shard of a sharded run (`--shard i/n`): the other shards' jobs are not in it. */
  shard?: { index: number; count: number };
  complete: boolean;
}

/** Reads a run's completeness from its manifest and log (exit 2 on a damaged one). */
export async function runCompleteness(runDir: string): Promise<Completeness> {
  const manifest = readManifest(runDir);
  const keys = new Set<string>();
  for await (const r of readResults(runDir)) keys.add(r.key);
  const notReached = manifest.rescoredFrom?.notRecorded ?? 0;
  const missing = Math.max(0, manifest.plannedJobs - keys.size) + notReached;
  const shard = manifest.options.shard;
  return {
    runId: manifest.runId,
    status: manifest.status,
    planned: manifest.plannedJobs + notReached,
    recorded: keys.size,
    missing,
    ...(shard ? { shard } : {}),
    complete: manifest.status === 'complete' && !shard && missing === 0,
  };
}

/** One line saying how whole a run is: `candidate RUN is interrupted: 16 of 20 planned jobs missing`. */
export function describeCompleteness(side: string, c: Completeness): string {
  return `${side} ${c.runId} is ${completenessText(c)}`;
}

/** How whole a run is, after "is": `interrupted: 16 of 20 planned jobs missing`. */
export function completenessText(c: Completeness): string {
  const missing = `${c.missing} of ${c.planned} planned job${c.planned === 1 ? '' : 's'} missing`;
  if (c.shard)
    return `shard ${c.shard.index + 1}/${c.shard.count} of its suite (${c.status}; the other shards' jobs are not in it; ${missing})`;
  if (c.complete) return `complete (0 of ${c.planned} planned jobs missing)`;
  const status = c.status === 'complete' ? 'marked complete but its log is short' : c.status;
  return `${status}: ${missing}`;
}
