/** Issue 3's targets for assay on this machine, checked against the measured medians. */
import type { ToolSummary } from './summary.js';

/** A target's verdict: met, missed, or not measured in this bench run. */
export interface TargetCheck {
  text: string;
  status: 'met' | 'missed' | 'not measured';
  measured: string;
  workload: string;
}

interface Target {
  workload: string;
  text: string;
  check(s: ToolSummary): { met: boolean; measured: string };
}

const secs = (v: number | undefined): string => (v === undefined ? '?' : `${v.toFixed(2)} s`);
const ms = (v: number | undefined): string => (v === undefined ? '?' : `${(v * 1000).toFixed(0)} ms`);
const mib = (v: number | undefined): string => (v === undefined ? '?' : `${v.toFixed(0)} MiB`);
const le = (v: number | undefined, max: number): boolean => v !== undefined && v <= max;
const correct = (s: ToolSummary): string => (s.allCorrect ? '' : '; ⚠ not every run was correct');

const TARGETS: Target[] = [
  {
    workload: 'version',
    text: '`assay --version` ≤ 80 ms',
    check: (s) => ({ met: le(s.wallMedian, 0.08) && s.allCorrect, measured: ms(s.wallMedian) + correct(s) }),
  },
  {
    workload: 'echo-10k',
    text: 'echo 10k ≤ 1 s',
    check: (s) => ({ met: le(s.wallMedian, 1) && s.allCorrect, measured: secs(s.wallMedian) + correct(s) }),
  },
  {
    workload: 'echo-100k',
    text: 'echo 100k ≤ 6 s with peak RSS ≤ 250 MB',
    check: (s) => ({
      met: le(s.wallMedian, 6) && le(s.rssMedian, 250) && s.allCorrect,
      measured: `${secs(s.wallMedian)}, ${mib(s.rssMedian)}${correct(s)}`,
    }),
  },
  {
    workload: 'mock0-10k',
    text: 'mock 0 ms, 10k tests (-j 50) ≤ 3 s with peak RSS ≤ 200 MB',
    check: (s) => ({
      met: le(s.wallMedian, 3) && le(s.rssMedian, 200) && s.allCorrect,
      measured: `${secs(s.wallMedian)}, ${mib(s.rssMedian)}${correct(s)}`,
    }),
  },
  {
    workload: 'mock200-1k',
    text: 'mock 200 ms, 1k tests at -j 50 within 10% of the 4 s ideal (≤ 4.4 s)',
    check: (s) => ({ met: le(s.wallMedian, 4.4) && s.allCorrect, measured: secs(s.wallMedian) + correct(s) }),
  },
  {
    workload: 'cached-10k',
    text: 'cached rerun of the 10k mock run ≤ 1.5 s',
    check: (s) => ({ met: le(s.wallMedian, 1.5) && s.allCorrect, measured: secs(s.wallMedian) + correct(s) }),
  },
  {
    workload: 'faults-1k',
    text: 'fault workload: zero error results and zero lost jobs',
    check: (s) => ({
      met: s.noErrorsNoLoss,
      measured: s.notes.filter((n) => /pass|error|missing|extra|exit|timed out|killed/.test(n)).join('; '),
    }),
  },
];

/** Checks every target whose workload ran; `quick` runs are too small to judge, so they are not measured. */
export function checkTargets(assay: Map<string, ToolSummary>, quick: boolean): TargetCheck[] {
  return TARGETS.map((t) => {
    const s = assay.get(t.workload);
    if (quick || !s || s.skipped || s.runs === 0) {
      const why = quick ? '(--quick sizes)' : s?.skipped ? `(${s.skipped})` : '(workload not run)';
      return { text: t.text, status: 'not measured', measured: why, workload: t.workload };
    }
    const { met, measured } = t.check(s);
    return { text: t.text, status: met ? 'met' : 'missed', measured, workload: t.workload };
  });
}
