import { type ParseArgsConfig, parseArgs } from 'node:util';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { Diagnostic } from '../core/types.js';
import { DirectoryError } from '../runlog/dirs.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses a command's flags; a flag mistake becomes an InputError (exit 2). */
export function parseFlags<T extends Options>(
  args: string[],
  options: T,
  suggest?: (flag: string) => string | undefined,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    // Node's messages can run to several lines of advice; the first says what is wrong.
    const first = (err as Error).message
      .split('\n')[0]
      .replace(/\. To specify a positional argument.*$/s, '');
    // "argument is ambiguous": the value starts with "-" (e.g. --delay -5), which parseArgs will not take.
    const ambiguous = /^Option '(-[^']*)' argument is ambiguous/.exec(first);
    const unknown = /^Unknown option '([^']*)'/.exec(first);
    const hint = unknown && suggest ? suggest(unknown[1]) : undefined;
    throw new InputError(
      hint
        ? `${first}; ${hint}`
        : ambiguous
          ? `${ambiguous[1].replace(/^-\w, /, '')}: its value starts with "-"; write it as ${ambiguous[1].replace(/^-\w, /, '')}=VALUE if you mean it (numbers must be ≥ 0)`
          : first,
    );
  }
}

/** Parses a whole-number flag value within bounds. */
export function intFlag(
  name: string,
  value: string | undefined,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  // Number('') and Number(' ') are 0: a blank value is no number.
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new InputError(`--${name} ${value}: expected a whole number ${range}`);
  }
  return n;
}

/** Prints diagnostics to stderr, one per line. */
export function printDiagnostics(diagnostics: Diagnostic[]): void {
  for (const d of diagnostics)
    process.stderr.write(`${d.file ? formatDiagnostic(d) : `assay: ${printable(d.message, true)}`}\n`);
}

/**
 * Runs a command body, turning user mistakes into diagnostics and exit code 2, and anything
 * unexpected into a one-line message and exit code 3 (with the stack under ASSAY_DEBUG).
 */
export async function guard(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof InputError) {
      printDiagnostics(err.diagnostics);
      return 2;
    }
    if (err instanceof DirectoryError) {
      process.stderr.write(`assay: ${printable(err.message, true)}\n`);
      return 2;
    }
    process.stderr.write(`assay: ${printable((err as Error)?.message ?? String(err), true)}\n`);
    if (process.env.ASSAY_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
    return 3;
  }
}

/** Whether to colour output on a stream (TTY, and NO_COLOR unset). */
export function useColor(stream: NodeJS.WriteStream, disabled: boolean): boolean {
  return !disabled && stream.isTTY === true && !process.env.NO_COLOR;
}

/**
 * A command-line word as a POSIX shell reads it back: as it is when it holds only safe characters,
 * else in single quotes. Made printable too, so a path holding control characters cannot drive the
 * terminal it is shown on.
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  // A control character cannot be shown as it is: bash's, zsh's and ksh's $'…' reads the escape
  // printable() shows it as (\x0a, \u202e) back as that character.
  const shown = printable(word);
  if (shown !== word) return `$'${printable(word.replaceAll('\\', '\\\\').replaceAll("'", "\\'"))}'`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
