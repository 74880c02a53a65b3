// `assay runs`: the runs kept under the runs folder, newest first — id, suite, status, counts, pass
// rate and age — so a run can be found again for `assay view`, `report` or `compare`.
import { printable } from '../core/printable.js';
import { age, countsText, listRuns } from '../runlog/runs.js';
import { parseCommand, usage } from './args.js';
import { guard, intFlag } from './common.js';

/** `assay runs`. */
export async function runsCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values } = await parseCommand('runs', args);
    if (values.help) {
      process.stdout.write(usage('runs', []));
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
