// `assay baseline save RUN [--name NAME]` and `assay baseline list`: pinned runs to compare with.
import { basename } from 'node:path';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { formatNamed } from '../formats/detect.js';
import { oneLine } from '../report/console.js';
import { DEFAULT_BASELINES_DIR, listBaselines, resolveRun, saveBaseline } from '../runlog/baselines.js';
import { completenessText, runCompleteness } from '../runlog/completeness.js';
import { readManifest } from '../runlog/reader.js';
import { parseCommand, usage } from './args.js';
import { guard } from './common.js';

/** `assay baseline`. */
export async function baselineCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('baseline', args);
    if (values.help) {
      process.stdout.write(usage('baseline', []));
      return 0;
    }
    const [action, ...rest] = positionals;
    const baselinesDir = values.dir ?? DEFAULT_BASELINES_DIR;
    if (action === 'save') {
      if (rest.length !== 1)
        throw new InputError('assay baseline save: expected one RUN (a run directory or id)');
      const runDir = resolveRun(rest[0], { runsDir: values['runs-dir'] ?? '.assay/runs', baselinesDir });
      const name = values.name ?? basename(runDir);
      // A run that did not reach every planned job would hold every later run to the cases it
      // reached: refused for every format unless --force (in the format's words, if it has its own).
      const whole = await runCompleteness(runDir);
      const hook = (await formatNamed(readManifest(runDir).suite.format))?.baseline;
      const refusal = whole.complete
        ? undefined
        : ((await hook?.refusal?.(runDir)) ??
          `${runDir}: the run is ${completenessText(whole)}, so a baseline of it would hold only the jobs it reached; finish it with assay eval --resume ${whole.runId}, or pass --force to save it anyway`);
      if (refusal && !values.force) throw new InputError(refusal);
      if (refusal) process.stderr.write(`assay: warning: --force: ${refusal.split(', so')[0]}\n`);
      // (Refused above unless --force: the library's own check is told so.)
      const target = await saveBaseline(runDir, name, baselinesDir, {
        force: refusal !== undefined,
        onWait: (pid) =>
          process.stderr.write(`assay: baseline ${name} is being saved by process ${pid}; waiting for it\n`),
        onNotice: (text) => process.stderr.write(`assay: note: ${printable(text)}\n`),
      });
      process.stdout.write(`Saved baseline ${name}: ${target}\n`);
      // The format's own baseline where its tool looks (apastra's active baseline of the suite).
      const own = await hook?.save?.(runDir, target, whole.complete ? undefined : completenessText(whole));
      for (const line of own?.lines ?? []) process.stdout.write(`${line}\n`);
      for (const warning of own?.warnings ?? []) process.stderr.write(`assay: warning: ${warning}\n`);
      return 0;
    }
    if (action === 'list') {
      const list = listBaselines(baselinesDir);
      if (list.length === 0) process.stdout.write(`No baselines in ${baselinesDir}\n`);
      for (const b of list)
        process.stdout.write(
          `${oneLine(b.name, 40)}  run ${b.runId}  ${oneLine(b.suite, 40)}  ${b.jobs} jobs  ${b.status}  ${b.startedAt}\n`,
        );
      return 0;
    }
    throw new InputError(`assay baseline: expected save or list, got ${action ?? 'nothing'}`);
  });
}
