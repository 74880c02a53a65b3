// `-o` targets: checked before a run starts, written after it ends.

import { closeSync, existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { Scorecard } from '../core/scorecard.js';
import type { GateVerdict } from '../formats/detect.js';
import { suiteFormats } from '../formats/detect.js';
import {
  APPEND_LEDGER,
  type OutputTarget,
  outputFormatNamed,
  outputRun,
  processIo,
  reporterNames,
  resolveOutputFormat,
  writeOutput,
} from '../outputs.js';
import { ensureDir } from '../runlog/dirs.js';
import { readManifest } from '../runlog/reader.js';
import { openTemporary } from '../runlog/write-whole.js';
import { clearOutputsPending } from '../runlog/writer.js';

export type { OutputTarget } from '../outputs.js';

/** The files of a run directory that are its log: never written over by an output. */
const RUN_LOG_FILES = ['manifest.json', 'results.jsonl', 'scorecard.json', 'run.lock', APPEND_LEDGER];

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
  const outputs: OutputTarget[] = paths.map((path) => {
    const { format, options } = resolveOutputFormat(path, formatName);
    return {
      path: resolve(path),
      format,
      options,
      // `-o DIR/`: a format that names its own files (a tool's native results) writes into DIR.
      folder: /[\\/]$/.test(path) || (existsSync(path) && statSync(path).isDirectory()),
    };
  });
  for (const o of outputs) {
    if (!o.folder) refuseRunLogTarget(o.path);
    if (!o.folder && o.format.layout === 'tree')
      throw new InputError(
        `-o ${o.path}: the ${o.format.name} format writes a folder of files; give a folder (-o DIR/)`,
      );
    if (o.folder && o.format.layout === 'file' && !o.format.fileName)
      throw new InputError(
        `-o ${o.path}: is a folder, not a file (only formats that name their files take a folder)`,
      );
    const dir = o.folder ? o.path : dirname(o.path);
    ensureDir(dir);
    // Files are written beside their target and renamed into it: prove now that the folder takes
    // a new file, so a read-only place costs no run (`cannot write` only after every call).
    const probe = join(dir, `.assay-probe-${process.pid}`);
    try {
      // Made exclusively (never through a link at the name), so what is removed is what was made.
      closeSync(openTemporary(probe));
      rmSync(probe, { force: true });
    } catch (err) {
      throw new InputError(
        `-o ${o.path}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  return outputs;
}

/** An output written: its format's name and the paths written (files, folders, or a tree's files). */
export interface WrittenOutput {
  format: string;
  paths: string[];
}

/**
 * Writes every -o file, each independently: one that cannot be written is reported and the others
 * are still written. Returns false if any failed.
 */
export async function writeOutputs(
  runDir: string,
  scorecard: Scorecard,
  outputs: OutputTarget[],
  opts: {
    /** Collects what was written (for the suite format's gate). */
    written?: WrittenOutput[];
    /** `assay report`: a file written later does not settle the run's own pending -o files. */
    keepPending?: boolean;
  } = {},
): Promise<boolean> {
  let ok = true;
  const run = outputs.length > 0 ? outputRun(runDir, scorecard) : undefined;
  for (const o of outputs) {
    if (!run) break;
    try {
      const paths = await writeOutput(run, o);
      for (const p of paths) process.stdout.write(`Wrote ${printable(p)}\n`);
      if (paths.length === 0 && o.format.layout === 'tree')
        process.stdout.write(
          `Wrote nothing for ${printable(o.inPlace ?? o.path)}: no result could be recorded\n`,
        );
      opts.written?.push({ format: o.format.name, paths });
    } catch (err) {
      ok = false;
      let path = o.path;
      try {
        if (o.folder && o.format.fileName && o.format.layout !== 'tree')
          path = join(o.path, o.format.fileName(run));
      } catch {}
      process.stderr.write(`assay: cannot write ${printable(path)}: ${printable((err as Error).message)}\n`);
    }
  }
  // Only now is the run whole: until here its manifest said which files were still to be written.
  if (ok && !opts.keepPending) clearOutputsPending(runDir);
  return ok;
}

/** Runs with more results than this get no automatic report.html (`assay report --format html` still writes one). */
export const RUN_REPORT_MAX_RESULTS = 50_000;

/**
 * Every eval's own report: the run directory's `report.html` (the html format's `inRunDir`),
 * written whole; its path, or undefined after saying why it could not be written (the run and its
 * exit code stand: the log is whole, the report can be written again with assay report).
 */
export async function writeRunReport(
  runDir: string,
  scorecard: Scorecard,
  maxResults = RUN_REPORT_MAX_RESULTS,
): Promise<string | undefined> {
  const { format, options } = outputFormatNamed('html');
  const path = join(runDir, format.inRunDir ?? 'report.html');
  // A page of every result: past a few hundred thousand, no browser opens it and writing it costs
  // more than the run (the caller says so, with the command that writes it anyway).
  if (scorecard.counts.total > maxResults) return undefined;
  try {
    await writeOutput(outputRun(runDir, scorecard), { path, format, options });
    return path;
  } catch (err) {
    process.stderr.write(
      `assay: cannot write the report ${printable(path)}: ${printable((err as Error).message)} (write it with assay report --format html)\n`,
    );
    return undefined;
  }
}

/**
 * The verdict of the run's own suite format on it (apastra's thresholds and regression policy),
 * found through the format registry by `manifest.suite.format`, given what was written.
 */
export async function suiteGate(
  runDir: string,
  format: string,
  written: WrittenOutput[],
): Promise<GateVerdict | undefined> {
  const suiteFormat = (await suiteFormats()).find((f) => f.name === format);
  return suiteFormat?.gate?.({ runDir, outputs: written });
}

/** `--record NAME`: a tree format's files appended in the suite's own folders, named NAME. */
export function recordTarget(name: string, formatName: string): OutputTarget {
  if (!/^[^/\\]+\.jsonl?$/.test(name) || name.startsWith('.'))
    throw new InputError(
      `--record ${name}: expected a file name ending in .jsonl (no folder), e.g. --record new.jsonl`,
    );
  const { format, options } = resolveOutputFormat(name, formatName);
  if (format.layout !== 'tree')
    throw new InputError(`--record: the ${format.name} format does not write into the suite's folders`);
  return { path: name, format, options, inPlace: name };
}

/**
 * The reporter `--reporter NAME` asks for: a registered format with a console reporter; `none`
 * for none; without the flag, `github` inside GitHub Actions (GITHUB_ACTIONS=true).
 */
export function reporterFrom(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): OutputTarget['format'] | undefined {
  if (flag === 'none') return undefined;
  if (flag === undefined) {
    if (env.GITHUB_ACTIONS !== 'true') return undefined;
    return outputFormatNamed('github').format;
  }
  const names = reporterNames();
  const format = names.includes(flag) ? outputFormatNamed(flag).format : undefined;
  if (!format) throw new InputError(`--reporter ${flag}: expected ${[...names, 'none'].join(' or ')}`);
  return format;
}

/** Runs a console reporter on a run; false when what it writes could not be written. */
export async function runReporter(
  format: OutputTarget['format'],
  runDir: string,
  scorecard: Scorecard,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (!format.report) throw new Error(`the ${format.name} format is not a reporter`);
  return format.report(outputRun(runDir, scorecard), processIo(env));
}
