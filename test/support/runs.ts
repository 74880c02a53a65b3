// Test helpers for suites written to a folder and the run directories `assay eval` leaves there.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JobResult } from '../../src/core/types.js';
import type { RunManifest } from '../../src/runlog/types.js';

/** Writes `promptfooconfig.yaml` (and any other files given) into a new folder `dir`. */
export function writeSuiteDir(dir: string, config: string, files: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The run directories under `dir/.assay/runs`, oldest first (run ids made in the same second sort at random). */
export function runDirsOldestFirst(dir: string): string[] {
  const root = join(dir, '.assay', 'runs');
  if (!existsSync(root)) return [];
  const started = (run: string): string =>
    JSON.parse(readFileSync(join(root, run, 'manifest.json'), 'utf8')).startedAt;
  return readdirSync(root)
    .sort((a, b) => started(a).localeCompare(started(b)))
    .map((r) => join(root, r));
}

/** A run directory's manifest and results. */
export function readRun(runDir: string): { manifest: RunManifest; results: JobResult[]; runDir: string } {
  const text = readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim();
  return {
    runDir,
    manifest: JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')),
    results: text === '' ? [] : text.split('\n').map((l) => JSON.parse(l)),
  };
}
