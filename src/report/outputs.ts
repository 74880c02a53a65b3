// Output formats: the one extension point for everything assay writes from a finished run (`-o
// FILE`, `--output-format NAME`, `assay report --format NAME`, `--reporter NAME`). A format is one
// registration (registerOutputFormat) of an OutputFormat: what it is called, which extensions
// select it, and `write(run, sink)`. The host (report/output-host.ts) owns every file: it gives
// the writer a view of the run and a sink of the format's layout, and it alone opens, renames and
// appends, so every output is written whole (runlog/write-whole.ts) and listed.
import { extname } from 'node:path';
import type { Writable } from 'node:stream';
import { InputError } from '../core/errors.js';
import type { Scorecard } from '../core/scorecard.js';
import type { JobResult, NativeFacts } from '../core/types.js';
import type { RunManifest } from '../runlog/types.js';

/** A finished run as an output writer sees it: read once by the host, given to every writer. */
export interface OutputRun {
  /** The run directory (for references to it: writers get what they need from the fields below). */
  dir: string;
  /** The manifest as it stands once the outputs are written (without `outputsPending`). */
  manifest: RunManifest;
  scorecard: Scorecard;
  /** The results.jsonl lines in plan order (case, trial, provider, prompt), as written. */
  resultLines(): AsyncIterable<string>;
  /**
   * The same lines as UTF-8 bytes, in blocks of whole lines each ending in a newline (about a
   * megabyte a block): the cheap way for a writer to copy them out. Each block is the writer's.
   */
  resultLineBlocks(): AsyncIterable<Buffer>;
  /** The results in plan order, parsed. */
  results(): AsyncIterable<JobResult>;
}

/** Settings of a format chosen by the name it was asked for (an alias: `csv-raw` is csv with `raw`). */
export type OutputOptions = Readonly<Record<string, string | boolean>>;

/** Where a `file` format writes: one file, written whole (a temporary beside it, renamed into place). */
export interface FileSink {
  /** Writes a chunk (text, or bytes as they are), waiting while the file's buffer is full (memory stays bounded). */
  write(chunk: string | Uint8Array): Promise<void>;
  /** The same file as a stream, for renderers that write to one. */
  stream: Writable;
  options: OutputOptions;
}

/** One folder of a `folder` format, written into a temporary folder and renamed into place whole. */
export interface OutputFolder {
  /** Where the folder will stand once written. */
  path: string;
  /** Writes a file of the folder. */
  file(name: string, data: string): void;
}

/** Where a `folder` format writes: one or more folders (a tool's own run folders). */
export interface FolderSink {
  /**
   * A new folder: the target, or with `suffix` the target `-suffix` (one folder per model). A name
   * already taken in this write, or held by something `replaceable` says must stay, gets `-2`,
   * `-3`…; a replaceable folder (this run's own, written before) is replaced.
   */
  folder(opts?: { suffix?: string; replaceable?(existing: string): boolean }): OutputFolder;
  options: OutputOptions;
}

/** Where a `tree` format writes: lines appended to files spread over folders, as its tool does. */
export interface TreeSink {
  /** The folder the tree is written under; undefined: in the suite's own folders (`--record`). */
  root: string | undefined;
  /** The name of each file appended to. */
  fileName: string;
  /**
   * Appends `text` (whole lines) for the result `key` to `file`. A key this run already appended
   * to that file (a resumed run writes its tree again) is skipped: every result is appended once.
   */
  append(file: string, text: string, key: string): void;
  options: OutputOptions;
}

/** What an output format may need to know of a run before it starts (the pre-run check). */
export interface RunShape {
  format: string;
  native?: NativeFacts;
  providers: number;
  repeat: number;
}

/** Output that goes to the console and CI rather than to a file (`--reporter NAME`). */
export interface ReporterIo {
  env: NodeJS.ProcessEnv;
  /** Text for the user (stdout). */
  print(text: string): void;
  /** Says what went wrong (stderr). */
  warn(text: string): void;
  /** Appends to a file the environment names (a CI job summary); throws if it cannot. */
  append(file: string, text: string): void;
}

interface OutputFormatBase {
  /** The `--output-format` / `--format` name. */
  name: string;
  /** Other names, each with the options it stands for (`csv-raw`: csv with `{raw: true}`). */
  aliases?: Record<string, OutputOptions>;
  /** Extensions (no dot) that select this format for `-o FILE` when no name is given. */
  extensions: string[];
  /** One line for `--help` and the docs. */
  description: string;
  /**
   * Why this format cannot describe a run of this shape, if it cannot. Checked before the run
   * starts (a results file that could never be written costs no run) and again before writing.
   */
  check?(run: RunShape): string | undefined;
  /**
   * The name this format's own tool would give the output; `-o DIR/` then writes it into DIR
   * (a `folder` format: the folder's name).
   */
  fileName?(run: OutputRun): string;
  /** `assay report --format NAME` with no -o writes this file into the run directory (html: report.html). */
  inRunDir?: string;
  /**
   * A console reporter (`--reporter NAME`, `assay report --format NAME` with no -o). Resolves false
   * after saying why when what it writes could not be written.
   */
  report?(run: OutputRun, io: ReporterIo): Promise<boolean>;
}

