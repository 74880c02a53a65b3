// CSV test files (spec §3): parsing with promptfoo's options, and the column rules that turn a
// row into a promptfoo test case (`__expected*`, `__config:…`, `__metadata:…`, …).
import type { AssertionSpec } from '../../core/types.js';
import { cellAssertion } from './assertions.js';
import { errorAt, type LoadContext, warnAt } from './context.js';
import { plainCsvRecords } from './csv-fast.js';
import { parseCsvSync } from './csv-parse-lib.js';
import { assertionFromString, type RawAssertion, ROW_KEY } from './expected.js';
import type { ParsedTest, PreparsedTest } from './parsed-test.js';
import { fixedLocator, type Locate, type RawTest, type Where, within } from './source.js';

/** One data row with the line it starts on. */
export interface CsvRow {
  entries: [string, unknown][];
  where: Where;
  /** Where the header is, for warnings about a column rather than a row. */
  header?: Where;
}

/**
 * Parses CSV text into tests, one a data row (see {@link CsvRowTests}). Strict quoting first, then
 * relaxed quotes (as promptfoo does unless PROMPTFOO_CSV_STRICT is set). Reports a parse error and
 * returns []. `general`: every row the general way (for the tests that hold both ways equal).
 */
export function csvTextTests(
  ctx: LoadContext,
  text: string,
  file: string,
  opts: { general?: boolean } = {},
): RawTest[] {
  const delimiter = ctx.env.PROMPTFOO_CSV_DELIMITER || ',';
  const strict = ctx.env.PROMPTFOO_CSV_STRICT === 'true';
  const headerWhere = { file, line: 1 };
  // The records are kept (not csv-parse's row objects) and become tests once the parse has
  // succeeded: a strict parse that fails part way must not have warned about the rows it read.
  const run = (relax: boolean): RawTest[] => {
    const records: { record: string[]; where: Where }[] = [];
    let previousEnd = 0;
    parseCsvSync(text, {
      bom: true,
      delimiter,
      relax_quotes: relax,
      on_record: (record: string[], info: { lines: number }) => {
        // csv-parse reports where a record ends; it starts on the line after the previous one.
        records.push({ record, where: { file, line: previousEnd + 1 } });
        previousEnd = info.lines;
        return null;
      },
    });
    if (records.length === 0) return [];
    const rows = new CsvRowTests(ctx, records[0].record, headerWhere, opts);
    const tests: RawTest[] = [];
    for (let i = 1; i < records.length; i++) tests.push(rows.test(records[i].record, records[i].where));
    return tests;
  };
  // Most test files are plain (one record a line): split without csv-parse, the same records.
  const plain = plainCsvRecords(text, delimiter);
  if (plain) {
    const tests: RawTest[] = [];
    if (plain.length === 0) return tests;
    const rows = new CsvRowTests(ctx, plain[0].record, headerWhere, opts);
    for (let i = 1; i < plain.length; i++)
      tests.push(rows.test(plain[i].record, { file, line: plain[i - 1].end + 1 }));
    return tests;
  }
  try {
    try {
      return run(false);
    } catch (err) {
      if (strict) throw err;
      return run(true);
    }
  } catch (err) {
    const e = err as Error & { lines?: number };
    errorAt(ctx, { file, line: e.lines }, `invalid CSV: ${e.message.replace(/ on line \d+$/, '')}`);
    return [];
  }
}

/**
 * The tests of one CSV file's data rows, in order, with promptfoo's `Row #n` default descriptions.
 * The header is analysed once: when every column is a var, an `__expected…`, `__description` or
 * `__metadata:name` column (no repeated name, nothing a row could warn about), each row is
 * a {@link PlainRowTest} that builds only its vars and takes its assertions from a cache keyed by
 * the cell's text. Any other header goes the general way ({@link testFromCsvRow}, then parseTest).
 */
