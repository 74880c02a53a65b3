// The option table at work: parsing a command's arguments (its own flags and the formats'),
// its `--help`, "did you mean", and the LoadOptions the formats' flags ask for.
import type { ParseArgsConfig } from 'node:util';
import { InputError } from '../core/errors.js';
import { closest } from '../core/suggest.js';
import type { FormatFlag, LoadOptions } from '../formats/detect.js';
import { suiteFormats } from '../formats/detect.js';
import { outputFormatsHelp } from '../outputs.js';
import { parseFlags } from './common.js';
import {
  type CliOption,
  COMMANDS,
  type CommandName,
  type CommandSpec,
  type CommandValues,
  GROUPS,
  OPTIONS,
  optionsOf,
} from './options.js';

/** A format's own flag, with the format that declares it. */
export interface FormatOption extends FormatFlag {
  format: string;
}

/** Every format's flags, in format order (a name two formats declare is listed once per format). */
export async function formatOptions(): Promise<FormatOption[]> {
  return (await suiteFormats()).flatMap((f) => (f.flags ?? []).map((flag) => ({ ...flag, format: f.name })));
}

const SUITE_LOADING: readonly CommandName[] = ['eval', 'validate', 'hash', 'rescore'];

/** The format flags a command takes. */
export function formatOptionsOf(command: CommandName, all: FormatOption[]): FormatOption[] {
  return all.filter((f) => (f.commands ?? SUITE_LOADING).includes(command as 'eval'));
}

type FlagValue = string | boolean | string[];

/** A command's parsed arguments. */
export interface ParsedCommand<C extends CommandName> {
  values: CommandValues<C>;
  /** The values of the formats' own flags given, by flag name. */
  formatValues: Record<string, FlagValue>;
  /** The format flags this command takes (for LoadOptions and --help). */
  formatFlags: FormatOption[];
  positionals: string[];
}

/**
 * Parses a command's arguments by the option table: its own flags and the formats' own. An unknown
 * flag is an InputError (exit 2) with the closest known flag; a promptfoo flag assay does not take
 * says why.
 */
export async function parseCommand<C extends CommandName>(
  command: C,
  args: string[],
): Promise<ParsedCommand<C>> {
  const own = optionsOf(command);
  const formatFlags = SUITE_LOADING.includes(command) ? formatOptionsOf(command, await formatOptions()) : [];
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const o of [...own, ...formatFlags]) {
    const prev = config[o.name];
    if (prev && prev.type !== o.type)
      throw new Error(`option table: --${o.name} is declared twice with different types`);
    config[o.name] = {
      type: o.type,
      ...('short' in o && o.short ? { short: o.short } : {}),
      ...(o.multiple || prev?.multiple ? { multiple: true } : {}),
    };
  }
  const known = Object.keys(config);
  const everyFormatFlag = formatFlags.length > 0 ? undefined : await formatOptions();
  const { values, positionals } = parseFlags(args, config, (flag) =>
    suggestFlag(flag, known, command, everyFormatFlag),
  );
  for (const o of own)
    if (o.refused && values[o.name] !== undefined) throw new InputError(`--${o.name}: ${o.refused}`);
  for (const o of own)
    if (o.note && values[o.name] !== undefined) process.stderr.write(`assay: --${o.name}: ${o.note}\n`);
  const formatValues: Record<string, FlagValue> = {};
  for (const f of formatFlags) {
    const v = values[f.name] as FlagValue | undefined;
    if (v !== undefined) formatValues[f.name] = v;
  }
  return { values: values as CommandValues<C>, formatValues, formatFlags, positionals };
}

/** "did you mean" for a flag: the closest of this command's, else the command that takes it. */
function suggestFlag(
  flag: string,
  known: string[],
  command: CommandName,
  formatFlags: FormatOption[] = [],
): string | undefined {
  const name = flag.replace(/^--?/, '').replace(/=.*$/, '');
  if (flag.startsWith('--')) {
    const near = closest(name, known);
    if (near) return `did you mean --${near}?`;
  }
  const elsewhere = (OPTIONS as readonly CliOption[]).find((o) => o.name === name && !o.refused);
  if (elsewhere)
    return `--${name} is an option of assay ${elsewhere.commands.join(', ')}, not of assay ${command}`;
  const ofFormat = formatFlags.find((f) => f.name === name);
  if (ofFormat)
    return `--${name} is an option of ${ofFormat.format} suites in assay ${(ofFormat.commands ?? SUITE_LOADING).join(', ')}, not of assay ${command}`;
  return undefined;
}

/** "did you mean" for a command. */
export function suggestCommand(word: string): string | undefined {
  return closest(
    word,
    COMMANDS.map((c) => c.name),
  );
}

/** The LoadOptions the formats' flags ask for (each format's loader refuses the others' flags). */
export function formatLoadOptions(parsed: {
  formatValues: Record<string, FlagValue>;
  formatFlags: FormatOption[];
}): LoadOptions {
  const options: LoadOptions = {};
  const target = options as Record<string, unknown>;
  for (const f of parsed.formatFlags) {
    const value = parsed.formatValues[f.name];
    if (value === undefined || !f.load) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    target[f.load.option] = f.load.parse ? f.load.parse(value) : value;
  }
  return options;
}