/** A format that writes one file (streamed). */
export interface FileOutputFormat extends OutputFormatBase {
  layout: 'file';
  write(run: OutputRun, sink: FileSink): Promise<void>;
}

/** A format that writes folders of files (a tool's own run folder). */
export interface FolderOutputFormat extends OutputFormatBase {
  layout: 'folder';
  write(run: OutputRun, sink: FolderSink): Promise<void>;
}

/** A format that appends to files spread over a tree (LVE's instances, one file per test folder). */
export interface TreeOutputFormat extends OutputFormatBase {
  layout: 'tree';
  write(run: OutputRun, sink: TreeSink): Promise<void>;
}

/** An output format written from a run (`-o FILE`, `--output-format NAME`). */
export type OutputFormat = FileOutputFormat | FolderOutputFormat | TreeOutputFormat;

/** A format as a name chose it: the format and the options its name (an alias) stands for. */
export interface ChosenFormat {
  format: OutputFormat;
  options: OutputOptions;
}

/** The run shape recorded in a run directory's manifest. */
export function runShapeOf(manifest: {
  suite: { format: string; native?: NativeFacts };
  providers: unknown[];
  options: { repeat: number };
}): RunShape {
  return {
    format: manifest.suite.format,
    native: manifest.suite.native,
    providers: manifest.providers.length,
    repeat: manifest.options.repeat,
  };
}

const formats = new Map<string, OutputFormat>();

/**
 * Adds an output format: from then on `-o FILE.<ext>`, `--output-format NAME`, `assay report
 * --format NAME` (and `--reporter NAME` when it has `report`) find it. A name already taken is
 * refused: a plugin must not silently replace a format.
 */
export function registerOutputFormat(format: OutputFormat): void {
  const names = [format.name, ...Object.keys(format.aliases ?? {})];
  for (const name of names)
    if (lookup(name)) throw new Error(`registerOutputFormat: the output format name ${name} is taken`);
  formats.set(format.name, format);
}

function lookup(name: string): ChosenFormat | undefined {
  const f = formats.get(name);
  if (f) return { format: f, options: {} };
  for (const g of formats.values()) {
    const options = g.aliases?.[name];
    if (options) return { format: g, options };
  }
  return undefined;
}

/** Every registered output format, by name. */
export function outputFormats(): OutputFormat[] {
  return [...formats.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Every output format name (aliases included). */
export function outputFormatNames(): string[] {
  return outputFormats()
    .flatMap((f) => [f.name, ...Object.keys(f.aliases ?? {})])
    .sort();
}

/** The formats that are console reporters (`--reporter NAME`). */
export function reporterNames(): string[] {
  return outputFormats()
    .filter((f) => f.report)
    .map((f) => f.name);
}

/** A format by name (or alias); an InputError (exit 2) naming the known ones if there is none. */
export function outputFormatNamed(name: string, flag = '--output-format'): ChosenFormat {
  const chosen = lookup(name);
  if (!chosen)
    throw new InputError(
      `${flag} ${name}: unknown format; expected one of: ${outputFormatNames().join(', ')}`,
    );
  return chosen;
}

/** The format for `-o path`: by name when given, else by the path's extension; an InputError (exit 2) if none fits. */
export function resolveOutputFormat(path: string, name?: string): ChosenFormat {
  if (name) return outputFormatNamed(name);
  const ext = extname(path).slice(1).toLowerCase();
  for (const f of formats.values()) if (f.extensions.includes(ext)) return { format: f, options: {} };
  const known = outputFormats().flatMap((f) => f.extensions.map((e) => `.${e}`));
  throw new InputError(
    `-o ${path}: cannot tell the output format from the extension; expected ${known.join(', ')} (or --output-format NAME)`,
  );
}

/** The formats as `--help` lists them: name (extensions) and description, wrapped under the name. */
export function outputFormatsHelp(indent: string, width = 100): string {
  return outputFormats()
    .map((f) => {
      const ext = f.extensions.length ? ` (${f.extensions.map((e) => `.${e}`).join(', ')})` : '';
      const aliases = Object.keys(f.aliases ?? {});
      const also = aliases.length ? ` (also: ${aliases.join(', ')})` : '';
      const lines = [`${indent}${f.name}${ext}${also}:`];
      for (const word of f.description.split(' ')) {
        const last = lines[lines.length - 1];
        if (last.length + word.length + 1 > width && last.trim().includes(' '))
          lines.push(`${indent}  ${word}`);
        else lines[lines.length - 1] = `${last} ${word}`;
      }
      return `${lines.join('\n')}\n`;
    })
    .join('');
}
