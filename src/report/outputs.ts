import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { dirname, extname } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Scorecard } from '../core/scorecard.js';
import type { JobResult, NativeFacts } from '../core/types.js';
import { ensureDir } from '../runlog/dirs.js';
import { readManifest, resultLinesInPlanOrder } from '../runlog/reader.js';
import { removeDeadTemporaries, temporaryFor } from '../runlog/write-whole.js';

/** An output file format written from a run directory (`-o FILE`, `--output-format NAME`). */
export interface OutputFormat {
  name: string;
  /** Extensions that select this format when `--output-format` is not given. */
  extensions: string[];
  description: string;
  /** The file name this format's own tool would give the output; `-o DIR/` then writes it into DIR. */
  fileName?(runDir: string): string;
  /**
   * Whether this format can describe a run of this shape; a reason when it cannot. Checked before
   * the run starts, so a results file that could never be written does not cost a run.
   */
  check?(run: RunShape): string | undefined;
  /** Writes the output file (formats that write one file). */
  write?(runDir: string, scorecard: Scorecard, out: WriteStream): Promise<void>;
  /**
   * Writes a folder of files instead (a tool's own run folder), creating `dir`; may return the
   * format's own judgement of the run (a tool's thresholds and regression policy).
   */
  writeFolder?(runDir: string, scorecard: Scorecard, dir: string): Promise<OutputJudgement | undefined>;
  /**
   * For a format whose tool keeps results as many files (LVE: an instances file in each test's
   * folder): appends them under `dir`, each named `fileName`, or into the suite's own folders when
   * `dir` is undefined. Returns the files written. `-o DIR/` (or `--record NAME`) uses this.
   */
  writeTree?(runDir: string, target: { dir?: string; fileName: string }): Promise<string[]>;
  /**
   * The files a run's writeTree appended to in the suite's own folders, each with its size before
   * the run's first append: a resumed run reads its suite as it was, not with its own results.
   */
  ownAppends?(runDir: string): Record<string, number>;
  /** Writes only a tree (writeTree): a single-file target is refused before the run. */
  treeOnly?: boolean;
}

/**
 * A format's own verdict on a run, from the results it wrote (apastra's thresholds and regression
 * policy): shown to the user, and when `failed`, the run's exit code is 1 (it replaces the verdict
 * of failing cases, as the tool's own gate would).
 */
export interface OutputJudgement {
  text: string;
  failed: boolean;
  /**
   * The folders actually written, when they differ from the path asked for (a name taken by a
   * concurrent run gets `-2`; several models get one folder each): what the console names.
   */
  written?: string[];
}

/** What an output format may need to know of a run before it starts. */
export interface RunShape {
  format: string;
  native?: NativeFacts;
  providers: number;
  repeat: number;
}

/** The run shape recorded in a run directory's manifest. */
export function runShapeOf(manifest: {
  suite: { format: string; native?: NativeFacts };
  providers: unknown[];
  options: { repeat: number };
}): RunShape {
  return {
    format: manifest.suite.format,
    native: manifest.suite.native,
    providers: manifest.providers.length,
    repeat: manifest.options.repeat,
  };
}

const formats = new Map<string, OutputFormat>();

/** Adds an output format (formats register their native outputs here). */
export function registerOutputFormat(format: OutputFormat): void {
  formats.set(format.name, format);
}

/** Every output format name. */
export function outputFormatNames(): string[] {
  return [...formats.keys()].sort();
}

/** Picks the format for `-o path` (by name, else by extension); throws an InputError (exit 2) if none fits. */
export function resolveOutputFormat(path: string, name?: string): OutputFormat {
  if (name) {
    const f = formats.get(name);
    if (!f)
      throw new InputError(
        `--output-format ${name}: unknown format; expected one of: ${outputFormatNames().join(', ')}`,
      );
    return f;
  }
  const ext = extname(path).slice(1).toLowerCase();
  for (const f of formats.values()) if (f.extensions.includes(ext)) return f;
  const known = [...formats.values()].flatMap((f) => f.extensions.map((e) => `.${e}`));
  throw new InputError(
    `-o ${path}: cannot tell the output format from the extension; expected ${known.join(', ')} (or --output-format NAME)`,
  );
}