export class CsvRowTests {
  /** The plain header's layout, or undefined when rows go the general way. */
  readonly plain: PlainHeader | undefined;
  private rows = 0;
  private readonly warnings: CsvWarnings = { seen: new Set() };
  /** Per `__expected` column: the last row's cell and its shared (frozen) assertion, and their load. */
  readonly lastCells: string[] = [];
  readonly lastSpecs: AssertionSpec[] = [];
  lastCtx: LoadContext | undefined;

  constructor(
    readonly ctx: LoadContext,
    readonly columns: string[],
    readonly header: Where,
    opts: { general?: boolean } = {},
  ) {
    this.plain = opts.general ? undefined : plainHeader(columns);
  }

  /** The test of the next data row (`where`: the line it starts on). */
  test(record: string[], where: Where): RawTest {
    const n = ++this.rows;
    if (this.plain) return new PlainRowTest(this, this.plain, record, where, n);
    return { value: this.generalTest(record, where, n), at: fixedLocator(where) };
  }

  /** The promptfoo test case of row `n` as {@link testFromCsvRow} builds it. */
  generalTest(record: string[], where: Where, n: number): Record<string, unknown> {
    const test = testFromCsvRow(this.ctx, csvRow(this.columns, record, where, this.header), this.warnings);
    test.description ||= `Row #${n}`;
    return test;
  }
}

/** Where a plain header's columns are (see {@link CsvRowTests}). */
interface PlainHeader {
  varNames: string[];
  varColumns: number[];
  expected: number[];
  description: number;
  metadata: { name: string; column: number }[];
}

/** Columns testFromCsvRow gives a meaning that a plain row does not handle. */
const GENERAL_COLUMNS = new Set([
  '__prefix',
  '__suffix',
  '__providerOutput',
  '__metric',
  '__threshold',
  '__metadata',
]);

/** The layout of a header whose rows can skip the general path, or undefined. */
function plainHeader(columns: string[]): PlainHeader | undefined {
  const names = columns.map((c) => c.trim());
  // A repeated name (before or after trimming) keeps its first position and last value: general.
  if (new Set(names).size !== names.length) return undefined;
  const out: PlainHeader = { varNames: [], varColumns: [], expected: [], description: -1, metadata: [] };
  for (const [column, name] of names.entries()) {
    if (!name.startsWith('__') && SINGLE_UNDERSCORE.some((s) => name.startsWith(s))) return undefined;
    if (name.startsWith('__expected')) out.expected.push(column);
    else if (name === '__description') out.description = column;
    else if (name.startsWith('__metadata:'))
      out.metadata.push({ name: name.slice('__metadata:'.length), column });
    else if (GENERAL_COLUMNS.has(name) || name.startsWith('__config:')) return undefined;
    // parseTest warns about a var named `assert` (once a load): the general way says it.
    else if (name === 'assert') return undefined;
    else {
      out.varNames.push(name);
      out.varColumns.push(column);
    }
  }
  return out;
}

/**
 * A data row under a plain header: {@link parsed} gives the ParsedTest parseTest gives for the
 * row's promptfoo test case, without building that case; {@link value} builds it (for anyone
 * who asks, and for the tests that hold both ways equal).
 */
export class PlainRowTest implements PreparsedTest {
  readonly at: Locate;

  constructor(
    private readonly rows: CsvRowTests,
    private readonly header: PlainHeader,
    private readonly record: string[],
    private readonly where: Where,
    private readonly n: number,
  ) {
    this.at = fixedLocator(where);
  }

  get value(): Record<string, unknown> {
    return this.rows.generalTest(this.record, this.where, this.n);
  }

