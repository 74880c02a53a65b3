import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { JobResult } from '../core/types.js';
import type { RunManifest } from './types.js';

/** Reads a run's manifest.json. */
export function readManifest(runDir: string): RunManifest {
  return JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
}

/**
 * Streams a run's results.jsonl. A torn last line (the process died mid-write) is skipped; a torn
 * line anywhere else means the file was damaged, and is reported through `onBadLine`.
 */
export async function* readResults(
  runDir: string,
  onBadLine?: (lineNumber: number, text: string) => void,
): AsyncGenerator<JobResult> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  let pendingBad: { n: number; text: string } | undefined;
  for await (const line of lines) {
    lineNumber++;
    if (pendingBad) {
      onBadLine?.(pendingBad.n, pendingBad.text);
      pendingBad = undefined;
    }
    if (line.length === 0) continue;
    let parsed: JobResult;
    try {
      parsed = JSON.parse(line) as JobResult;
    } catch {
      pendingBad = { n: lineNumber, text: line };
      continue;
    }
    yield parsed;
  }
}
