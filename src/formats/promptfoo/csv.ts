// CSV test files (spec §3): parsing with promptfoo's options, and the column rules that turn a
// row into a promptfoo test case (`__expected*`, `__config:…`, `__metadata:…`, …).
import { parse } from 'csv-parse/sync';
import { errorAt, type LoadContext, warnAt } from './context.js';
import { plainCsvRecords } from './csv-fast.js';
import { assertionFromString, type RawAssertion, ROW_KEY } from './expected.js';
import type { Where } from './source.js';

/** One data row with the line it starts on. */
export interface CsvRow {
  entries: [string, unknown][];
  where: Where;
  /** Where the header is, for warnings about a column rather than a row. */
  header?: Where;
}

/**
 * Parses CSV text into rows keyed by header. Strict quoting first, then relaxed quotes (as
 * promptfoo does unless PROMPTFOO_CSV_STRICT is set). Reports a parse error and returns [].
 */
export function parseCsvRows(ctx: LoadContext, text: string, file: string): CsvRow[] {
  const delimiter = ctx.env.PROMPTFOO_CSV_DELIMITER || ',';
  const strict = ctx.env.PROMPTFOO_CSV_STRICT === 'true';
  const headerWhere = { file, line: 1 };
  // Each record becomes its row as it is parsed, so csv-parse's records never pile up (at 100k
  // rows they held tens of MB while the rest of the suite was built).
  const run = (relax: boolean): CsvRow[] => {
    const rows: CsvRow[] = [];
    let columns: string[] | undefined;
    let previousEnd = 0;
    parse(text, {
      bom: true,
      delimiter,
      relax_quotes: relax,
      on_record: (record: string[], info: { lines: number }) => {
        if (columns === undefined) columns = record;
        else {
          // csv-parse reports where a record ends; it starts on the line after the previous one.
          rows.push(csvRow(columns, record, { file, line: previousEnd + 1 }, headerWhere));
        }
        previousEnd = info.lines;
        return null;
      },
    });
    return rows;
  };
  // Most test files are plain (one record a line): split without csv-parse, the same records.
  const plain = plainCsvRecords(text, delimiter);
  if (plain) {
    const rows: CsvRow[] = [];
    const columns = plain[0]?.record;
    for (let i = 1; i < plain.length; i++)
      rows.push(csvRow(columns, plain[i].record, { file, line: plain[i - 1].end + 1 }, headerWhere));
    return rows;
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
        threshold = Number.parseFloat(value);
        continue;
      case '__metadata':
        once(
          key,
          'The "__metadata" column requires a key, e.g. "__metadata:category". This column will be ignored.',
        );
        continue;
    }
    if (key.startsWith('__metadata:')) {
      const name = key.slice('__metadata:'.length);
      if (value.trim() === '') continue;
      if (name.endsWith('[]')) {
        metadata[name.slice(0, -2)] = value
          .split(/(?<!\\),/)
          .map((item) => item.trim())
          .map((item) => item.replace('\\,', ','));
      } else metadata[name] = value;
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
  if (threshold) test.threshold = threshold;
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
  const parsed = Number.parseFloat(value);
  if (!Number.isFinite(parsed)) {
    errorAt(ctx, where, `Invalid numeric value "${value}" for config key "${configKey}" in column "${key}"`);
    return;
  }
  const existing = configs.get(index) ?? {};
  existing[configKey] = parsed;
  configs.set(index, existing);
}