  /** What parseTest gives for {@link value}; `name` is promptfoo's name for the test (`tests[3]`). */
  parsed(ctx: LoadContext, name: string): ParsedTest {
    const { header, record } = this;
    const vars: Record<string, unknown> = {};
    for (let i = 0; i < header.varNames.length; i++)
      vars[header.varNames[i]] = record[header.varColumns[i]] ?? '';
    const asserts: AssertionSpec[] = [];
    let assertAt: Locate | undefined;
    let raw = 0;
    const rows = this.rows;
    if (rows.lastCtx !== ctx) {
      rows.lastCtx = ctx;
      rows.lastCells.length = 0;
      rows.lastSpecs.length = 0;
    }
    for (let k = 0; k < header.expected.length; k++) {
      const cell = (record[header.expected[k]] ?? '').trim();
      if (cell === '') continue;
      // The cell the row above had in this column (a column that repeats one check): its assertion.
      if (cell === rows.lastCells[k]) {
        asserts.push(rows.lastSpecs[k]);
        raw++;
        continue;
      }
      assertAt ??= within(this.at, ['assert']);
      const spec = cellAssertion(ctx, cell, assertAt, raw++, `${name}.assert`);
      if (spec) asserts.push(spec);
      // Only a shared assertion (parsed without a problem) stands for the next row's equal cell.
      if (spec && Object.isFrozen(spec)) {
        rows.lastCells[k] = cell;
        rows.lastSpecs[k] = spec;
      } else rows.lastCells[k] = '';
    }
    const description = header.description >= 0 ? (record[header.description] ?? '') : '';
    const test: ParsedTest = {
      options: {},
      gradingOptions: {},
      at: this.at,
      description: description || `Row #${this.n}`,
      vars,
      asserts,
    };
    if (header.metadata.length > 0) {
      const metadata: Record<string, unknown> = {};
      for (const { name: key, column } of header.metadata) setMetadata(metadata, key, record[column] ?? '');
      if (Object.keys(metadata).length > 0) test.metadata = metadata;
    }
    test.providers = undefined;
    test.prompts = undefined;
    return test;
  }
}

/** A `__metadata:name` cell into the test's metadata (`name[]`: a list split at unescaped commas). */
function setMetadata(metadata: Record<string, unknown>, name: string, value: string): void {
  if (value.trim() === '') return;
  if (name.endsWith('[]')) {
    metadata[name.slice(0, -2)] = value
      .split(/(?<!\\),/)
      .map((item) => item.trim())
      .map((item) => item.replaceAll('\\,', ','));
  } else metadata[name] = value;
}

export function csvRow(columns: string[], record: string[], where: Where, header: Where): CsvRow {
  // Like csv-parse's `columns: true`: a repeated header keeps its first position, last value.
  const row = new Map<string, string>();
  columns.forEach((name, i) => {
    row.set(name, record[i] ?? '');
  });
  return {
    entries: [...row.entries()].map(([k, v]) => [k.trim(), v] as [string, unknown]),
    where,
    header,
  };
}

const SINGLE_UNDERSCORE = [
  'expected',
  'prefix',
  'suffix',
  'description',
  'providerOutput',
  'metric',
  'threshold',
  'metadata',
  'config',
].map((k) => `_${k}`);

/** State shared by all rows of one file, so each warning is given once. */
export interface CsvWarnings {
  seen: Set<string>;
}

/**
 * A `__threshold` or `__config` cell as promptfoo 0.123.1 reads it: the trimmed text must be a
 * whole decimal number (`0`, `.5`, `-1e-3`); anything else (`0.5abc`, `Infinity`, blank) is no
 * number. A `0` is a number (the test's threshold then is 0).
 */
