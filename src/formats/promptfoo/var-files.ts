// `file://` var values (spec §2.3), loaded when the suite is loaded rather than per job: every
// file then counts in the suite's content hash, a missing one is exit 2 before any model is
// called, and a file shared by a thousand cases is read once.

import { extname, resolve } from 'node:path';
import { varFileValue } from '../../template/var-files.js';
import { brief, errorAt, isFileRef, isRecord, type LoadContext, notYet } from './context.js';
import { envFlag } from './env-flags.js';
import { globFiles, isGlobPattern } from './glob.js';
import { type PathPart, UnreadableFile, type Where } from './source.js';
import { parseDataFile } from './test-files.js';

/** A var file that is a script computing the var (JavaScript, or Python's `get_var`). */
export const VAR_SCRIPT = /\.(?:[cm]?[jt]s|py)$/i;

/** The vars of a case that scripts compute, name → `file://` reference (see Case.varScripts). */
export function varScriptsOf(vars: Record<string, unknown>): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(vars)) {
    if (isFileRef(value) && VAR_SCRIPT.test(value)) {
      out ??= {};
      out[name] = value;
    }
  }
  return out;
}

/** Where a var (or a part of it, for a nested reference) was written. */
export type VarLocator = (name: string, path: readonly PathPart[]) => Where;

/** Loads the `file://` values of many cases' vars, reading and converting each file once. */
export class VarFileLoader {
  private readonly loaded = new Map<string, string | undefined>();
  private readonly reported = new Set<string>();

  constructor(private readonly ctx: LoadContext) {}

  /**
   * The vars with every `file://` string replaced by the file's value, including references
   * nested in objects and arrays (newer promptfoo). Unchanged parts keep their identity, so
   * cases expanded from one test still share their values.
   */
  async load(vars: Record<string, unknown>, at: VarLocator): Promise<Record<string, unknown>> {
    let out: Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(vars)) {
      const next = await this.resolve(name, value, [], at);
      if (next !== value) {
        out ??= { ...vars };
        out[name] = next;
      }
    }
    return out ?? vars;
  }

  private async resolve(name: string, value: unknown, path: PathPart[], at: VarLocator): Promise<unknown> {
    if (isFileRef(value)) return (await this.file(name, value, path, at)) ?? value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (const [i, item] of value.entries()) {
        const next = await this.resolve(name, item, [...path, i], at);
        if (next !== item) {
          out ??= [...value];
          out[i] = next;
        }
      }
      return out ?? value;
    }
    if (isRecord(value)) {
      let out: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        const next = await this.resolve(name, item, [...path, key], at);
        if (next !== item) {
          out ??= { ...value };
          out[key] = next;
        }
      }
      return out ?? value;
    }
    return value;
  }

  private async file(
    name: string,
    ref: string,
    path: PathPart[],
    at: VarLocator,
  ): Promise<string | undefined> {
    const shownVar = path.length === 0 ? `var "${name}"` : `var "${name}" (at ${describePath(path)})`;
    const rest = ref.slice('file://'.length);
    const abs = this.ctx.files.resolve(rest);
    if (this.loaded.has(abs)) {
      const hit = this.loaded.get(abs);
      if (hit !== undefined) return hit;
    }
    const where = at(name, path);
    // A whole var naming a script is computed for each job (Case.varScripts); here it is only
    // checked and hashed, and the var keeps its reference.
    const script = path.length === 0 && VAR_SCRIPT.test(rest);
    let bytes: Buffer;
    try {
      bytes = this.ctx.files.readBytes(abs);
      if (script) return undefined;
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      // A glob becomes one case per file only as a var's whole value, with expansion on.
      const why = isGlobPattern(rest)
        ? `${ref} is a glob, and a glob is expanded only as a var's whole value (and not with \`disableVarExpansion\`)`
        : `file ${this.ctx.files.relative(abs)}: ${err.message}`;
      this.report(where, `${shownVar}: ${why}`);
      return undefined;
    }
    const result = await varFileValue(abs, bytes, {
      pdfRaw: envFlag(this.ctx.env, 'PROMPTFOO_DISABLE_PDF_AS_TEXT'),
      mediaRaw: envFlag(this.ctx.env, 'PROMPTFOO_DISABLE_MULTIMEDIA_AS_BASE64'),
    });
    let value: string | undefined;
    if ('value' in result) value = result.value;
    else if ('unsupported' in result)
      this.report(where, `${shownVar}: ${notYet(`${result.unsupported} (${ref})`)}`);
    else this.report(where, `${shownVar}: file ${this.ctx.files.relative(abs)}: ${result.invalid}`);
    this.loaded.set(abs, value);
    return value;
  }

  /** Reports a problem once, however many cases share the var. */
  private report(where: Where, message: string): void {
    const key = `${where.file}:${where.line}:${where.col}:${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    errorAt(this.ctx, where, message);
  }
}

function describePath(path: PathPart[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
}

/**
 * A test's `vars: file://vars.yaml` (or a glob, or a list of them): every matching YAML/JSON file
 * is read as a mapping and they are merged in order, later files winning (promptfoo's rule).
 * `baseDir` is the folder of the file the test was written in. Reports and returns undefined when
 * a file is missing, unparsable or not a mapping.
 */
export function varsFromFiles(
  ctx: LoadContext,
  refs: string[],
  baseDir: string,
  where: Where,
): Record<string, unknown> | undefined {
  const vars: Record<string, unknown> = {};
  let ok = true;
  for (const ref of refs) {
    const path = ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
    const files = isGlobPattern(path) ? globFiles(path, baseDir) : [resolve(baseDir, path)];
    if (files.length === 0) {
      errorAt(ctx, where, `no vars files match ${ref}`);
      ok = false;
    }
    for (const abs of files) {
      const ext = extname(abs).toLowerCase();
      let text: string;
      try {
        text = ctx.files.read(abs);
      } catch (err) {
        if (!(err instanceof UnreadableFile)) throw err;
        errorAt(ctx, where, `vars file ${ctx.files.relative(abs)}: ${err.message}`);
        ok = false;
        continue;
      }
      const file = parseDataFile(ctx, abs, text, { json: ext === '.json' });
      if (!file || file.yaml.unreadable) {
        ok = false;
        continue;
      }
      if (file.value === undefined || file.value === null) continue;
      if (!isRecord(file.value)) {
        errorAt(
          ctx,
          file.yaml.locate([]),
          `a vars file must hold a mapping of var names to values, got ${brief(file.value)}`,
        );
        ok = false;
        continue;
      }
      Object.assign(vars, file.value);
    }
  }
  return ok ? vars : undefined;
}
