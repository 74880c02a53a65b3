import type { DiagnosticBag } from '../../core/errors.js';
import { closest } from '../../core/suggest.js';
import type { SuiteFiles, Where } from './source.js';

/** What every part of the loader shares while loading one config. */
export interface LoadContext {
  bag: DiagnosticBag;
  files: SuiteFiles;
  /** Process env overlaid with the config's `env:` block. */
  env: Record<string, string | undefined>;
}

/** Records an error at a place. */
export function errorAt(ctx: LoadContext, where: Where, message: string): void {
  ctx.bag.error(where.file, message, where);
}

/** Records a warning at a place. */
export function warnAt(ctx: LoadContext, where: Where, message: string): void {
  ctx.bag.warn(where.file, message, where);
}

/** The message for a promptfoo feature this version of assay refuses rather than misreads. */
export function notYet(feature: string): string {
  return `${feature} is not supported by assay yet (it comes in a later version)`;
}

/** ` (did you mean "x"?)` when a likely intended name exists, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const best = closest(word, candidates);
  return best !== undefined && best !== word ? ` (did you mean "${best}"?)` : '';
}

/** A plain mapping (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short JSON rendering of a value for messages. */
export function brief(value: unknown, max = 120): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
