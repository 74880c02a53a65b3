import { once } from 'node:events';
import {
  closeSync,
  createWriteStream,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Job, JobResult } from '../core/types.js';
import { readManifest, readResults } from './reader.js';
import type { RunManifest } from './types.js';
import { LINE_PREFIX } from './version.js';
import { openTemporary } from './write-whole.js';

/**
 * Cuts a torn final line (a write interrupted by a kill) off results.jsonl so appends start on a
 * clean line. Returns the number of bytes dropped.
 */
export function repairTail(resultsPath: string): number {
  if (!existsSync(resultsPath)) return 0;
  const fd = openSync(resultsPath, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    // Scan backwards in blocks for the last newline.
    const block = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const n = readSync(fd, block, 0, end - start, start);
      const idx = block.subarray(0, n).lastIndexOf(0x0a);
      if (idx >= 0) {
        const keep = start + idx + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** Rewrites results.jsonl keeping only the results for which `keep` holds; returns how many were dropped. */
async function rewriteResults(runDir: string, keep: (r: JobResult) => boolean): Promise<number> {
  const path = join(runDir, 'results.jsonl');
  const tmp = `${path}.compact-${process.pid}`;
  const out = createWriteStream(tmp, { fd: openTemporary(tmp) });
  let dropped = 0;
  for await (const r of readResults(runDir)) {
    if (!keep(r)) {
      dropped++;
      continue;
    }
    if (!out.write(`${LINE_PREFIX}${JSON.stringify(r).slice(1)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  renameSync(tmp, path);
  return dropped;
}

/** Rewrites results.jsonl without its error results, so `--retry-errors` can run those jobs again. */
export function dropErrorResults(runDir: string): Promise<number> {
  return rewriteResults(runDir, (r) => r.status !== 'error');
}

/**
 * Drops the results of job groups (cases judged across their rows) that are only partly in the log,
 * so a resume runs each such group again whole: a comparison needs every row of its group.
 */
export async function dropPartialGroups(runDir: string, plan: Iterable<Job>): Promise<number> {
  const groupOf = new Map<string, string>();
  const planned = new Map<string, number>();
  for (const job of plan) {
    if (job.group === undefined) continue;
    groupOf.set(job.key, job.group);
    planned.set(job.group, (planned.get(job.group) ?? 0) + 1);
  }
  if (planned.size === 0) return 0;
  const present = new Map<string, Set<string>>();
  for await (const r of readResults(runDir)) {
    const group = groupOf.get(r.key);
    if (group === undefined) continue;
    const keys = present.get(group) ?? new Set<string>();
    keys.add(r.key);
    present.set(group, keys);
  }
  const partial = new Set(
    [...present].filter(([g, keys]) => keys.size < (planned.get(g) ?? 0)).map(([g]) => g),
  );
  if (partial.size === 0) return 0;
  return rewriteResults(runDir, (r) => !partial.has(groupOf.get(r.key) ?? ''));
}

/** The newest run under `runsDir` of the suite with this content hash that did not complete. */
export function findLatestUnfinishedRun(runsDir: string, contentHash: string): string | undefined {
  if (!existsSync(runsDir)) return undefined;
  // Hidden folders are runs being built (a merge in progress, or one that stopped): never resumed.
  const ids = readdirSync(runsDir)
    .filter((id) => !id.startsWith('.'))
    .sort()
    .reverse();
  for (const id of ids) {
    const dir = join(runsDir, id);
    let manifest: RunManifest;
    try {
      manifest = readManifest(dir);
    } catch {
      continue;
    }
    if (manifest.suite.contentHash === contentHash && manifest.status !== 'complete') return dir;
  }
  return undefined;
}
