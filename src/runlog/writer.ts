import { closeSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { addSecrets, redactJsonText } from '../core/redact.js';
import type { JobResult } from '../core/types.js';
import { ensureDir } from './dirs.js';
import type { RunManifest } from './types.js';
import { LINE_PREFIX } from './version.js';

/** Writers with lines not yet on disk, flushed if the process exits before their next turn ends. */
const unflushed = new Set<RunWriter>();
let exitHook = false;

/**
 * Writes one run directory. Each result is appended to results.jsonl with a synchronous write
 * when it completes, or, with `batch` > 1, at the end of the event-loop turn it completed in, with
 * the others of that turn and never more than `batch` lines late: a process killed at any point
 * loses at most `batch` completed jobs (the evaluator passes its concurrency: the jobs in flight).
 */
export class RunWriter {
  readonly dir: string;
  private fd: number;
  private manifest: RunManifest;
  private readonly batch: number;
  private pending = '';
  private pendingLines = 0;
  private scheduled = false;

  private constructor(dir: string, manifest: RunManifest, batch: number, secrets: string[]) {
    this.dir = dir;
    this.manifest = manifest;
    this.batch = Math.max(1, Math.floor(batch));
    // The caller's list itself, put in order: secrets it learns later (a grader built mid-run) count too.
    this.secrets = addSecrets(secrets);
    ensureDir(dir);
    this.writeJson('manifest.json', manifest);
    this.fd = openSync(join(dir, 'results.jsonl'), 'a');
  }

  /** Creates `<runsDir>/<runId>/` and writes the initial manifest (status `running`). */
  static create(runsDir: string, manifest: RunManifest, batch = 1, secrets: string[] = []): RunWriter {
    return new RunWriter(join(runsDir, manifest.runId), manifest, batch, secrets);
  }

  /**
   * Reopens an existing run directory to append to it (resume): the manifest is replaced by the
   * given one (status `running` again); results.jsonl must already have had its tail repaired.
   */
  static reopen(runDir: string, manifest: RunManifest, batch = 1, secrets: string[] = []): RunWriter {
    return new RunWriter(runDir, manifest, batch, secrets);
  }

  /**
   * Secret values (keys from the environment and from configs) this writer keeps out of every file
   * it writes: a prompt that renders `{{ env.KEY }}`, an answer that echoes it, a reason that
   * quotes it — all reach the disk as `[redacted]`.
   */
  private readonly secrets: string[];

  /** Appends one job result as one line (see the class comment for when it reaches the disk). */
  append(result: JobResult): void {
    // Every line starts with its run-log version (runlog/version.ts); a result is never `{}`.
    const json = JSON.stringify(result);
    const line = this.secrets.length > 0 ? redactJsonText(json, this.secrets) : json;
    this.pending += `${LINE_PREFIX}${line.slice(1)}\n`;
    this.pendingLines++;
    if (this.pendingLines >= this.batch) {
      this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    unflushed.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const w of unflushed) w.flush();
      });
    }
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes the appended lines not yet on disk, in one write. */
  flush(): void {
    unflushed.delete(this);
    if (this.pendingLines === 0) return;
    const text = this.pending;
    this.pending = '';
    this.pendingLines = 0;
    writeSync(this.fd, text);
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
    const json = JSON.stringify(value, null, 2);
    writeFileSync(tmp, `${this.secrets.length > 0 ? redactJsonText(json, this.secrets) : json}\n`);
    renameSync(tmp, path);
  }

  /** Writes what is pending and closes results.jsonl. */
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * Marks a run's `-o` files written: takes `outputsPending` out of its manifest (atomically; the
 * manifest is otherwise kept byte for byte as it was).
 */
export function clearOutputsPending(runDir: string): void {
  const path = join(runDir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as RunManifest;
  if (manifest.outputsPending === undefined) return;
  delete manifest.outputsPending;
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, path);
}

/** A sortable, unique run id: UTC time plus random suffix. */
export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${Math.random().toString(16).slice(2, 8)}`;
}
