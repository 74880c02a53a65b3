import { resolve } from 'node:path';
import { resolveOutputFormat } from '../outputs.js';
import { renderSummary } from '../report/console.js';
import { mergeRuns } from '../runlog/merge.js';
import { guard, parseFlags, useColor } from './common.js';
import { exitCode } from './exit-code.js';
import { writeOutputs } from './outputs.js';

const USAGE = `Usage: assay merge RUN_DIR… [--runs-dir DIR] [-o FILE]

Combines the runs of a sharded evaluation (assay eval --shard i/n on several machines) into one
run directory with one scorecard. Refuses runs of different suites or settings, a shard given
twice, and a job present in two runs. Exit codes as for assay eval.
`;

/** `assay merge`: combine shard runs into one. */
export async function mergeCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, {
      'runs-dir': { type: 'string' },
      output: { type: 'string', short: 'o', multiple: true },
      'output-format': { type: 'string' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
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
