// `assay runs`: the runs kept under the runs folder, newest first — id, suite, status, counts, pass
// rate and age — so a run can be found again for `assay view`, `report` or `compare`.
import { printable } from '../core/printable.js';
import { age, countsText, listRuns } from '../runlog/runs.js';
import { guard, intFlag, parseFlags } from './common.js';

const USAGE = `Usage: assay runs [--runs-dir DIR] [-n N] [--json]

Lists the runs under --runs-dir (default .assay/runs), newest first: the run id, the suite, its
status (complete, interrupted, aborted, running), passed/failed/errors, the pass rate and how long
ago it started. Give a run id to assay view, report, compare, rescore or eval --resume.

  -n, --limit N      list only the newest N runs (default 20; 0 lists all)
      --json         the list as JSON (one object a run, with its manifest's counts)
      --runs-dir DIR where runs are kept (default .assay/runs)
`;

/** `assay runs`. */
export async function runsCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values } = parseFlags(args, {
      'runs-dir': { type: 'string' },
      limit: { type: 'string', short: 'n' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const runsDir = values['runs-dir'] ?? '.assay/runs';
    const limit = intFlag('limit', values.limit, 0) ?? 20;
    const all = listRuns(runsDir);
    const runs = limit === 0 ? all : all.slice(0, limit);
    if (values.json) {
      const rows = runs.map((r) =>
        r.manifest
          ? {
              runId: r.runId,
              dir: r.dir,
              suite: {
                name: r.manifest.suite.name,
                path: r.manifest.suite.path,
                format: r.manifest.suite.format,
              },
              status: r.manifest.status,
              counts: r.manifest.counts,
              passRate: r.passRate,
              startedAt: r.manifest.startedAt,
              endedAt: r.manifest.endedAt,
            }
          : { runId: r.runId, dir: r.dir, problem: r.problem },
      );
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (runs.length === 0) {
      process.stdout.write(`No runs in ${printable(runsDir)} (assay eval writes one there)\n`);
      return 0;
    }
    const now = Date.now();
    const table = [['run', 'suite', 'status', 'pass/fail/error', 'pass rate', 'age']];
    for (const r of runs) {
      const m = r.manifest;
      table.push(
        m
          ? [
              r.runId,
              `${m.suite.name} (${m.suite.format})`,
              m.status,
              countsText(m.counts),
              r.passRate === undefined ? '–' : `${(r.passRate * 100).toFixed(1)}%`,
              age(m.startedAt, now),
            ]
          : [r.runId, `unreadable: ${r.problem ?? ''}`, '', '', '', ''],
      );
    }
    const cells = table.map((row) => row.map((c) => printable(c)));
    const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
    const lines = cells.map((row) =>
      row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  '),
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    if (runs.length < all.length)
      process.stdout.write(`… and ${all.length - runs.length} older (assay runs -n 0 lists all)\n`);
    return 0;
  });
}
