// `-o FILE.json` (assay's JSON: the run, the scorecard and every result) and `-o FILE.jsonl` (one
// result per line, as results.jsonl holds them, in plan order).
import { registerOutputFormat } from './outputs.js';

registerOutputFormat({
  name: 'json',
  layout: 'file',
  extensions: ['json'],
  description: "assay's JSON: {run, scorecard, results[]}",
  async write(run, out) {
    await out.write(
      `{\n"run": ${JSON.stringify(run.manifest)},\n"scorecard": ${JSON.stringify(run.scorecard)},\n"results": [`,
    );
    let first = true;
    for await (const lines of run.resultLineBatches()) {
      await out.write(`${first ? '\n' : ',\n'}${lines.join(',\n')}`);
      first = false;
    }
    await out.write('\n]\n}\n');
  },
});

registerOutputFormat({
  name: 'jsonl',
  layout: 'file',
  extensions: ['jsonl'],
  description: 'one job result per line',
  async write(run, out) {
    for await (const lines of run.resultLineBatches()) await out.write(`${lines.join('\n')}\n`);
  },
});
