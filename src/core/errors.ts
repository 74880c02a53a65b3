import { printable } from './printable.js';
import type { Diagnostic } from './types.js';

/** Formats a diagnostic as `file:line:col: message` (the shape editors and CI annotate). */
export function formatDiagnostic(d: Diagnostic): string {
  let where = d.file;
  if (d.line !== undefined) {
    where += `:${d.line}`;
    if (d.col !== undefined) where += `:${d.col}`;
  }
  const tag = d.severity === 'warning' ? 'warning: ' : '';
  // Messages quote the user's files (and, through them, anything): shown, never interpreted.
  return `${printable(where)}: ${tag}${printable(d.message, true)}`;
}

/**
 * A mistake in what the user gave assay (files, flags). Carries every diagnostic found, so one run
 * reports all of them. The CLI prints them and exits 2; it is never shown as a stack trace.
 */
export class InputError extends Error {
  readonly diagnostics: Diagnostic[];
  constructor(diagnostics: Diagnostic[] | Diagnostic | string) {
    const list: Diagnostic[] =
      typeof diagnostics === 'string'
        ? [{ file: '', message: diagnostics, severity: 'error' }]
        : Array.isArray(diagnostics)
          ? diagnostics
          : [diagnostics];
    super(list.map(formatDiagnosticOrMessage).join('\n'));
    this.name = 'InputError';
    this.diagnostics = list;
  }
}

function formatDiagnosticOrMessage(d: Diagnostic): string {
  return d.file ? formatDiagnostic(d) : d.message;
}

/** The run could not complete (provider unreachable, auth failure, error budget exhausted). */
export class RunAbortedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunAbortedError';
  }
}

/** Collects diagnostics while loading, so all problems are reported together. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  /** How many diagnostics were ever given (a bag that keeps none still counts them). */
  count = 0;
  error(file: string, message: string, pos?: { line?: number; col?: number }): void {
    this.count++;
    this.keep({ file, message, severity: 'error', line: pos?.line, col: pos?.col });
  }
  warn(file: string, message: string, pos?: { line?: number; col?: number }): void {
    this.count++;
    this.keep({ file, message, severity: 'warning', line: pos?.line, col: pos?.col });
  }
  /** Keeps a diagnostic (a bag for passes nobody reads keeps none). */
  protected keep(d: Diagnostic): void {
    this.items.push(d);
  }
  get errors(): Diagnostic[] {
    return this.items.filter((d) => d.severity === 'error');
  }
  get warnings(): Diagnostic[] {
    return this.items.filter((d) => d.severity === 'warning');
  }
  /** Throws an InputError carrying every error (warnings included for context) if any error was found. */
  throwIfErrors(): void {
    if (this.errors.length > 0) throw new InputError(this.errors);
  }
}
