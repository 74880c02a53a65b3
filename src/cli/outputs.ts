// `-o` targets: checked before a run starts, written after it ends.

import { existsSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import {
  type OutputFormat,
  type OutputJudgement,
  resolveOutputFormat,
  writeOutput,
} from '../report/formats.js';
import { ensureDir } from '../runlog/dirs.js';
import { readManifest } from '../runlog/reader.js';
import { clearOutputsPending } from '../runlog/writer.js';

/** The files of a run directory that are its log: never written over by an output. */
const RUN_LOG_FILES = ['manifest.json', 'results.jsonl', 'scorecard.json', 'run.lock', 'lve-recorded.json'];

/** A path as the file system knows it: its folder's real path and its name (the path when unresolvable). */
function realTarget(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return join(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/** Whether two paths name one file (the same inode when both exist, else the same real path). */
function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return realTarget(a) === realTarget(b);
  }
}

/** The files a suite was read from, as a run's manifest records them (absolute paths). */
function suiteFilesOf(runDir: string): string[] {
  let manifest: ReturnType<typeof readManifest>;
  try {
    manifest = readManifest(runDir);
  } catch {
    return [];
  }
  const suitePath = resolve(manifest.cwd ?? '.', manifest.suite.path ?? '');
  let base = suitePath;
  try {
    if (!statSync(suitePath).isDirectory()) base = dirname(suitePath);
  } catch {
    return [];
  }
  return [suitePath, ...(manifest.suite.files ?? []).map((f) => resolve(base, f))];
}

/**
 * Refuses (exit 2) an output that would be written over what the command reads: a file of the log
 * of a run it reads (manifest.json, results.jsonl, scorecard.json, the lock), the run directory
 * itself, a file of the suite that run was made from, or another input given (`inputs`).
 */
export function refuseOverwritingInputs(outputs: string[], runDirs: string[], inputs: string[] = []): void {
  for (const output of outputs) {
    refuseRunLogTarget(output);
    for (const runDir of runDirs) {
      if (sameFile(output, runDir))
        throw new InputError(`-o ${output}: is the run directory ${runDir}; write the output elsewhere`);
      for (const file of RUN_LOG_FILES)
        if (sameFile(output, join(runDir, file)))
          throw new InputError(
            `-o ${output}: is the ${file} of the run ${runDir}; writing it would destroy the run log: write the output elsewhere`,
          );
      for (const file of suiteFilesOf(runDir))
        if (sameFile(output, file))
          throw new InputError(
            `-o ${output}: is one of the files of the suite of the run ${runDir}; write the output elsewhere`,
          );
    }
    for (const input of inputs)
      if (sameFile(output, input))
        throw new InputError(
          `-o ${output}: is ${input}, which this command reads; write the output elsewhere`,
        );
  }
}

/**
 * Refuses (exit 2) an output onto a file of the log of any run directory (a saved baseline's copy,
 * another run's), however the path is spelt (`..`, a symbolic link to it or to its folder): a run
 * log is written only by the run itself. (Runs the command reads are also checked, by
 * refuseOverwritingInputs, for their directory and suite files.)
 */
export function refuseRunLogTarget(output: string): void {
  const real = realTarget(output);
  const name = basename(real);
  if (!RUN_LOG_FILES.includes(name)) return;
  const dir = dirname(real);
  if (existsSync(join(dir, 'manifest.json')) && existsSync(join(dir, 'results.jsonl')))
    throw new InputError(
      `-o ${output}: is the ${name} of the run ${dir}; writing it would destroy that run's log: write the output elsewhere`,
    );
}

/** Output targets for paths, checked before anything runs: a typo in -o must not cost a run. */
export function outputTargets(paths: string[], formatName: string | undefined): OutputTarget[] {
  const outputs = paths.map((path) => ({
    path: resolve(path),
    format: resolveOutputFormat(path, formatName),
    // `-o DIR/`: a format that names its own files (a tool's native results) writes into DIR.
    folder: /[\\/]$/.test(path) || (existsSync(path) && statSync(path).isDirectory()),
  }));
  for (const o of outputs) {
    if (!o.folder) refuseRunLogTarget(o.path);
    if (!o.folder && o.format.treeOnly)
      throw new InputError(
        `-o ${o.path}: the ${o.format.name} format writes a folder of files; give a folder (-o DIR/)`,
      );
    if (o.folder && !o.format.fileName && !o.format.writeTree)
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
  opts: {
    /** Collects the judgements of formats whose tool judges its own runs (apastra). */
    judgements?: OutputJudgement[];
    /** `assay report`: a file written later does not settle the run's own pending -o files. */
    keepPending?: boolean;
  } = {},
): Promise<boolean> {
  let ok = true;
  for (const o of outputs) {
    let path = o.path;
    try {
      if (o.format.writeTree && (o.folder || o.inPlace)) {
        // A tree of files (one per test folder), appended to as the format's own tool does.
        const fileName = o.inPlace ?? `assay-${basename(runDir)}.jsonl`;
        const files = await o.format.writeTree(runDir, { dir: o.inPlace ? undefined : o.path, fileName });
        for (const f of files) process.stdout.write(`Wrote ${printable(f)}\n`);
        if (files.length === 0)
          process.stdout.write(
            `Wrote nothing for ${printable(o.inPlace ?? o.path)}: no result could be recorded\n`,
          );
        continue;
      }
      if (o.folder && o.format.fileName) path = join(o.path, o.format.fileName(runDir));
      const judgement = await writeOutput(runDir, scorecard, path, o.format);
      if (judgement) opts.judgements?.push(judgement);
      for (const written of judgement?.written ?? [path])
        process.stdout.write(`Wrote ${printable(written)}\n`);
    } catch (err) {
      ok = false;
      process.stderr.write(`assay: cannot write ${printable(path)}: ${printable((err as Error).message)}\n`);
    }
  }
  // Only now is the run whole: until here its manifest said which files were still to be written.
  if (ok && !opts.keepPending) clearOutputsPending(runDir);
  return ok;
}

/** An `-o` target: a file, or a folder for a format that names its own files. */
export interface OutputTarget {
  path: string;
  format: OutputFormat;
  folder?: boolean;
  /** `--record NAME`: the format appends NAME in the suite's own folders (a tree format). */
  inPlace?: string;
}

/** `--record NAME`: a tree format's files appended in the suite's own folders, named NAME. */
export function recordTarget(name: string, formatName: string): OutputTarget {
  if (!/^[^/\\]+\.jsonl?$/.test(name) || name.startsWith('.'))
    throw new InputError(
      `--record ${name}: expected a file name ending in .jsonl (no folder), e.g. --record new.jsonl`,
    );
  const format = resolveOutputFormat(name, formatName);
  if (!format.writeTree)
    throw new InputError(`--record: the ${format.name} format does not write into the suite's folders`);
  return { path: name, format, inPlace: name };
}
