/** Turns a tool's runs into the figures of one table cell: medians, ranges and correctness flags. */
import { describeStats } from './mock.js';
import type { RunRecord, ToolResult } from './runner.js';
import { describeTally } from './verify.js';
import type { Workload } from './workloads.js';

/** The figures of one tool on one workload. */
export interface ToolSummary {
  runs: number;
  wallMedian: number | undefined;
  wallMin: number | undefined;
  wallMax: number | undefined;
  rssMedian: number | undefined;
  /** Median user + system CPU seconds. */
  cpuMedian: number | undefined;
  /** Every run finished in time, exited 0 and (for evals) returned every result as a pass. */
  allCorrect: boolean;
  /** Every run returned a result for every test and none was an error. */
  noErrorsNoLoss: boolean;
  /** Correctness and mock facts for the notes column. */
  notes: string[];
  skipped?: string;
}

/** A run during which other processes took at least this share of the machine's CPU is flagged as noisy. */
const NOISY = 0.1;

/** The median of a non-empty list (mean of the middle two for even lengths). */
export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function runOk(r: RunRecord, w: Workload): boolean {
  if (r.m.timedOut || r.m.signal || r.m.exitCode !== 0) return false;
  if (!r.tally) return w.kind === 'version';
  return !r.tally.problem && r.tally.total === w.tests && r.tally.pass === w.tests;
}

function runEnd(r: RunRecord): string | undefined {
  if (r.m.timedOut) return 'timed out';
  if (r.m.signal) return `killed (${r.m.signal})`;
  if (r.m.exitCode !== 0) return `exit ${r.m.exitCode}${r.failure ? ` (${r.failure})` : ''}`;
  return undefined;
}

/** Summarises one tool's runs on a workload. */
export function summarise(res: ToolResult, w: Workload): ToolSummary {
  if (res.skipped) {
    return {
      runs: 0,
      wallMedian: undefined,
      wallMin: undefined,
      wallMax: undefined,
      rssMedian: undefined,
      cpuMedian: undefined,
      allCorrect: false,
      noErrorsNoLoss: false,
      notes: [],
      skipped: res.skipped,
    };
  }
  const walls = res.runs.map((r) => r.m.wallS);
  const rss = res.runs.flatMap((r) => (r.m.peakRssMiB === undefined ? [] : [r.m.peakRssMiB]));
  const notes: string[] = [];
  const distinct = (items: (string | undefined)[]): string[] => [
    ...new Set(items.filter((s): s is string => !!s)),
  ];
  notes.push(...distinct(res.runs.map((r) => (r.tally ? describeTally(r.tally, w.tests) : undefined))));
  notes.push(...distinct(res.runs.map(runEnd)).map((s) => `⚠ ${s}`));
  const mocked = res.runs.flatMap((r) => (r.mock ? [r.mock] : []));
  if (mocked.length > 0) {
    const peaks = mocked.map((m) => m.maxInFlight);
    const lo = Math.min(...peaks);
    const hi = Math.max(...peaks);
    notes.push(...distinct(mocked.map(describeStats)), `max ${lo === hi ? lo : `${lo}–${hi}`} in flight`);
  }
  notes.push(...res.notes);
  const busiest = Math.max(0, ...res.runs.map((r) => r.othersShare ?? 0));
  if (busiest >= NOISY)
    notes.push(`⚠ other processes took up to ${(busiest * 100).toFixed(0)}% of the CPU during these runs`);
  return {
    runs: res.runs.length,
    wallMedian: median(walls),
    wallMin: walls.length ? Math.min(...walls) : undefined,
    wallMax: walls.length ? Math.max(...walls) : undefined,
    rssMedian: median(rss),
    cpuMedian: median(res.runs.flatMap((r) => (r.m.cpuS === undefined ? [] : [r.m.cpuS]))),
    allCorrect: res.runs.length > 0 && res.runs.every((r) => runOk(r, w)),
    noErrorsNoLoss:
      res.runs.length > 0 &&
      res.runs.every(
        (r) =>
          !r.m.timedOut && !!r.tally && !r.tally.problem && r.tally.error === 0 && r.tally.total === w.tests,
      ),
    notes,
  };
}
