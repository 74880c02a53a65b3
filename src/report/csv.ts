// `-o FILE.csv`: one row per job. Text that a spreadsheet program would run as a formula is
// neutralised unless the `raw` option is asked for (`--output-format csv-raw`).
import type { JobResult } from '../core/types.js';
import { registerOutputFormat } from './outputs.js';

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

registerOutputFormat({
  name: 'csv',
  layout: 'file',
  extensions: ['csv'],
  aliases: { 'csv-raw': { raw: true } },
  description:
    'one row per job: ids, status, score, output, reason, then one column per var (formula-like text neutralised; csv-raw: every text as written, for programs, not spreadsheets)',
  /**
   * CSV rows of a run. Text that a spreadsheet program would run as a formula (a cell starting with
   * `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's CSV injection) is neutralised with a
   * leading `'`, unless `raw`. Numbers assay writes (trial, score, latency, numeric vars) stay numbers.
   */
  async write(run, out) {
    const cell = out.options.raw === true ? csvCell : (value: unknown) => csvCell(neutralised(value));
    // Two passes over the log: the var columns must be known before the first row is written.
    const varNames = new Set<string>();
    for await (const r of run.results()) for (const k of Object.keys(r.case.vars)) varNames.add(k);
    const vars = [...varNames];
    await out.write(`${[...CSV_FIXED, ...vars.map((v) => `var:${v}`)].map(cell).join(',')}\r\n`);
    for await (const r of run.results()) await out.write(`${csvRow(r, vars).map(cell).join(',')}\r\n`);
  },
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