function csvNumber(value: string): number | undefined {
  const trimmed = value.trim();
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/**
 * Applies promptfoo's CSV column rules to one row, returning a promptfoo test case. Load errors
 * (bad `__config` columns) are reported at the row.
 */
export function testFromCsvRow(
  ctx: LoadContext,
  row: CsvRow,
  warnings: CsvWarnings,
): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  const asserts: RawAssertion[] = [];
  const cells: string[] = [];
  const options: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  const configs = new Map<number, Record<string, number>>();
  let description: string | undefined;
  let providerOutput: string | undefined;
  let metric: string | undefined;
  let threshold: number | undefined;
  const once = (key: string, message: string) => {
    if (warnings.seen.has(key)) return;
    warnings.seen.add(key);
    warnAt(ctx, row.header ?? row.where, message);
  };

  for (const [key, rawValue] of row.entries) {
    if (!key.startsWith('__') && SINGLE_UNDERSCORE.some((s) => key.startsWith(s))) {
      once(
        key,
        `You used a single underscore for the key "${key}". Did you mean to use "${key.replace('_', '__')}" instead?`,
      );
    }
    const value = text(rawValue);
    if (key.startsWith('__expected')) {
      const cell = value.trim();
      if (cell !== '') {
        asserts.push(assertionFromString(cell));
        cells.push(cell);
      }
      continue;
    }
    switch (key) {
      case '__prefix':
        options.prefix = value;
        continue;
      case '__suffix':
        options.suffix = value;
        continue;
      case '__description':
        description = value;
        continue;
      case '__providerOutput':
        providerOutput = value;
        continue;
      case '__metric':
        metric = value;
        continue;
      case '__threshold':
        threshold = csvNumber(value);
        continue;
      case '__metadata':
        once(
          key,
          'The "__metadata" column requires a key, e.g. "__metadata:category". This column will be ignored.',
        );
        continue;
    }
    if (key.startsWith('__metadata:')) {
      setMetadata(metadata, key.slice('__metadata:'.length), value);
      continue;
    }
    if (key.startsWith('__config:')) {
      applyConfigColumn(ctx, row.where, key, value, configs, once);
      continue;
    }
    vars[key] = rawValue;
  }

  asserts.forEach((assertion, index) => {
    // promptfoo sets the metric even when the cell is blank; a blank metric names nothing.
    if (metric) assertion.metric = metric;
    const config = configs.get(index);
    for (const [configKey, configValue] of Object.entries(config ?? {})) {
      assertion[configKey] = configValue;
      metadata[configKey] = configValue;
    }
    // Everything the assertion was built from, so equal keys mean equal assertions.
    assertion[ROW_KEY] = `${cells[index]}\u0000${metric || ''}\u0000${config ? JSON.stringify(config) : ''}`;
  });
  const test: Record<string, unknown> = { vars, assert: asserts, options };
  if (description) test.description = description;
  if (providerOutput) test.providerOutput = providerOutput;
  if (threshold !== undefined) test.threshold = threshold;
  if (Object.keys(metadata).length > 0) test.metadata = metadata;
  return test;
}

function applyConfigColumn(
  ctx: LoadContext,
  where: Where,
  key: string,
  value: string,
  configs: Map<number, Record<string, number>>,
  once: (key: string, message: string) => void,
): void {
  const parts = key.slice('__config:'.length).split(':');
  if (parts.length !== 2) {
    once(
      key,
      `Invalid __config column format: "${key}". Expected format: __config:__expected:threshold or __config:__expected<N>:threshold`,
    );
    return;
  }
  const [expectedKey, configKey] = parts;
  const indexMatch = /^__expected(\d+)$/.exec(expectedKey);
  const index =
    expectedKey === '__expected' ? 0 : indexMatch ? Number.parseInt(indexMatch[1], 10) - 1 : undefined;
  if (index === undefined) {
    errorAt(
      ctx,
      where,
      `Invalid expected key "${expectedKey}" in __config column "${key}". Must be __expected or __expected<N> where N is a positive integer.`,
    );
    return;
  }
  if (configKey !== 'threshold') {
    errorAt(
      ctx,
      where,
      `Invalid config key "${configKey}" in __config column "${key}". Valid config keys include: threshold`,
    );
    return;
  }
  const parsed = csvNumber(value);
  if (parsed === undefined) {
    errorAt(ctx, where, `Invalid numeric value "${value}" for config key "${configKey}" in column "${key}"`);
    return;
  }
  const existing = configs.get(index) ?? {};
  existing[configKey] = parsed;
  configs.set(index, existing);
}
