// The host of the output formats (report/outputs.ts): it reads the run once, hands each writer a
// view of it and a sink of the writer's layout, and owns every file the writer produces — a file
// streamed to a temporary beside its target and renamed over it, folders written whole under a
// temporary name, lines appended to a tree with a ledger so a resumed run appends each result
// once — and the list of what was written. Writers never open, rename or append themselves.
import {
  appendFileSync,
  closeSync,
  createReadStream,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Scorecard } from '../core/scorecard.js';
import type { JobResult } from '../core/types.js';
import { ensureDir } from '../runlog/dirs.js';
import { readManifest, resultLineBlocks, resultLinesInPlanOrder } from '../runlog/reader.js';
import {
  openTemporary,
  removeDeadTemporaries,
  temporaryFor,
  writeAllSync,
  writeFileWhole,
} from '../runlog/write-whole.js';
import {
  type FileSink,
  type FolderSink,
  type OutputFolder,
  type OutputFormat,
  type OutputOptions,
  type OutputRun,
  type ReporterIo,
  runShapeOf,
  type TreeSink,
} from './outputs.js';

/** Where one output goes: a file, a folder (`-o DIR/`), or a tree in the suite's own folders (`--record NAME`). */
export interface OutputTarget {
  path: string;
  format: OutputFormat;
  /** The options the format's name stood for (an alias). */
  options?: OutputOptions;
  /** `-o DIR/`: a format that names its own output writes into DIR. */
  folder?: boolean;
  /** `--record NAME`: a tree format appends NAME in the suite's own folders. */
  inPlace?: string;
}

/** A run directory as the writers see it (see OutputRun). */
export function outputRun(runDir: string, scorecard: Scorecard): OutputRun {
  // The files embed the run as it will stand once they are written.
  const { outputsPending: _pending, ...manifest } = readManifest(runDir);
  return {
    dir: runDir,
    manifest,
    scorecard,
    resultLines: () => resultLinesInPlanOrder(runDir),
    resultLineBlocks: () => resultLineBlocks(runDir),
    async *results(): AsyncGenerator<JobResult> {
      for await (const line of resultLinesInPlanOrder(runDir)) yield JSON.parse(line) as JobResult;
    },
  };
}

/**
 * Writes one output; resolves to the paths written (files, folders, or the tree's files appended
 * to). Rejects, leaving what stood there before, when it cannot be written.
 */
export async function writeOutput(run: OutputRun, target: OutputTarget): Promise<string[]> {
  const { format } = target;
  const options = target.options ?? {};
  const problem = format.check?.(runShapeOf(run.manifest));
  if (problem) throw new Error(problem);
  if (format.layout === 'tree') {
    const root = target.inPlace ? undefined : target.path;
    const fileName = target.inPlace ?? `assay-${basename(run.dir)}.jsonl`;
    return writeTree(run, (sink) => format.write(run, sink), { root, fileName, options });
  }
  const path = target.folder && format.fileName ? join(target.path, format.fileName(run)) : target.path;
  ensureDir(dirname(path));
  if (format.layout === 'folder') return writeFolders(path, options, (sink) => format.write(run, sink));
  await writeFile(path, options, (sink) => format.write(run, sink));
  return [path];
}

/** The size of the writes a file output makes (one synchronous write each). */
const FILE_BLOCK = 1 << 20;

/**
 * Writes a file to a temporary beside it, then renames it over the target (runlog/write-whole.ts).
 * Chunks are gathered and written synchronously a block at a time: a report of many small chunks
 * waited for the file system's threads after every few (a third of the time of writing out.json
 * and report.html went to waiting), and the bytes on disk are the chunks in the order given, from
 * `write` and the stream alike.
 */
async function writeFile(
  path: string,
  options: OutputOptions,
  write: (sink: FileSink) => Promise<void>,
): Promise<void> {
  removeDeadTemporaries(path);
  const tmp = temporaryFor(path);
  const fd = openTemporary(tmp);
  let pending: (string | Uint8Array)[] = [];
  let pendingSize = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const chunks = pending;
    pending = [];
    pendingSize = 0;
    for (const c of chunks.every((c) => typeof c === 'string') ? [chunks.join('')] : chunks)
      writeAllSync(fd, c);
  };
  const add = (chunk: string | Uint8Array): void => {
    pending.push(chunk);
    pendingSize += chunk.length;
    if (pendingSize >= FILE_BLOCK) flush();
  };
  // A write that failed (EISDIR, EACCES, ENOSPC) rejects this call, from the stream as from `write`.
  let failure: unknown;
  const stream = new Writable({
    highWaterMark: FILE_BLOCK,
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      try {
        add(chunk);
        done();
      } catch (err) {
        failure ??= err;
        done(err as Error);
      }
    },
  });
  // The writer learns of a failed stream write from its next write, or this call at the end.
  stream.on('error', () => {});
  const sink: FileSink = {
    stream,
    options,
    async write(chunk) {
      if (failure) throw failure;
      add(chunk);
    },
  };
  let done = false;
  try {
    await write(sink);
    if (failure) throw failure;
    flush();
    closeSync(fd);
    renameSync(tmp, path);
    done = true;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(tmp, { force: true });
    }
  }
}

