import { resolve } from 'node:path';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { resolveOutputFormat } from '../outputs.js';
import { renderSummary } from '../report/console.js';
import { mergeRuns } from '../runlog/merge.js';
import { parseCommand, usage } from './args.js';
import { guard, useColor } from './common.js';
import { exitCode } from './exit-code.js';
import { writeOutputs } from './outputs.js';

/** `assay merge`: combine shard runs into one. */
export async function mergeCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('merge', args);
    if (values.help) {
      process.stdout.write(usage('merge', []));
      return 0;
    }
    const outputs = (values.output ?? []).map((path) => ({
      path: resolve(path),
      ...resolveOutputFormat(path, values['output-format']),
    }));
    const { runDir, manifest, scorecard } = await mergeRuns(
      positionals,
      values['runs-dir'] ?? '.assay/runs',
      outputs.map((o) => o.path),
      scorecardOfRun,
    );
    process.stdout.write(`Merged ${manifest.mergedFrom?.length ?? 0} runs\n`);
    process.stdout.write(
      renderSummary(manifest, scorecard, runDir, {
        color: useColor(process.stdout, values['no-color'] === true),
      }),
    );
    const written = await writeOutputs(runDir, scorecard, outputs);
    const code = exitCode(manifest.status, scorecard.counts, undefined);
    return written ? code : Math.max(code, 3);
  });
}
