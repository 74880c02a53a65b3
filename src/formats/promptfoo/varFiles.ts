// `file://` var values (spec §2.3), loaded when the suite is loaded rather than per job: every
// file then counts in the suite's content hash, a missing one is exit 2 before any model is
// called, and a file shared by a thousand cases is read once.
import { varFileValue } from '../../template/varFiles.js';
import { errorAt, isFileRef, isRecord, type LoadContext, notYet } from './context.js';
import { isGlobPattern } from './glob.js';
import { type PathPart, UnreadableFile, type Where } from './source.js';

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
  load(vars: Record<string, unknown>, at: VarLocator): Record<string, unknown> {
    let out: Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(vars)) {
      const next = this.resolve(name, value, [], at);
      if (next !== value) {
        out ??= { ...vars };
        out[name] = next;
      }
    }
    return out ?? vars;
  }

  private resolve(name: string, value: unknown, path: PathPart[], at: VarLocator): unknown {
    if (isFileRef(value)) return this.file(name, value, path, at) ?? value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      value.forEach((item, i) => {
        const next = this.resolve(name, item, [...path, i], at);
        if (next !== item) {
          out ??= [...value];
          out[i] = next;
        }
      });
      return out ?? value;
    }
    if (isRecord(value)) {
      let out: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        const next = this.resolve(name, item, [...path, key], at);
        if (next !== item) {
          out ??= { ...value };
          out[key] = next;
        }
      }
      return out ?? value;
    }
    return value;
  }

  private file(name: string, ref: string, path: PathPart[], at: VarLocator): string | undefined {
    const shownVar = path.length === 0 ? `var "${name}"` : `var "${name}" (at ${describePath(path)})`;
    const rest = ref.slice('file://'.length);
    const abs = this.ctx.files.resolve(rest);
    if (this.loaded.has(abs)) {
      const hit = this.loaded.get(abs);
      if (hit !== undefined) return hit;
    }
    const where = at(name, path);
    let bytes: Buffer;
    try {
      bytes = this.ctx.files.readBytes(abs);
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      // A glob becomes one case per file only as a var's whole value, with expansion on.
      const why = isGlobPattern(rest)
        ? `${ref} is a glob, and a glob is expanded only as a var's whole value (and not with \`disableVarExpansion\`)`
        : `file ${this.ctx.files.relative(abs)}: ${err.message}`;
      this.report(where, `${shownVar}: ${why}`);
      return undefined;
    }
    const result = varFileValue(abs, bytes);
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
