import type { DiagnosticBag } from '../../core/errors.js';
import { isRecord } from '../../core/records.js';
import { closest } from '../../core/suggest.js';
import { printable } from './escape.js';
import type { SuiteFiles, Where } from './source.js';

export { printable };

/** What every part of the loader shares while loading one config. */
export interface LoadContext {
  bag: DiagnosticBag;
  files: SuiteFiles;
  /** Process env overlaid with the config's `env:` block. */
  env: Record<string, string | undefined>;
}

/** Records an error at a place. */
export function errorAt(ctx: LoadContext, where: Where, message: string): void {
  ctx.bag.error(where.file, printable(message), where);
}

/** Records a warning at a place. */
export function warnAt(ctx: LoadContext, where: Where, message: string): void {
  ctx.bag.warn(where.file, printable(message), where);
}

// C0 controls except the newline (multi-line hints use it), DEL, C1 controls, the line and
// paragraph separators, and U+FFFD (what undecodable bytes became): a message quoting a binary
// file must not drive the terminal.
/** The message for a promptfoo feature this version of assay refuses rather than misreads. */
export function notYet(feature: string): string {
  return `${feature} is not supported by assay yet (it comes in a later version)`;
}

/** ` (did you mean "x"?)` when a likely intended name exists, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const best = closest(word, candidates);
  return best !== undefined && best !== word ? ` (did you mean "${best}"?)` : '';
}

/** YAML's spelling of a number JSON cannot hold (`.nan`, `.inf`, `-.inf`). */
function yamlNumber(value: number): string {
  return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
}

/** A short JSON rendering of a value for messages (YAML's `.nan`/`.inf` where JSON has none). */
export function brief(value: unknown, max = 120): string {
  let text: string;
  try {
    text =
      typeof value === 'number' && !Number.isFinite(value)
        ? yamlNumber(value)
        : (JSON.stringify(value, (_k, v: unknown) =>
            typeof v === 'number' && !Number.isFinite(v) ? yamlNumber(v) : v,
          ) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Whether a value is a `file://` reference. */
export function isFileRef(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('file://');
}

/** Whether a mapping is a JSON `$ref` pointer (reported once where the file is parsed). */
export function isRefObject(value: unknown): boolean {
  return isRecord(value) && typeof value.$ref === 'string';
}

export { isRecord };
