// Test files read a piece at a time (CSV and JSONL): a suite whose tests are all in such files can
// be streamed, its rows read again on each pass instead of held (DESIGN: a run streams). These
// readers give the same tests, descriptions and diagnostics as test-files.ts gives for the file read
// whole.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { utf16Problem } from '../../core/encoding.js';
import { jsonProblem } from '../../core/positions.js';
import { brief, errorAt, isRecord, type LoadContext } from './context.js';
import { CsvRowTests } from './csv.js';
import { type CsvRecord, PlainCsvSplitter, plainDelimiter } from './csv-fast.js';
import { csvParser } from './csv-parse-lib.js';
import { globFiles, isGlobPattern } from './glob.js';
import { dereferenced } from './json-refs.js';
import { remoteSourceProblem } from './remote-sources.js';
import { displayPath, fixedLocator, type Locate, type RawTest, type Where, YamlFile } from './source.js';

/** One CSV or JSONL file of tests, as a `tests` entry names it. */
export interface RowFile {
  abs: string;
  kind: 'csv' | 'jsonl';
  /** Read by promptfoo's standalone reader (a JSONL row's description is then `Row #n`). */
  standalone: boolean;
  where: Where;
  /** Its size in bytes, when it was found. */
  bytes: number;
  /** CSV: whether quotes are read relaxed (decided on the first pass, as promptfoo retries). */
  relax?: boolean;
}

/** Files smaller than this (in all) are read whole: streaming pays only for big suites. */
export const STREAM_ABOVE_BYTES = 4 * 1024 * 1024;

/**
 * The row files a config's `tests` names, when it names nothing else: a string or a list of
 * strings, each a local `.csv` or `.jsonl` file (or a glob of them) read without a generator, a
 * sheet or a function name. Undefined for any other form, which is then read whole.
 */
export function rowFilesOf(ctx: LoadContext, value: unknown, at: Locate): RowFile[] | undefined {
  const entries = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (!entries || entries.length === 0) return undefined;
  const out: RowFile[] = [];
  for (const [i, entry] of entries.entries()) {
    if (typeof entry !== 'string' || remoteSourceProblem(entry)) return undefined;
    const path = entry.startsWith('file://') ? entry.slice('file://'.length) : entry;
    // A colon is a function name, a sheet or a URL: those go the general way.
    if (path.includes(':') || /ya?ml$/.test(entry)) return undefined;
    const files = isGlobPattern(path) ? globFiles(path, ctx.files.basePath) : [ctx.files.resolve(path)];
    if (files.length === 0) return undefined;
    for (const abs of files) {
      const ext = extname(abs).toLowerCase();
      if (ext !== '.csv' && ext !== '.jsonl') return undefined;
      let bytes: number;
      try {
        const stat = statSync(abs);
        if (!stat.isFile()) return undefined;
        bytes = stat.size;
      } catch {
        return undefined;
      }
      out.push({
        abs,
        bytes,
        kind: ext === '.csv' ? 'csv' : 'jsonl',
        // A single string goes to promptfoo's standalone reader; list entries are globbed.
        standalone: typeof value === 'string',
        where: typeof value === 'string' ? at() : at([i]),
      });
    }
  }
  return out;
}

/** The total size of the files in bytes. */
export function totalBytes(files: RowFile[]): number {
  let n = 0;
  for (const f of files) n += f.bytes;
  return n;
}

const CHUNK = 1 << 20;

/**
 * A file's bytes a chunk at a time. Each chunk is a buffer of its own: csv-parse keeps the end of
 * one chunk (a row still open) by reference while it parses the next.
 */
function* chunks(abs: string): Generator<Buffer> {
  const fd = openSync(abs, 'r');
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) return;
      yield buffer.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** The tests of one row file, in order; problems go to `ctx` (a later pass gives a context nobody reads). */
export function* rowFileTests(ctx: LoadContext, file: RowFile): Generator<RawTest> {
  if (file.kind === 'csv') yield* csvFileTests(ctx, file);
  else yield* jsonlFileTests(ctx, file);
}

/** A CSV file's rows as tests, parsed a chunk at a time with promptfoo's options. */
function* csvFileTests(ctx: LoadContext, file: RowFile): Generator<RawTest> {
  const name = displayPath(file.abs);
  const header = { file: name, line: 1 };
  const delimiter = ctx.env.PROMPTFOO_CSV_DELIMITER || ',';
  const strictOnly = ctx.env.PROMPTFOO_CSV_STRICT === 'true';
  try {
    // promptfoo parses strictly, then with relaxed quotes unless PROMPTFOO_CSV_STRICT is set. With
    // it set, a file that is not strict CSV gives its error before any row, so that is found first.
    if (strictOnly && file.relax === undefined) decideRelax(file, delimiter, true);
    let rows: CsvRowTests | undefined;
    let previousEnd = 0;
    for (const { record, end } of csvFileRecords(file, delimiter, strictOnly)) {
      if (rows === undefined) rows = new CsvRowTests(ctx, record, header);
      // csv-parse reports where a record ends; it starts on the line after the previous one.
      else yield rows.test(record, { file: name, line: previousEnd + 1 });
      previousEnd = end;
    }
  } catch (err) {
    if (err instanceof CsvFileError) {
      errorAt(ctx, file.where, `test file ${ctx.files.relative(file.abs)}: ${err.message}`);
      return;
    }
    const e = err as Error & { lines?: number };
    errorAt(ctx, { file: name, line: e.lines }, `invalid CSV: ${e.message.replace(/ on line \d+$/, '')}`);
  }
}