/** Writes one output file from a finished run directory, streaming the results. Rejects if the file cannot be written. */
export async function writeOutput(
  runDir: string,
  scorecard: Scorecard,
  path: string,
  format: OutputFormat,
): Promise<OutputJudgement | undefined> {
  ensureDir(dirname(path));
  if (format.writeFolder) return format.writeFolder(runDir, scorecard, path);
  const write = format.write;
  if (!write) throw new Error(`output format ${format.name} writes nothing`);
  removeDeadTemporaries(path);
  // Written whole to a temporary file beside it, then renamed over it: a kill or a full disk
  // mid-write leaves the previous file as it was, never a truncated one that looks valid
  // (runlog/write-whole.ts, streamed).
  const tmp = temporaryFor(path);
  const out = createWriteStream(tmp);
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  // A stream error (EISDIR, EACCES, ENOSPC) must reject this call, not crash the process.
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => {});
  let done = false;
  try {
    await Promise.race([write(runDir, scorecard, out), failed]);
    out.end();
    await Promise.race([closed, failed]);
    renameSync(tmp, path);
    done = true;
  } finally {
    if (!out.closed) out.destroy();
    await closed;
    if (!done) rmSync(tmp, { force: true });
  }
  return undefined;
}

/** Writes a chunk, waiting when the stream's buffer is full, so memory stays bounded. */
async function put(out: WriteStream, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

registerOutputFormat({
  name: 'json',
  extensions: ['json'],
  description: "assay's JSON: {run, scorecard, results[]}",
  async write(runDir, scorecard, out) {
    // The file embeds the run as it will stand once this file is written.
    const { outputsPending: _pending, ...manifest } = readManifest(runDir);
    await put(
      out,
      `{\n"run": ${JSON.stringify(manifest)},\n"scorecard": ${JSON.stringify(scorecard)},\n"results": [`,
    );
    let first = true;
    for await (const line of resultLinesInPlanOrder(runDir)) {
      await put(out, `${first ? '\n' : ',\n'}${line}`);
      first = false;
    }
    await put(out, '\n]\n}\n');
  },
});

registerOutputFormat({
  name: 'jsonl',
  extensions: ['jsonl'],
  description: 'one job result per line',
  async write(runDir, _scorecard, out) {
    for await (const line of resultLinesInPlanOrder(runDir)) await put(out, `${line}\n`);
  },
});

const CSV_FIXED = [
  'key',
  'caseId',
  'description',
  'prompt',
  'provider',
  'trial',
  'status',
  'score',
  'output',
  'reason',
  'latencyMs',
];

/**
 * CSV rows of a run. Text that a spreadsheet program would run as a formula (a cell starting with
 * `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's CSV injection) is neutralised with a
 * leading `'`, unless `raw`. Numbers assay writes (trial, score, latency, numeric vars) stay numbers.
 */
async function writeCsv(runDir: string, out: WriteStream, raw: boolean): Promise<void> {
  const cell = raw ? csvCell : (value: unknown) => csvCell(neutralised(value));
  // Two passes over the log: the var columns must be known before the first row is written.
  const varNames = new Set<string>();
  for await (const line of resultLinesInPlanOrder(runDir)) {
    for (const k of Object.keys((JSON.parse(line) as JobResult).case.vars)) varNames.add(k);
  }
  const vars = [...varNames];
  await put(out, `${[...CSV_FIXED, ...vars.map((v) => `var:${v}`)].map(cell).join(',')}\r\n`);
  for await (const line of resultLinesInPlanOrder(runDir)) {
    await put(
      out,
      `${csvRow(JSON.parse(line) as JobResult, vars)
        .map(cell)
        .join(',')}\r\n`,
    );
  }
}

registerOutputFormat({
  name: 'csv',
  extensions: ['csv'],
  description:
    'one row per job: ids, status, score, output, reason, then one column per var (formula-like text neutralised)',
  write: (runDir, _scorecard, out) => writeCsv(runDir, out, false),
});

registerOutputFormat({
  name: 'csv-raw',
  extensions: [],
  description:
    'the csv rows with every text as written, formula-like text included (for programs, not spreadsheets)',
  write: (runDir, _scorecard, out) => writeCsv(runDir, out, true),
});

/** A cell value a spreadsheet will not run: text starting with = + - @ tab or CR gets a leading '. */
export function neutralised(value: unknown): unknown {
  if (typeof value === 'string') return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  // Objects are written as JSON, which starts with { or [: never a formula.
  return value;
}

function csvRow(r: JobResult, vars: string[]): unknown[] {
  return [
    r.key,
    r.caseId,
    r.case.description ?? '',
    r.promptLabel,
    r.providerId,
    r.trial,
    r.status,
    r.score,
    r.output ?? '',
    r.status === 'pass' ? '' : r.reason,
    r.answer.latencyMs,
    ...vars.map((v) => r.case.vars[v]),
  ];
}

/** One RFC 4180 cell: quoted when it holds a comma, quote or line break. */
export function csvCell(value: unknown): string {
  const s =
    value === undefined || value === null
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
