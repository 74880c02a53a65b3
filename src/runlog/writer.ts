import { closeSync, fstatSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Secrets } from '../core/secrets.js';
import type { JobResult } from '../core/types.js';
import { ensureDir } from './dirs.js';
import { LineIndex, type LiveLineIndex, setLiveIndex } from './reader.js';
import type { RunManifest } from './types.js';
import { LINE_PREFIX } from './version.js';
import { writeAllSync, writeTemporary } from './write-whole.js';

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
  /** The manifest as first written to the directory (secrets redacted), as a reader of it sees it. */
  readonly manifestAsWritten: RunManifest;
  private pending = '';
  private pendingLines = 0;
  private scheduled = false;
  /**
   * The plan position and byte range of every line this writer appended (a log it started empty):
   * `-o` files and reports are written from it (runlog/reader.ts resultLinesInPlanOrder) without
   * reading every line back. A log that held lines before (a resume) is scanned instead.
   */
  private live?: LiveLineIndex & { providers: Map<string, number>; prompts: Map<string, number> };
  /** The log's size once every appended line is written. */
  private size: number;

  private constructor(dir: string, manifest: RunManifest, batch: number, secrets: Secrets) {
    this.dir = dir;
    this.manifest = manifest;
    this.batch = Math.max(1, Math.floor(batch));
    // The run's own: secrets it learns later (a grader built mid-run, a token) count too.
    this.secrets = secrets;
    ensureDir(dir);
    const written = this.writeJson('manifest.json', manifest) as RunManifest;
    this.manifestAsWritten = written;
    this.fd = openSync(join(dir, 'results.jsonl'), 'a');
    // An index an earlier writer of this log kept (the run resumed in the same process) describes
    // the log no more: this writer changes it (and a log of the same size is no proof otherwise).
    setLiveIndex(join(dir, 'results.jsonl'), undefined);
    this.size = fstatSync(this.fd).size;
    if (this.size === 0) {
      // The columns in the order the manifest on disk lists them, as a scan of the log would take them.
      this.live = {
        index: new LineIndex(),
        size: 0,
        inOrder: true,
        providers: new Map(written.providers.map((p, i) => [String(p.key ?? p.id), i])),
        prompts: new Map(written.suite.prompts.map((p, i) => [p.id, i])),
      };
    }
  }

  /** Creates `<runsDir>/<runId>/` and writes the initial manifest (status `running`). */
  static create(runsDir: string, manifest: RunManifest, batch = 1, secrets = new Secrets()): RunWriter {
    return new RunWriter(join(runsDir, manifest.runId), manifest, batch, secrets);
  }

  /**
   * Reopens an existing run directory to append to it (resume): the manifest is replaced by the
   * given one (status `running` again); results.jsonl must already have had its tail repaired.
   */
  static reopen(runDir: string, manifest: RunManifest, batch = 1, secrets = new Secrets()): RunWriter {
    return new RunWriter(runDir, manifest, batch, secrets);
  }

  /**
   * The run's secrets, kept out of every file this writer writes in every spelling: a prompt that
   * renders `{{ env.KEY }}`, an answer that echoes it (URL-encoded, JSON-escaped twice…), a
   * reason that quotes it, a provider id holding a credential query parameter — all reach the disk
   * as `[redacted]`.
   */
  private readonly secrets: Secrets;

  /**
   * Appends one job result as one line (see the class comment for when it reaches the disk).
   * Returns the line (without its newline) when redaction changed it, so that what is kept of the
   * result in memory can be taken from the line as logged; undefined when it is the result's JSON.
   */
  append(result: JobResult): string | undefined {
    // Every line starts with its run-log version (runlog/version.ts); a result is never `{}`.
    const json = JSON.stringify(result);
    const line = this.secrets.empty ? json : this.secrets.redactJson(json);
    const text = `${LINE_PREFIX}${line.slice(1)}`;
    this.pending += `${text}\n`;
    this.pendingLines++;
    const redacted = line === json ? undefined : text;
    // A redacted line is indexed by what it says (a column's name may have been redacted too).
    if (this.live)
      this.indexLine(redacted === undefined ? result : (JSON.parse(redacted) as JobResult), text);
    else this.size += Buffer.byteLength(text) + 1;
    if (this.pendingLines >= this.batch) {
      this.flush();
      return redacted;
    }
    if (this.scheduled) return redacted;
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
    return redacted;
  }

  /** Adds a line to the live index, its position read as a scan of the log reads it (reader.ts). */
  private indexLine(result: JobResult, text: string): void {
    const live = this.live as NonNullable<typeof this.live>;
    const { index } = live;
    const length = Buffer.byteLength(text);
    index.add(
      loggedNumber(result.caseIndex, Number.MAX_SAFE_INTEGER),
      loggedNumber(result.trial, 0),
      orderOf(live.providers, result.providerId),
      orderOf(live.prompts, result.promptId),
      this.size,
      length,
    );
    this.size += length + 1;
    if (live.inOrder && index.size > 1 && !index.before(index.size - 2, index.size - 1)) live.inOrder = false;
  }

  /** Writes the appended lines not yet on disk, in one write. */
  flush(): void {
    unflushed.delete(this);
    if (this.pendingLines === 0) return;
    const text = this.pending;
    this.pending = '';
    this.pendingLines = 0;
    writeAllSync(this.fd, text);
  }

  /** Updates manifest fields (e.g. status, end time) atomically. */
  updateManifest(patch: Partial<RunManifest>): void {
    this.manifest = { ...this.manifest, ...patch };
    this.writeJson('manifest.json', this.manifest);
  }

  /** Writes another JSON file of the run (e.g. scorecard.json) atomically; returns it as written. */
  writeJson(name: string, value: unknown): unknown {
    const path = join(this.dir, name);
    const tmp = `${path}.tmp-${process.pid}`;
    const text = jsonFileText(value, this.secrets);
    writeTemporary(tmp, `${text}\n`);
    renameSync(tmp, path);
    return JSON.parse(text);
  }

  /** A value as a writer with these secrets writes it to a JSON file of the run, read back. */
  static asWritten<T>(value: T, secrets: Secrets): T {
    return JSON.parse(jsonFileText(value, secrets)) as T;
  }

  /**
   * Writes what is pending and closes results.jsonl; the index of a log this writer wrote from the
   * start is handed to the log's readers in this process.
   */
  close(): void {
    this.flush();
    closeSync(this.fd);
    if (this.live) {
      const { index, inOrder } = this.live;
      const path = join(this.dir, 'results.jsonl');
      setLiveIndex(path, { index, inOrder, size: this.size, mtimeMs: statSync(path).mtimeMs });
    }
  }
}

/** The text of a run's JSON file (without its final newline): indented, secrets redacted. */
function jsonFileText(value: unknown, secrets: Secrets): string {
  const json = JSON.stringify(value, null, 2);
  return secrets.empty ? json : secrets.redactJson(json, 2);
}

/** A column's place: the manifest's order, then others in order of appearance (as a scan takes them). */
function orderOf(order: Map<string, number>, id: string): number {
  let i = order.get(id);
  if (i === undefined) {
    i = order.size;
    order.set(id, i);
  }
  return i;
}

/** A number of a result as a scan reads it back (`?? absent`): NaN and ±Infinity are logged as null. */
function loggedNumber(v: number | undefined, absent: number): number {
  return v === undefined || v === null || (typeof v === 'number' && !Number.isFinite(v)) ? absent : v;
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
  writeTemporary(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
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
