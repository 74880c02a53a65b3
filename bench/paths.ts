/** Where the benchmark reads and writes: the repository root, its git-ignored work and peer folders. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file compiles to dist/bench/, two levels below it). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** bench/ in the source tree. */
export const BENCH_DIR = resolve(ROOT, 'bench');
/** Generated workloads, outputs, logs and caches (git-ignored). */
export const WORK_DIR = resolve(BENCH_DIR, '.work');
/** Installed peers: promptfoo and the Node 22 it needs (git-ignored). */
export const PEERS_DIR = resolve(BENCH_DIR, '.peers');
/** Where the bench copies the assay build it measures (see snapshot.ts). */
export const SNAPSHOT_DIR = resolve(WORK_DIR, 'assay');
/** The results file the bench writes. */
export const RESULTS_MD = resolve(BENCH_DIR, 'RESULTS.md');