/** The flag that sets a LoadOptions field, for "does not apply to a … suite" messages. */
export async function flagOfLoadOption(option: keyof LoadOptions): Promise<string | undefined> {
  const flag = (await formatOptions()).find((f) => f.load?.option === option);
  return flag ? `--${flag.name}` : undefined;
}

// ── Help ────────────────────────────────────────────────────────────────────────────────────────

const WIDTH = 100;
const COLUMN = 29;

/** Text wrapped to `width`, every line after the first indented by `indent` spaces. */
export function wrap(text: string, width: number, indent: number, first = indent): string {
  const lines: string[] = [];
  let line = '';
  let room = width - first;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = width - indent;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** The label of a flag in help: `-c, --config FILE`. */
export function flagLabel(o: { name: string; short?: string; arg?: string; type: string }): string {
  const short = o.short ? `-${o.short}, ` : '    ';
  return `${short}--${o.name}${o.type === 'string' && o.arg ? ` ${o.arg}` : ''}`;
}

/** The description of a flag for one command. */
export function describe(o: CliOption, command: CommandName): string {
  return o.per?.[command] ?? o.description;
}

function helpLine(label: string, description: string): string {
  const head = `  ${label}`;
  if (head.length + 2 <= COLUMN) return `${head.padEnd(COLUMN)}${wrap(description, WIDTH, COLUMN)}\n`;
  return `${head}\n${' '.repeat(COLUMN)}${wrap(description, WIDTH, COLUMN)}\n`;
}

/** A command's --help, made from the option table and the formats' flags. */
export function usage(command: CommandName, formatFlags: FormatOption[]): string {
  const spec = COMMANDS.find((c) => c.name === command) as CommandSpec;
  let out = `Usage: assay ${command} ${spec.args}\n\n`;
  for (const para of spec.about.split('\n\n')) out += `${wrap(para, WIDTH, 0)}\n\n`;
  const own = optionsOf(command).filter((o) => !o.hidden);
  for (const group of GROUPS) {
    const entries = own.filter((o) => o.group === group);
    if (entries.length === 0) continue;
    out += `${group}:\n`;
    for (const o of entries) out += helpLine(flagLabel(o), describe(o, command));
    if (group === 'Suite and providers' && formatFlags.length > 0) {
      out += 'Formats (each flag applies to suites of its format):\n';
      for (const f of formatFlags) out += helpLine(flagLabel(f), `${f.format}: ${f.description}`);
    }
  }
  // The output formats, from the registry (a plugin's among them), for the commands that write them.
  if (command === 'report' || optionsOf(command).some((o) => o.name === 'output-format'))
    out += `Output formats (-o FILE by extension, or by name with --output-format / --format):\n${outputFormatsHelp('  ')}`;
  if (spec.footer) out += `\n${wrap(spec.footer, WIDTH, 0)}\n`;
  return out;
}

/**
 * What `--require` does: it is taken by main.ts before any command (so by every command), and
 * described here once, for `assay --help` and docs/cli.md.
 */
export const REQUIRE_HELP =
  'Every command takes --require MODULE (repeatable): a plugin imported first, which registers suite formats, assertion types, providers or output formats through the library (registerFormat, registerScorer, registerProvider, registerOutputFormat); a path (./plugin.mjs) or a package name, resolved from the current folder.';

/** `assay --help`. */
export function mainHelp(): string {
  let out = `${wrap('assay — run LLM evaluation suites (promptfoo configs, pramana JSONL suites, apastra workspaces, LVE repositories, ÈwéBench folders) against model providers', WIDTH, 0)}\n\nUsage:\n`;
  for (const c of COMMANDS) {
    const label = `assay ${c.name} ${c.args.replace(/ \[options\]$/, '')}`;
    out +=
      label.length <= 32
        ? `  ${label.padEnd(33)}${wrap(c.summary, WIDTH, 35)}\n`
        : `  ${label}\n${' '.repeat(35)}${wrap(c.summary, WIDTH, 35)}\n`;
  }
  out += `  assay --version | --help
  assay COMMAND --help             options of one command

${wrap(REQUIRE_HELP, WIDTH, 0)}

SUITE is a suite file or a folder, recognised by its shape: a promptfoo config (or a folder with
promptfooconfig.yaml|.yml|.json), a pramana .jsonl suite (or a folder with manifest.toml), an
apastra workspace, an LVE repository or folder, or an ÈwéBench tests/<category>.json file (or a
folder of them). With none, assay looks in the current folder.

Exit codes:
  0  everything ran and every test passed
  1  a test (or threshold) failed, or assay compare found a regression
  2  the input or the command line is invalid; nothing was run
  3  the run could not complete: provider errors beyond the allowed budget
     (--max-errors, default 0), a fatal provider error (bad credentials), or an interruption
`;
  return out;
}
