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
import { readManifest, readResults } from './reader.js';
import type { RunManifest } from './types.js';

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

/** Rewrites results.jsonl without its error results, so `--retry-errors` can run those jobs again. */
export async function dropErrorResults(runDir: string): Promise<number> {
  const path = join(runDir, 'results.jsonl');
  const tmp = `${path}.compact-${process.pid}`;
  const out = createWriteStream(tmp);
  let dropped = 0;
  for await (const r of readResults(runDir)) {
    if (r.status === 'error') {
      dropped++;
      continue;
    }
    if (!out.write(`${JSON.stringify(r)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  renameSync(tmp, path);
  return dropped;
}

/** The newest run under `runsDir` of the suite with this content hash that did not complete. */
export function findLatestUnfinishedRun(runsDir: string, contentHash: string): string | undefined {
  if (!existsSync(runsDir)) return undefined;
  const ids = readdirSync(runsDir).sort().reverse();
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
