import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { JobResult } from '../core/types.js';
import { ensureDir } from './dirs.js';
import type { RunManifest } from './types.js';

/**
 * Writes one run directory. Each result is appended to results.jsonl with a synchronous write the
 * moment it completes, so a process killed at any point leaves every completed job on disk.
 */
export class RunWriter {
  readonly dir: string;
  private fd: number;
  private manifest: RunManifest;

  private constructor(dir: string, manifest: RunManifest) {
    this.dir = dir;
    this.manifest = manifest;
    ensureDir(dir);
    this.writeJson('manifest.json', manifest);
    this.fd = openSync(join(dir, 'results.jsonl'), 'a');
  }

  /** Creates `<runsDir>/<runId>/` and writes the initial manifest (status `running`). */
  static create(runsDir: string, manifest: RunManifest): RunWriter {
    return new RunWriter(join(runsDir, manifest.runId), manifest);
  }

  /**
   * Reopens an existing run directory to append to it (resume): the manifest is replaced by the
   * given one (status `running` again); results.jsonl must already have had its tail repaired.
   */
  static reopen(runDir: string, manifest: RunManifest): RunWriter {
    return new RunWriter(runDir, manifest);
  }

  /** Appends one job result as one line. */
  append(result: JobResult): void {
    writeSync(this.fd, `${JSON.stringify(result)}\n`);
  }

  /** Updates manifest fields (e.g. status, end time) atomically. */
  updateManifest(patch: Partial<RunManifest>): void {
    this.manifest = { ...this.manifest, ...patch };
    this.writeJson('manifest.json', this.manifest);
  }

  /** Writes another JSON file of the run (e.g. scorecard.json) atomically. */
  writeJson(name: string, value: unknown): void {
    const path = join(this.dir, name);
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(tmp, path);
  }

  /** Closes results.jsonl. */
  close(): void {
    closeSync(this.fd);
  }
}

/** A sortable, unique run id: UTC time plus random suffix. */
export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${Math.random().toString(16).slice(2, 8)}`;
}
