// promptfoo's eval command line, as assay takes it: `-p` prompts (with assay's old `-p PROVIDER`
// still understood), `--table` and its output grid, and the promptfoo flags that need a word.
import { existsSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { JobResult } from '../core/types.js';
import { isKnownProviderId } from '../providers/registry.js';
import { readResults } from '../runlog/reader.js';
import { intFlag } from './common.js';

/**
 * `-p` values split into prompt files (promptfoo's meaning) and provider ids: a value that names
 * no existing file but is a provider id assay knows is taken as `--provider`, with a warning, so
 * command lines written for assay's earlier `-p PROVIDER` keep working.
 */
export function promptsAndProviders(
  pValues: string[] | undefined,
  providerValues: string[],
): { prompts?: string[]; providers?: string[] } {
  const prompts: string[] = [];
  const providers = [...providerValues];
  for (const value of pValues ?? []) {
    if (!existsSync(value) && isKnownProviderId(value)) {
      process.stderr.write(
        `assay: warning: -p ${value}: no such file, taken as a provider (-p is promptfoo's --prompts; write -r ${value} or --provider ${value})\n`,
      );
      providers.push(value);
    } else prompts.push(value);
  }
  return {
    ...(prompts.length > 0 ? { prompts } : {}),
    ...(providers.length > 0 ? { providers } : {}),
  };
}

/** `-t FILE` or its alias `-v FILE` (promptfoo's `--vars`); both given is a mistake. */
export function testsFlag(values: { tests?: string; vars?: string }): string | undefined {
  if (values.tests !== undefined && values.vars !== undefined)
    throw new InputError('give -t (--tests) or -v (--vars), not both: they name the same test file');
  return values.tests ?? values.vars;
}

export interface TableOptions {
  cellMaxLength: number;
  maxRows: number;
}

/**
 * `--table`/`--no-table` (the last given wins, as in promptfoo) and `--table-cell-max-length`;
 * undefined when no grid is asked for (assay's default: the summary alone).
 */
export function tableFlag(args: string[], cellMax: string | undefined): TableOptions | undefined {
  const last = args.findLast((a) => a === '--table' || a === '--no-table');
  const cellMaxLength = intFlag('table-cell-max-length', cellMax, 1) ?? 250;
  return last === '--table' ? { cellMaxLength, maxRows: 25 } : undefined;
}

/** Cut to `max` characters, the last three being "...", as promptfoo's grid cuts its cells. */
function ellipsize(text: string, max: number): string {
  if (text.length <= max) return text;
  return max < 3 ? text.slice(0, max) : `${text.slice(0, max - 3)}...`;
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One result's cell, as promptfoo fills it: [PASS] or [FAIL] and the output; [ERROR] and the error. */
function outputCell(r: JobResult, max: number): string {
  if (r.status === 'error') return `[ERROR] ${ellipsize(r.error ?? r.reason ?? r.output ?? '', max)}`;
  return `${r.status === 'pass' ? '[PASS]' : '[FAIL]'} ${ellipsize(r.output ?? '', max)}`;
}

/** A cell's text broken into lines of at most `width` characters, at spaces where it can. */
function wrapCell(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    // A model's escape sequences and bidi overrides are shown, never sent to the terminal raw.
    let rest = printable(raw.replace(/\t/g, ' '));
    while (rest.length > width) {
      const space = rest.lastIndexOf(' ', width);
      const cut = space > 0 ? space : width;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut).replace(/^ /, '');
    }
    lines.push(rest);
  }
  return lines;
}

/**
 * promptfoo's per-test output grid of a finished run: a column per var, then one per prompt ×
 * provider (`[provider] prompt`), one row per test (its first trial), the first `maxRows` tests.
 */
export async function renderTable(runDir: string, options: TableOptions, columns?: number): Promise<string> {
  const varNames: string[] = [];
  const heads: string[] = [];
  const rows = new Map<number, { vars: Record<string, unknown>; cells: Map<string, string> }>();
  for await (const r of readResults(runDir)) {
    if (r.trial !== 0) continue;
    const head = `[${r.providerId}] ${r.promptLabel}`;
    if (!heads.includes(head)) heads.push(head);
    for (const k of Object.keys(r.case.vars)) if (!varNames.includes(k)) varNames.push(k);
    let row = rows.get(r.caseIndex);
    if (!row) {
      row = { vars: r.case.vars, cells: new Map() };
      rows.set(r.caseIndex, row);
    }
    row.cells.set(head, outputCell(r, options.cellMaxLength));
  }
  if (heads.length === 0) return '';
  const max = options.cellMaxLength;
  const header = [...varNames, ...heads].map((h) => ellipsize(h, max));
  const ordered = [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row);
  const body = ordered
    .slice(0, options.maxRows)
    .map((row) => [
      ...varNames.map((k) => ellipsize(cellText(row.vars[k]), max)),
      ...heads.map((h) => row.cells.get(h) ?? ''),
    ]);
  const total = Math.max(20, (columns ?? (process.stdout.isTTY ? process.stdout.columns - 10 : 120)) || 120);
  // Each column is the width's equal share, one space of padding either side (promptfoo's layout).
  const colWidth = Math.max(5, Math.floor(total / header.length));
  const inner = colWidth - 2;
  const rule = (l: string, m: string, r: string): string =>
    `${l}${header.map(() => '─'.repeat(colWidth)).join(m)}${r}\n`;
  const line = (cells: string[]): string => {
    const wrapped = cells.map((c) => wrapCell(c, inner));
    const height = Math.max(...wrapped.map((w) => w.length));
    let out = '';
    for (let i = 0; i < height; i++)
      out += `│${wrapped.map((w) => ` ${(w[i] ?? '').padEnd(inner)} `).join('│')}│\n`;
    return out;
  };
  let out = `\n${rule('┌', '┬', '┐')}${line(header)}`;
  for (const cells of body) out += `${rule('├', '┼', '┤')}${line(cells)}`;
  out += rule('└', '┴', '┘');
  const left = ordered.length - options.maxRows;
  if (left > 0) out += `... ${left} more row${left === 1 ? '' : 's'} not shown ...\n`;
  return `${out}\n`;
}
