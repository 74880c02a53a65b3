// apastra's gate: once the host has written the run folders (`--output-format apastra`), each
// model's run is judged as apastra's own CI would — thresholds, the regression policy against the
// suite's active baseline, the cost budget (judge.ts). Not an output: the writer (report.ts) only
// writes folders; the host calls this through SuiteFormat.gate and prints what it says.
import { readManifest } from '../../runlog/reader.js';
import type { GateInput, GateVerdict } from '../types.js';
import { gatherRun, modelRuns, modelScorecard, nativeOf, overBudget } from './gather.js';
import { gatePaths, judgeRun } from './judge.js';

/** The name of the output format whose folders the gate judges. */
const OUTPUT = 'apastra';

/** Judges every apastra run folder written of the run; undefined when none was written. */
export async function apastraGate(input: GateInput): Promise<GateVerdict | undefined> {
  const folders = input.outputs.filter((o) => o.format === OUTPUT);
  if (folders.length === 0) return undefined;
  const manifest = readManifest(input.runDir);
  const native = nativeOf(manifest);
  const runs = modelRuns(await gatherRun(input.runDir, manifest), manifest);
  const texts: string[] = [];
  let failed = false;
  for (const output of folders) {
    // The writer made one folder per model, in the order of the runs.
    const parts: string[] = [];
    for (const [i, run] of runs.entries()) {
      const folder = output.paths[i];
      if (folder === undefined) continue;
      const judged = await judgeRun(
        native,
        run,
        modelScorecard(run),
        folder,
        gatePaths(native),
        input.runDir,
        manifest.status,
      );
      parts.push(runs.length > 1 ? `Run folder ${folder}\n${judged.text}` : judged.text);
      if (judged.failed) failed = true;
      if (overBudget(native, run)) {
        parts.push(`Budget: total cost ${run.cost} exceeds cost_budget ${native.costBudget} ❌\n`);
        failed = true;
      }
    }
    texts.push(parts.join('\n'));
  }
  return { text: texts.join('\n'), failed };
}
