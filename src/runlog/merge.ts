import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Scorecard } from '../core/scorecard.js';
import { ensureDir } from './dirs.js';
import { alive } from './lock.js';
import { readManifest, readResults } from './reader.js';
import { isRegularFile, writeTemporary } from './temporary.js';
import { testPause } from './test-pause.js';
import type { RunManifest } from './types.js';
import { RUNLOG_VERSION } from './version.js';
import { newRunId, RunWriter } from './writer.js';

export interface MergeResult {
  runDir: string;
  manifest: RunManifest;
  scorecard: Scorecard;
}

/**
 * Combines the runs of one sharded evaluation into a single run with one scorecard. Refuses runs of
 * different suites or settings, overlapping shards, and a job present twice: a merged run must be
 * the run that one machine would have made.
 */
export async function mergeRuns(
  runDirs: string[],
  runsDir: string,
  /** The `-o` files the caller writes after the merge: pending in the manifest until written. */
  outputs: string[],
  /**
   * The scorecard of the merged run directory, computed from its log (analysis' scorecardOfRun, by
   * the same code as any run's): passed in, as the run log comes before the analysis of it.
   */
  scorecardOf: (runDir: string) => Promise<Scorecard>,
): Promise<MergeResult> {
  if (runDirs.length === 0) throw new InputError('assay merge needs at least one run directory');
  const manifests = runDirs.map((dir) => {
    try {
      return { dir: resolve(dir), manifest: readManifest(dir) };
    } catch {
      throw new InputError({
        file: dir,
        message: 'not a run directory (no readable manifest.json)',
        severity: 'error',
      });
    }
  });
  const first = manifests[0].manifest;
  const problems: { file: string; message: string; severity: 'error' }[] = [];
  const seenShards = new Set<number>();
  for (const { dir, manifest } of manifests) {
    const refuse = (message: string): void => {
      problems.push({ file: dir, message, severity: 'error' });
    };
    if (manifest.suite.contentHash !== first.suite.contentHash)
      refuse(
        `a different suite (content hash ${manifest.suite.contentHash.slice(0, 12)}, not ${first.suite.contentHash.slice(0, 12)})`,
      );
    if (manifest.options.repeat !== first.options.repeat)
      refuse(`a different --repeat (${manifest.options.repeat}, not ${first.options.repeat})`);
    if (JSON.stringify(manifest.providers) !== JSON.stringify(first.providers))
      refuse('different providers or provider settings');
    const shard = manifest.options.shard;
    if ((shard?.count ?? 1) !== (first.options.shard?.count ?? 1))
      refuse(`a different shard count (${shard?.count ?? 1}, not ${first.options.shard?.count ?? 1})`);
    const index = shard?.index ?? 0;
    if (seenShards.has(index)) refuse(`shard ${index + 1} is given twice`);
    seenShards.add(index);
  }
  if (problems.length > 0) throw new InputError(problems);

  const shardCount = first.options.shard?.count ?? 1;
  const missingShards = Array.from({ length: shardCount }, (_, i) => i).filter((i) => !seenShards.has(i));
  const unfinished = manifests.filter((m) => m.manifest.status !== 'complete');
  const { shard: _shard, ...options } = first.options;
  const merged: RunManifest = {
    ...first,
    schemaVersion: RUNLOG_VERSION,
    runId: newRunId(),
    status: 'running',
    options,
    plannedJobs: manifests.reduce((sum, m) => sum + m.manifest.plannedJobs, 0),
    command: ['assay', 'merge', ...runDirs],
    cwd: process.cwd(),
    startedAt: manifests.map((m) => m.manifest.startedAt).sort()[0],
    mergedFrom: manifests.map((m) => m.manifest.runId),
  };
  delete merged.resumedAt;
  // Built under a hidden name and renamed when whole: a merge that stops half-way leaves no run
  // that a later --resume could take for an unfinished one.
  const finalDir = join(resolve(runsDir), merged.runId);
  removeDeadMerges(resolve(runsDir));
  // The hidden folder is made new (never one that stood there) and marked as this merge's at once,
  // so a later merge removes it, if this one is killed, knowing assay made it.
  const hidden = join(resolve(runsDir), `.${merged.runId}.merging-${process.pid}`);
  ensureDir(resolve(runsDir));
  mkdirSync(hidden);
  writeTemporary(join(hidden, MERGE_MARKER), mergeMarker(merged.runId, process.pid));
  const writer = RunWriter.reopen(hidden, merged);
  const keys = new Set<string>();
  try {
    for (const { dir } of manifests) {
      for await (const r of readResults(dir)) {
        if (keys.has(r.key)) {
          throw new InputError({
            file: join(dir, 'results.jsonl'),
            message: `job ${r.key} is in more than one run`,
            severity: 'error',
          });
        }
        keys.add(r.key);
        writer.append(r);
      }
    }
  } finally {
    writer.close();
  }
  await testPause('merge');
  // Computed from the merged log, by the same code as any run's scorecard.
  const scorecard = await scorecardOf(writer.dir);
  writer.writeJson('scorecard.json', scorecard);
  const reasons: string[] = [];
  if (missingShards.length > 0)
    reasons.push(`shards ${missingShards.map((i) => i + 1).join(', ')} of ${shardCount} are missing`);
  if (unfinished.length > 0) reasons.push(`${unfinished.length} of the runs did not complete`);
  const endedAt =
    manifests
      .map((m) => m.manifest.endedAt ?? '')
      .sort()
      .at(-1) || new Date().toISOString();
  writer.updateManifest({
    status: reasons.length === 0 ? 'complete' : 'interrupted',
    stopReason: reasons.length > 0 ? reasons.join('; ') : undefined,
    endedAt,
    counts: scorecard.counts,
    ...(outputs.length > 0 ? { outputsPending: outputs } : {}),
  });
  // A run id is new (time and a random suffix), but nothing standing at the name is replaced.
  if (exists(finalDir)) throw new Error(`${finalDir} exists already: the merged run was not put there`);
  renameSync(writer.dir, finalDir);
  rmSync(join(finalDir, MERGE_MARKER), { force: true });
  return { runDir: finalDir, manifest: readManifest(finalDir), scorecard };
}

