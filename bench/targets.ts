/** The targets for assay on this machine (issues 3 and 23), checked against the measured medians. */
import type { Row } from './report.js';
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
  /** `s`: assay's figures; `floor`: the floor's on the same row, when it ran. */
  check(s: ToolSummary, floor: ToolSummary | undefined): { met: boolean; measured: string };
}

/** Issue 23: within `times` × the floor's median wall on the same row. */
function nearFloor(workload: string, text: string, times: number): Target {
  return {
    workload,
    text,
    check: (s, floor) => {
      const f = floor?.wallMedian;
      if (f === undefined || s.wallMedian === undefined)
        return { met: false, measured: `${secs(s.wallMedian)}; no floor figure` };
      const ratio = s.wallMedian / f;
      return {
        met: ratio <= times && s.allCorrect,
        measured: `${secs(s.wallMedian)} = ${ratio.toFixed(1)}× the floor's ${secs(f)}, ${mib(s.rssMedian)}${correct(s)}`,
      };
    },
  };
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
  nearFloor('echo-10k', 'echo 10k (CSV) ≤ 2× the floor', 2),
  nearFloor('yaml-10k', 'echo 10k (inline YAML) ≤ 2× the floor', 2),
  nearFloor('echo-100k', 'echo 100k (CSV) ≤ 2× the floor', 2),
  {
    workload: 'echo-1m',
    text: 'echo 1M (CSV) ≤ 60 s and ≤ 300 MiB peak',
    check: (s) => ({
      met: le(s.wallMedian, 60) && le(s.rssMedian, 300) && s.allCorrect,
      measured: `${secs(s.wallMedian)}, ${mib(s.rssMedian)}${correct(s)}`,
    }),
  },
  {
    workload: 'yaml-100k',
    text: 'echo 100k (inline YAML) ≤ 400 MiB peak',
    check: (s) => ({
      met: le(s.rssMedian, 400) && s.allCorrect,
      measured: `${mib(s.rssMedian)}, ${secs(s.wallMedian)}${correct(s)}`,
    }),
  },
  {
    workload: 'mock0-10k',
    text: 'mock 0 ms, 10k tests (-j 50) ≤ 2.5 s',
    check: (s) => ({
      met: le(s.wallMedian, 2.5) && s.allCorrect,
      measured: `${secs(s.wallMedian)}${correct(s)}`,
    }),
  },
  {
    // A mock that answers at 0 ms answers each request in the callback that reads it: it can never
    // count two in flight, whatever the client does (a bare undici client holding 50 open sees 1).
    // The concurrency asked for is seen where answers take time.
    workload: 'mock200-1k',
    text: 'the mock sees the concurrency asked for (-j 50, answers taking 200 ms)',
    check: (s) => {
      const inFlight = s.notes.find((n) => /^max [\d–]+ in flight$/.test(n));
      const peak = Number(/(\d+) in flight/.exec(inFlight ?? '')?.[1] ?? 0);
      return {
        met: peak >= 50 && s.allCorrect,
        measured: `${inFlight ?? 'in flight not measured'}${correct(s)}`,
      };
    },
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
export function checkTargets(rows: Row[], quick: boolean): TargetCheck[] {
  return TARGETS.map((t) => {
    const row = rows.find((r) => r.w.name === t.workload);
    const s = row?.assay;
    if (quick || !s || s.skipped || s.runs === 0) {
      const why = quick ? '(--quick sizes)' : s?.skipped ? `(${s.skipped})` : '(workload not run)';
      return { text: t.text, status: 'not measured', measured: why, workload: t.workload };
    }
    const { met, measured } = t.check(s, row?.floor);
    return { text: t.text, status: met ? 'met' : 'missed', measured, workload: t.workload };
  });
}
