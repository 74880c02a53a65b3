/**
 * The bench's memory: each row's assay figures against the same row of the last full RESULTS.md,
 * so a change that makes any row more than 10% slower is called out in the summary (the last
 * batch of features doubled echo 10k/100k unnoticed).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Row } from './report.js';

/** A row is called out when its median wall or CPU grew by more than this share. */
export const SLOWER_BY = 0.1;

/** One row's figures as an earlier RESULTS.md gave them. */
export interface EarlierFigures {
  tests: number;
  wallS: number;
  cpuS: number | undefined;
}

/** The assay figures of every row of a RESULTS.md results table, by workload name, and its date. */
export function earlierFigures(
  file: string,
): { date: string; rows: Map<string, EarlierFigures> } | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const date = /\bon (\d{4}-\d\d-\d\dT[\d:]+Z)/.exec(text)?.[1] ?? 'an earlier run';
  const rows = new Map<string, EarlierFigures>();
  for (const line of text.split('\n')) {
    // | name: title | tests | wall (min–max, n) | RSS | CPU | …
    const cells = line.split(' | ');
    const name = /^\| ([\w-]+): /.exec(cells[0] ?? '')?.[1];
    if (!name || cells.length < 5) continue;
    const wallS = Number.parseFloat(cells[2]);
    const cpuS = Number.parseFloat(cells[4]);
    const tests = Number(cells[1].replace(/,/g, '')) || 0;
    if (Number.isFinite(wallS))
      rows.set(name, { tests, wallS, cpuS: Number.isFinite(cpuS) ? cpuS : undefined });
  }
  return { date, rows };
}

/** What grew by more than 10% since `file` was written, as lines for the console and RESULTS.md. */
export function slowerThanBefore(rows: Row[], file: string): { text: string; slower: string[] } {
  const before = earlierFigures(file);
  if (!before) return { text: `No earlier ${file} to compare with.`, slower: [] };
  const slower: string[] = [];
  let compared = 0;
  for (const r of rows) {
    const was = before.rows.get(r.w.name);
    const now = r.assay;
    // Only like with like: a --quick row has other sizes than the full run's.
    if (!was || was.tests !== r.w.tests || now.wallMedian === undefined || now.skipped) continue;
    compared++;
    const grew = (a: number, b: number | undefined): boolean => b !== undefined && a > b * (1 + SLOWER_BY);
    const parts: string[] = [];
    if (grew(now.wallMedian, was.wallS))
      parts.push(`wall ${was.wallS} → ${now.wallMedian.toFixed(3)} s (+${pct(now.wallMedian, was.wallS)}%)`);
    if (now.cpuMedian !== undefined && grew(now.cpuMedian, was.cpuS))
      parts.push(`CPU ${was.cpuS} → ${now.cpuMedian.toFixed(2)} s (+${pct(now.cpuMedian, was.cpuS!)}%)`);
    if (parts.length) slower.push(`- ⚠ ${r.w.name}: ${parts.join(', ')}`);
  }
  const head = `Against the last full RESULTS.md (${before.date}; ${compared} row(s) compared; a row is called out when its median wall or CPU grew by more than ${SLOWER_BY * 100}%; the machine's load is in each row's notes):`;
  return {
    text: slower.length ? `${head}\n${slower.join('\n')}` : `${head}\nno row is slower.`,
    slower,
  };
}

const pct = (now: number, was: number): string => (((now - was) / was) * 100).toFixed(0);
