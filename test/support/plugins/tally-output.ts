// An output format plugin written only against assay's public API (the package entry): one file,
// one registration. Loaded into the real CLI with `node --import` (test/report/output-plugin.test.ts),
// it is then found by `-o FILE.tally`, `--output-format tally` and `assay report --format tally`.
import { registerOutputFormat } from 'assay';

registerOutputFormat({
  name: 'tally',
  layout: 'file',
  extensions: ['tally'],
  description: 'a plugin: the number of jobs of each status, then the pass rate',
  async write(run, out) {
    const counts = new Map<string, number>();
    for await (const r of run.results()) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    for (const [status, n] of [...counts].sort()) await out.write(`${status} ${n}\n`);
    await out.write(`suite ${run.manifest.suite.name}\n`);
    await out.write(`total ${run.scorecard.counts.total}\n`);
  },
});
