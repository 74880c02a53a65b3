import {
  closeSync,
  createReadStream,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { InputError } from '../core/errors.js';
import { isRecord } from '../core/records.js';
import type { JobResult } from '../core/types.js';
import { scanLines } from './lines.js';
import type { RunManifest } from './types.js';
import { upgradeResult } from './upgrade.js';
import { checkVersion, LINE_PREFIX } from './version.js';

/**
 * Reads a run's manifest.json; refuses one written by a newer assay, and one that is not a
 * manifest (damaged, cut, edited by hand), naming the file (InputError: exit 2).
 */
export function readManifest(runDir: string): RunManifest {
  const file = join(runDir, 'manifest.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError({
      file,
      message: `cannot read the run's manifest (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      severity: 'error',
    });
  }
  let manifest: RunManifest;
  try {
    manifest = JSON.parse(text) as RunManifest;
  } catch (err) {
    throw damaged(file, undefined, `not JSON (${(err as Error).message})`);
  }
  checkVersion(
    (manifest as { schemaVersion?: unknown } | null)?.schemaVersion,
    { file },
    'manifest.json schemaVersion',
  );
  const problem = manifestProblem(manifest);
  if (problem) throw damaged(file, undefined, problem);
  return manifest;
}

/**
 * What makes a parsed manifest.json unusable (a field every reader relies on missing or of the
 * wrong type: the schema's run-manifest fields that compare, report, rescore and baseline read), if
 * anything.
 */
function manifestProblem(m: unknown): string | undefined {
  if (!isRecord(m)) return 'not a JSON object';
  if (typeof m.runId !== 'string') return 'runId is not a string';
  if (!isRecord(m.suite)) return 'suite is not an object';
  if (typeof m.suite.name !== 'string') return 'suite.name is not a string';
  if (!Array.isArray(m.suite.prompts)) return 'suite.prompts is not a list';
  if (!Array.isArray(m.providers)) return 'providers is not a list';
  if (!isRecord(m.options)) return 'options is not an object';
  if (typeof m.plannedJobs !== 'number' || !Number.isInteger(m.plannedJobs) || m.plannedJobs < 0)
    return `plannedJobs ${JSON.stringify(m.plannedJobs)} is not a count of jobs`;
  if (!['running', 'complete', 'aborted', 'interrupted'].includes(m.status as string))
    return `status ${JSON.stringify(m.status)} is not running, complete, aborted or interrupted`;
  return undefined;
}

/** A damaged run log file: an input error naming the file (and line), exit 2. */
function damaged(file: string, line: number | undefined, what: string): InputError {
  return new InputError({
    file,
    ...(line !== undefined ? { line } : {}),
    message: `the run log is damaged: ${what}`,
    severity: 'error',
  });
}

/**
 * A results.jsonl line that is not a result. Only the file's unterminated last line is the trace
 * of a kill mid-write (resume cuts it off: runlog/resume.ts repairTail); any other line that does
 * not parse means the file was damaged, and is refused (or passed to `onBadLine`).
 */
function badLine(
  path: string,
  lineNumber: number,
  onBadLine: ((lineNumber: number, text: string) => void) | undefined,
  text: string,
): void {
  if (onBadLine) onBadLine(lineNumber, text);
  else throw damagedLine(path, lineNumber);
}

/** The error for a results.jsonl line that is not a result (not the torn last line of a kill). */
export function damagedLine(path: string, lineNumber: number): InputError {
  return damaged(
    path,
    lineNumber,
    'this line of results.jsonl is not a JSON result (key, caseId, promptId, providerId, trial, status, verdicts, score; only an unterminated last line, cut by a kill, is skipped)',
  );
}

/**
 * Whether a parsed line is a result: an object with the fields every reader of a log relies on
 * (schema/run-result.schema.json's identity, status and score), not `null`, a number, a list, or
 * an object of another shape (which would otherwise count as a job done and crash what reads it).
 */
export function isResultLine(v: unknown): boolean {
  if (!isRecord(v)) return false;
  return (
    typeof v.key === 'string' &&
    typeof v.caseId === 'string' &&
    typeof v.promptId === 'string' &&
    typeof v.providerId === 'string' &&
    typeof v.trial === 'number' &&
    Number.isInteger(v.trial) &&
    v.trial >= 0 &&
    typeof v.status === 'string' &&
    ['pass', 'fail', 'error', 'skip'].includes(v.status) &&
    Array.isArray(v.verdicts) &&
    // (null: a NaN score, as JSON writes it; readers have always taken it.)
    (typeof v.score === 'number' || v.score === null)
  );
}

/** Whether a file's last byte is a newline (an empty file: true). */
function endsWithNewline(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/**
 * A results line's version checked (a newer one is refused) and taken off the result, and a line of
 * an older layout read into today's (runlog/upgrade.ts).
 */
export function versioned(parsed: Record<string, unknown>, file: string, line: number): JobResult {
  const v = parsed.v;
  if (v !== undefined) {
    checkVersion(v, { file, line }, 'results line version');
    delete parsed.v;
  }
  return upgradeResult(parsed, typeof v === 'number' ? v : 0);
}

/** A results line as today's assay writes it: an older line regrouped, with today's version first. */
function currentLine(text: string): string {
  if (text.startsWith(LINE_PREFIX)) return text;
  const result = versioned(JSON.parse(text) as Record<string, unknown>, '', 0);
  return `${LINE_PREFIX}${JSON.stringify(result).slice(1)}`;
}

/**
 * Streams a run's results.jsonl. A torn last line (the process died mid-write: no newline ends it)
 * is skipped; a line that does not parse anywhere else means the file was damaged: an InputError
 * naming the file and line (exit 2), or, when given, a call of `onBadLine`.
 */
export async function* readResults(
  runDir: string,
  onBadLine?: (lineNumber: number, text: string) => void,
): AsyncGenerator<JobResult> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  // Read before the lines: a log still being appended to ends with a newline between writes.
  const terminated = endsWithNewline(path);
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  let pendingBad: { n: number; text: string } | undefined;
  for await (const line of lines) {
    lineNumber++;
    if (pendingBad) {
      badLine(path, pendingBad.n, onBadLine, pendingBad.text);
      pendingBad = undefined;
    }
    if (line.length === 0) continue;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      pendingBad = { n: lineNumber, text: line };
      continue;
    }
    // A newer version is said as such first: its lines may have another shape.
    if (isRecord(parsed)) checkVersion(parsed.v, { file: path, line: lineNumber }, 'results line version');
    if (!isResultLine(parsed)) {
      badLine(path, lineNumber, onBadLine, line);
      continue;
    }
    yield versioned(parsed, path, lineNumber);
  }
  if (pendingBad && terminated) badLine(path, pendingBad.n, onBadLine, pendingBad.text);
}

/**
 * The plan-order index of a log written by this process (runlog/writer.ts keeps it as it appends),
 * by the log's absolute path: with it, resultLinesInPlanOrder reads no line it does not write out.
 */
export interface LiveLineIndex {
  index: LineIndex;
  /** The log's size when the index was last added to: a log of another size was changed since. */
  size: number;
  /** Whether the lines were appended in plan order, each position once: then they are copied as they lie. */
  inOrder: boolean;
  /** The log's modification time then: a log rewritten to the same size since is not the one indexed. */
  mtimeMs?: number;
}

const liveIndexes = new Map<string, LiveLineIndex>();

/** Registers (or, with undefined, forgets) the live index of a results.jsonl this process wrote. */
export function setLiveIndex(path: string, live: LiveLineIndex | undefined): void {
  liveIndexes.delete(resolve(path));
  if (!live) return;
  liveIndexes.set(resolve(path), live);
  // A process that makes many runs (a library user) keeps the indexes of its latest few only.
  for (const old of liveIndexes.keys()) {
    if (liveIndexes.size <= MAX_LIVE_INDEXES) break;
    liveIndexes.delete(old);
  }
}

const MAX_LIVE_INDEXES = 4;

/** The live index of a log, if this process wrote it and it has not changed size since. */
export function liveLineIndex(path: string): LiveLineIndex | undefined {
  const live = liveIndexes.get(resolve(path));
  if (!live) return undefined;
  let stat: { size: number; mtimeMs: number };
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  const same = stat.size === live.size && (live.mtimeMs === undefined || stat.mtimeMs === live.mtimeMs);
  return same ? live : undefined;
}

/**
 * A run's results.jsonl lines in plan order (case, trial, provider, prompt; a position logged twice
 * written once, the first), each as today's assay writes it. A log this process wrote comes from the
 * index its writer kept; any other (assay report, rescore's source, merge) is scanned once for one.
 */
export async function* resultLinesInPlanOrder(runDir: string): AsyncGenerator<string> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  const live = liveLineIndex(path);
  if (live) {
    yield* live.inOrder ? linesInSequence(path, live.index) : linesByIndex(path, live.index);
    return;
  }
  const manifest = readManifest(runDir);
  // Columns the manifest does not list (an older log) sort after the listed ones, in order of appearance.
  const providerOrder = new Map(manifest.providers.map((p, i) => [String(p.key ?? p.id), i]));
  const promptOrder = new Map(manifest.suite.prompts.map((p, i) => [p.id, i]));
  const orderOf = (order: Map<string, number>, id: string): number => {
    let i = order.get(id);
    if (i === undefined) {
      i = order.size;
      order.set(id, i);
    }
    return i;
  };
  // A few numbers per result in typed arrays (not an object and a key string each): at a million
  // results the index is tens of MB, not hundreds.
  const index = new LineIndex();
  await scanLines(path, (line, offset, lineNumber) => {
    let parsed: (JobResult & { v?: unknown }) | undefined;
    try {
      parsed = JSON.parse(line.toString('utf8')) as JobResult & { v?: unknown };
    } catch {
      // scanLines gives only lines a newline ends: a torn last line never reaches here.
      throw damagedLine(path, lineNumber);
    }
    if (isRecord(parsed)) checkVersion(parsed.v, { file: path, line: lineNumber }, 'results line version');
    if (!isResultLine(parsed)) throw damagedLine(path, lineNumber);
    index.add(
      parsed.caseIndex ?? Number.MAX_SAFE_INTEGER,
      parsed.trial ?? 0,
      orderOf(providerOrder, parsed.providerId),
      orderOf(promptOrder, parsed.promptId),
      offset,
      line.length,
    );
  });
  yield* linesByIndex(path, index);
}

/**
 * resultLinesInPlanOrder's lines as UTF-8 bytes, in blocks of whole lines (each line ending in a
 * newline, about a megabyte a block), for writers that copy lines out: a log this process wrote in
 * plan order is copied a block at a time as it lies, with no decoding, check or await per line (at
 * 100k results, out.json spent more on those than on its bytes); any other log is gathered from
 * resultLinesInPlanOrder. Each block is the caller's to keep.
 */
export async function* resultLineBlocks(runDir: string): AsyncGenerator<Buffer> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  const live = liveLineIndex(path);
  if (live?.inOrder && live.index.size > 0) {
    yield* blocksAsTheyLie(path, live.size);
    return;
  }
  let batch: string[] = [];
  let size = 0;
  for await (const line of resultLinesInPlanOrder(runDir)) {
    batch.push(line);
    size += line.length;
    if (size >= BLOCK_BYTES) {
      yield Buffer.from(`${batch.join('\n')}\n`);
      batch = [];
      size = 0;
    }
  }
  if (batch.length > 0) yield Buffer.from(`${batch.join('\n')}\n`);
}

const BLOCK_BYTES = 1 << 20;

/**
 * The first `size` bytes of a log whose every line this process wrote, in order, in blocks cut
 * after a newline (a line longer than a block makes a longer block).
 */
function* blocksAsTheyLie(path: string, size: number): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.allocUnsafe(BLOCK_BYTES);
    // The file's next byte to read; the bytes of a line begun in the last block, at the buffer's start.
    let position = 0;
    let carry = 0;
    while (position < size) {
      if (carry === buffer.length) {
        const grown = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(grown, 0, 0, carry);
        buffer = grown;
      }
      const until = carry + Math.min(buffer.length - carry, size - position);
      let filled = carry;
      while (filled < until) {
        const n = readSync(fd, buffer, filled, until - filled, position);
        if (n === 0) throw new Error(`${path} is shorter than its index`);
        filled += n;
        position += n;
      }
      const end = buffer.lastIndexOf(10, filled - 1);
      if (end < 0) {
        carry = filled;
        continue;
      }
      const next = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, filled - end - 1));
      carry = buffer.copy(next, 0, end + 1, filled);
      yield buffer.subarray(0, end + 1);
      buffer = next;
    }
    if (carry > 0) throw new Error(`${path} does not end with a newline where its index does`);
  } finally {
    closeSync(fd);
  }
}

/** The indexed lines in plan order, each read where it lies. */
function* linesByIndex(path: string, index: LineIndex): Generator<string> {
  const order = index.sorted();
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.alloc(64 * 1024);
    let previous = -1;
    for (const i of order) {
      // A job logged twice (two processes that once both ran it) has one plan position: the first
      // line logged is written out, the later one skipped.
      if (previous >= 0 && index.samePosition(previous, i)) continue;
      previous = i;
      const length = index.length[i];
      if (length > buffer.length) buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, index.offset[i]);
      yield currentLine(buffer.toString('utf8', 0, length));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The indexed lines as they lie in the file (already in plan order): read sequentially in large
 * chunks, each line cut out at its offset.
 */
function* linesInSequence(path: string, index: LineIndex): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.alloc(1 << 20);
    // The file's bytes [start, start + filled) are in the buffer.
    let start = 0;
    let filled = 0;
    for (let i = 0; i < index.size; i++) {
      const offset = index.offset[i];
      const length = index.length[i];
      if (offset < start || offset + length > start + filled) {
        if (length > buffer.length) buffer = Buffer.alloc(length);
        start = offset;
        filled = 0;
        while (filled < buffer.length) {
          const n = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
          if (n === 0) break;
          filled += n;
        }
        if (filled < length) throw new Error(`${path} is shorter than its index`);
      }
      yield currentLine(buffer.toString('utf8', offset - start, offset - start + length));
    }
  } finally {
    closeSync(fd);
  }
}

/** Plan positions and byte ranges of a log's lines, column by column in growable typed arrays. */
export class LineIndex {
  size = 0;
  caseIndex = new Float64Array(1024);
  trial = new Uint32Array(1024);
  provider = new Uint32Array(1024);
  prompt = new Uint32Array(1024);
  offset = new Float64Array(1024);
  length = new Float64Array(1024);

  add(
    caseIndex: number,
    trial: number,
    provider: number,
    prompt: number,
    offset: number,
    length: number,
  ): void {
    if (this.size === this.offset.length) this.grow();
    const i = this.size++;
    this.caseIndex[i] = caseIndex;
    this.trial[i] = trial;
    this.provider[i] = provider;
    this.prompt[i] = prompt;
    this.offset[i] = offset;
    this.length[i] = length;
  }

  /** Line numbers (0-based) in plan order (case, trial, provider, prompt), ties in log order. */
  sorted(): Uint32Array {
    const order = new Uint32Array(this.size);
    for (let i = 0; i < this.size; i++) order[i] = i;
    const { caseIndex, trial, provider, prompt, offset } = this;
    return order.sort(
      (a, b) =>
        caseIndex[a] - caseIndex[b] ||
        trial[a] - trial[b] ||
        provider[a] - provider[b] ||
        prompt[a] - prompt[b] ||
        offset[a] - offset[b],
    );
  }

  /** Whether line `b` comes after line `a` in plan order, at another position (a sort would keep them so). */
  before(a: number, b: number): boolean {
    return (
      (this.caseIndex[a] - this.caseIndex[b] ||
        this.trial[a] - this.trial[b] ||
        this.provider[a] - this.provider[b] ||
        this.prompt[a] - this.prompt[b]) < 0
    );
  }

  samePosition(a: number, b: number): boolean {
    return (
      this.caseIndex[a] === this.caseIndex[b] &&
      this.trial[a] === this.trial[b] &&
      this.provider[a] === this.provider[b] &&
      this.prompt[a] === this.prompt[b]
    );
  }

  private grow(): void {
    const n = this.size * 2;
    const grown = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.caseIndex = grown(this.caseIndex, (k) => new Float64Array(k));
    this.trial = grown(this.trial, (k) => new Uint32Array(k));
    this.provider = grown(this.provider, (k) => new Uint32Array(k));
    this.prompt = grown(this.prompt, (k) => new Uint32Array(k));
    this.offset = grown(this.offset, (k) => new Float64Array(k));
    this.length = grown(this.length, (k) => new Float64Array(k));
  }
}
