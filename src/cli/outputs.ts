// `-o` targets: checked before a run starts, written after it ends.
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import {
  type OutputFormat,
  type OutputJudgement,
  resolveOutputFormat,
  writeOutput,
} from '../report/formats.js';
import { ensureDir } from '../runlog/dirs.js';
import { clearOutputsPending } from '../runlog/writer.js';

/** Output targets for paths, checked before anything runs: a typo in -o must not cost a run. */
export function outputTargets(paths: string[], formatName: string | undefined): OutputTarget[] {
  const outputs = paths.map((path) => ({
    path: resolve(path),
    format: resolveOutputFormat(path, formatName),
    // `-o DIR/`: a format that names its own files (a tool's native results) writes into DIR.
    folder: /[\\/]$/.test(path) || (existsSync(path) && statSync(path).isDirectory()),
  }));
  for (const o of outputs) {
    if (o.folder && !o.format.fileName)
      throw new InputError(
        `-o ${o.path}: is a folder, not a file (only formats that name their files take a folder)`,
      );
    const dir = o.folder ? o.path : dirname(o.path);
    ensureDir(dir);
    // Files are written beside their target and renamed into it: prove now that the folder takes
    // a new file, so a read-only place costs no run (`cannot write` only after every call).
    const probe = join(dir, `.assay-probe-${process.pid}`);
    try {
      writeFileSync(probe, '');
      rmSync(probe, { force: true });
    } catch (err) {
      throw new InputError(
        `-o ${o.path}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  return outputs;
}

/**
 * Writes every -o file, each independently: one that cannot be written is reported and the others
 * are still written. Returns false if any failed.
 */
export async function writeOutputs(
  runDir: string,
  scorecard: Parameters<typeof writeOutput>[1],
  outputs: OutputTarget[],
  judgements: OutputJudgement[] = [],
): Promise<boolean> {
  let ok = true;
  for (const o of outputs) {
    let path = o.path;
    try {
      if (o.folder && o.format.fileName) path = join(o.path, o.format.fileName(runDir));
      const judgement = await writeOutput(runDir, scorecard, path, o.format);
      if (judgement) judgements.push(judgement);
      for (const written of judgement?.written ?? [path]) process.stdout.write(`Wrote ${written}\n`);
    } catch (err) {
      ok = false;
      process.stderr.write(`assay: cannot write ${path}: ${(err as Error).message}\n`);
    }
  }
  // Only now is the run whole: until here its manifest said which files were still to be written.
  if (ok) clearOutputsPending(runDir);
  return ok;
}

/** An `-o` target: a file, or a folder for a format that names its own files. */
export interface OutputTarget {
  path: string;
  format: OutputFormat;
  folder?: boolean;
}