/** The file that marks a merge's hidden folder as assay's (checked before it is ever removed). */
const MERGE_MARKER = '.assay-merging';

function mergeMarker(runId: string, pid: number): string {
  return `${JSON.stringify({ assay: 'merge under way', runId, pid })}\n`;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the hidden folders of merges whose process is gone (`.<run-id>.merging-<pid>`, left by a
 * merge killed half-way): each holds a copy of every merged result, and nothing else would ever
 * remove it. A merge still running is left alone, and so is anything assay cannot prove a merge
 * made: a link, or a folder without the marker naming that run id and pid (a user's folder of a
 * name like it).
 */
export function removeDeadMerges(runsDir: string): void {
  let names: string[];
  try {
    names = readdirSync(runsDir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^\.(.+)\.merging-(\d+)$/.exec(name);
    if (!m) continue;
    const [, runId, pidText] = m;
    const pid = Number(pidText);
    if (pid === process.pid || alive(pid)) continue;
    const dir = join(runsDir, name);
    if (!isMergeFolder(dir, runId, pid)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether `dir` is the hidden folder a merge of `runId` by process `pid` made: a real folder with its marker. */
function isMergeFolder(dir: string, runId: string, pid: number): boolean {
  try {
    if (!lstatSync(dir).isDirectory()) return false;
    const marker = join(dir, MERGE_MARKER);
    if (!isRegularFile(marker)) return false;
    return readFileSync(marker, 'utf8') === mergeMarker(runId, pid);
  } catch {
    return false;
  }
}