/**
 * Whether the file's quotes are read relaxed: promptfoo's rule, a strict parse first (parsing
 * only) and relaxed quotes where it fails, unless `strictOnly`; then a failure is thrown.
 */
function decideRelax(file: RowFile, delimiter: string, strictOnly: boolean): boolean {
  if (file.relax === undefined) {
    try {
      for (const _ of csvRecords(file.abs, delimiter, false));
      file.relax = false;
    } catch (err) {
      if (strictOnly || err instanceof CsvFileError) throw err;
      file.relax = true;
    }
  }
  return file.relax;
}

/**
 * A CSV file's records (header first) as csv-parse reads them with promptfoo's options: the plain
 * splitter reads what it can (usually all); from the first record it cannot read, csv-parse reads
 * the file again, strict or relaxed as promptfoo decides, and gives the records from there on (the
 * records before it are the same either way).
 */
function* csvFileRecords(file: RowFile, delimiter: string, strictOnly: boolean): Generator<CsvRecord> {
  let done = 0;
  if (plainDelimiter(delimiter)) {
    const splitter = new PlainCsvSplitter(delimiter);
    const records: CsvRecord[] = [];
    let plain = true;
    let first = true;
    for (const chunk of chunks(file.abs)) {
      if (first) {
        first = false;
        const utf16 = utf16Problem(chunk);
        if (utf16) throw new CsvFileError(utf16);
      }
      plain = splitter.push(chunk, records);
      yield* records;
      records.length = 0;
      if (!plain) break;
    }
    if (plain) {
      plain = splitter.end(records);
      yield* records;
      if (plain) return;
    }
    done = splitter.records;
  }
  const relax = decideRelax(file, delimiter, strictOnly);
  for (const record of csvRecords(file.abs, delimiter, relax)) {
    if (done > 0) done--;
    else yield record;
  }
}

/** A CSV file's records (header first), each with the line it ends on; throws what csv-parse throws. */
function* csvRecords(abs: string, delimiter: string, relax: boolean): Generator<CsvRecord> {
  const api = (csvParser({ bom: true, delimiter, relax_quotes: relax }) as unknown as { api: CsvApi }).api;
  const records: CsvRecord[] = [];
  const push = (record: string[]): void => {
    records.push({ record, end: api.info.lines });
  };
  const close = (): void => {};
  let first = true;
  for (const chunk of chunks(abs)) {
    if (first) {
      first = false;
      const utf16 = utf16Problem(chunk);
      if (utf16) throw new CsvFileError(utf16);
    }
    const err = api.parse(chunk, false, push, close);
    if (err) throw err;
    yield* records;
    records.length = 0;
  }
  const err = api.parse(undefined, true, push, close);
  if (err) throw err;
  yield* records;
}

/** A file that cannot be read as text at all (UTF-16). */
class CsvFileError extends Error {}

/** The part of csv-parse's parser that takes chunks (its stream wrapper's `api`). */
interface CsvApi {
  info: { lines: number };
  parse(
    chunk: Buffer | undefined,
    end: boolean,
    push: (record: string[]) => void,
    close: () => void,
  ): Error | undefined;
}

/** A JSONL file's lines as tests (one a non-empty line), read a chunk at a time. */
function* jsonlFileTests(ctx: LoadContext, file: RowFile): Generator<RawTest> {
  const name = displayPath(file.abs);
  const baseDir = dirname(file.abs);
  let lineNo = 0;
  let row = 0;
  let parts: Buffer[] = [];
  let first = true;
  const one = (bytes: Buffer): RawTest | undefined => {
    lineNo++;
    const line = bytes.toString('utf8');
    if (!line.trim()) return undefined;
    const at = fixedLocator({ file: name, line: lineNo });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const problem = jsonProblem(line);
      errorAt(ctx, { file: name, line: lineNo, col: problem?.col }, problem?.message ?? 'invalid JSON');
      return undefined;
    }
    // A line's `$ref`s point into the line itself (each line is its own JSON document).
    if (line.includes('"$ref"'))
      value = dereferenced(ctx, new YamlFile(name, line, { json: true }), file.abs);
    if (!isRecord(value)) {
      errorAt(ctx, at(), `the test case on line ${lineNo} of ${name} must be an object, got ${brief(value)}`);
      return undefined;
    }
    row++;
    // The single-string form overwrites any description (spec §1.4).
    return { value: file.standalone ? { ...value, description: `Row #${row}` } : value, at, baseDir };
  };
  for (const chunk of chunks(file.abs)) {
    if (first) {
      first = false;
      const utf16 = utf16Problem(chunk);
      if (utf16) {
        errorAt(ctx, file.where, `test file ${ctx.files.relative(file.abs)}: ${utf16}`);
        return;
      }
    }
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, nl);
      const line = parts.length > 0 ? Buffer.concat([...parts, piece]) : piece;
      parts = [];
      from = nl + 1;
      const test = one(line);
      if (test) yield test;
    }
    if (from < chunk.length) parts.push(chunk.subarray(from));
  }
  if (parts.length > 0) {
    const test = one(Buffer.concat(parts));
    if (test) yield test;
  }
}