/** Whether anything stands at `path` (a dangling link included). */
function occupied(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes folders under temporary names and renames each into place once the writer is done. A
 * folder already at a name is replaced only when the format proves it made it (`replaceable`, e.g.
 * this run's own folder, written before); anything else there is kept and the new folder gets
 * `-2`, `-3`…: the host removes only what the output wrote.
 */
async function writeFolders(
  target: string,
  options: OutputOptions,
  write: (sink: FolderSink) => Promise<void>,
): Promise<string[]> {
  const made: { tmp: string; path: string; replace: boolean }[] = [];
  const taken = new Set<string>();
  const sink: FolderSink = {
    options,
    folder(opts = {}): OutputFolder {
      const base = opts.suffix ? `${target}-${opts.suffix}` : target;
      let path = base;
      for (let i = 2; taken.has(path) || (occupied(path) && !(opts.replaceable?.(path) ?? false)); i++)
        path = `${base}-${i}`;
      taken.add(path);
      // A new folder of its own (a unique name): nothing that stood before is emptied or reused.
      const tmp = mkdtempSync(`${path}.tmp-${process.pid}-`);
      made.push({ tmp, path, replace: occupied(path) });
      return { path, file: (name, data) => writeFileSync(join(tmp, name), data) };
    },
  };
  let done = false;
  try {
    await write(sink);
    // Renamed into place whole: a half-written folder never looks like a run.
    for (const { tmp, path, replace } of made) {
      if (replace) rmSync(path, { recursive: true, force: true });
      renameSync(tmp, path);
    }
    done = true;
  } finally {
    if (!done) for (const { tmp } of made) rmSync(tmp, { recursive: true, force: true });
  }
  return made.map((m) => m.path);
}

/**
 * The run's record of the lines its tree outputs appended: by file, the file's size before the
 * run's first append (`from`) and the result keys appended. (Runs made before `from` was kept list
 * the keys alone.) The name is the one LVE's recording gave it first, so older runs resume.
 */
export const APPEND_LEDGER = 'lve-recorded.json';

interface LedgerEntry {
  from?: number;
  keys: Set<string>;
}

function readLedger(runDir: string): Map<string, LedgerEntry> {
  const path = join(runDir, APPEND_LEDGER);
  if (!existsSync(path)) return new Map();
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<
    string,
    string[] | { from: number; keys: string[] }
  >;
  return new Map(
    Object.entries(raw).map(([file, entry]) => [
      file,
      Array.isArray(entry) ? { keys: new Set(entry) } : { from: entry.from, keys: new Set(entry.keys) },
    ]),
  );
}

function writeLedger(runDir: string, ledger: Map<string, LedgerEntry>): void {
  const body = Object.fromEntries(
    [...ledger].map(([file, e]) => [
      file,
      e.from === undefined ? [...e.keys] : { from: e.from, keys: [...e.keys] },
    ]),
  );
  writeFileWhole(join(runDir, APPEND_LEDGER), `${JSON.stringify(body)}\n`);
}

/**
 * The files a run's tree outputs appended to, each with its size before the run's first append:
 * a resumed run reads its suite as it was, not with its own results.
 */
export function appendedBefore(runDir: string): Record<string, number> {
  const appends: Record<string, number> = {};
  for (const [file, entry] of readLedger(runDir)) if (entry.from !== undefined) appends[file] = entry.from;
  return appends;
}

/** Collects a tree writer's lines, then appends them file by file, recording each in the ledger. */
async function writeTree(
  run: OutputRun,
  write: (sink: TreeSink) => Promise<void>,
  where: { root: string | undefined; fileName: string; options: OutputOptions },
): Promise<string[]> {
  const ledger = readLedger(run.dir);
  const lines = new Map<string, { keys: string[]; text: string[] }>();
  await write({
    ...where,
    append(file, text, key) {
      const path = resolve(file);
      if (ledger.get(path)?.keys.has(key)) return;
      const entry = lines.get(path) ?? { keys: [], text: [] };
      entry.keys.push(key);
      entry.text.push(text);
      lines.set(path, entry);
    },
  });
  for (const [file, chunk] of lines) {
    ensureDir(dirname(file));
    const before = existsSync(file) ? statSync(file).size : 0;
    // Appended, as the tools do; a file without a final newline gets one first.
    const needsNewline = before > 0 && !readFileSync(file, 'utf8').endsWith('\n');
    appendFileSync(file, (needsNewline ? '\n' : '') + chunk.text.join(''));
    const done = ledger.get(file) ?? { from: before, keys: new Set<string>() };
    for (const k of chunk.keys) done.keys.add(k);
    ledger.set(file, done);
    writeLedger(run.dir, ledger);
  }
  return [...lines.keys()];
}

/** Writes a file format to stdout: through a private temporary file, as every output is written whole. */
export async function writeToStdout(
  run: OutputRun,
  format: OutputFormat,
  options: OutputOptions,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-report-'));
  try {
    const file = join(dir, 'out');
    await writeOutput(run, { path: file, format, options });
    await pipeline(createReadStream(file), process.stdout, { end: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The console and environment a reporter writes to. */
export function processIo(env: NodeJS.ProcessEnv = process.env): ReporterIo {
  return {
    env,
    print: (text) => process.stdout.write(text),
    warn: (text) => process.stderr.write(text),
    append: (file, text) => appendFileSync(file, text),
  };
}
