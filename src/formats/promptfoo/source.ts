// Reading the files a config references, remembering what was read (for the suite's content
// hash) and where each YAML value sits (for positioned diagnostics).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { type Document, isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import type { DiagnosticBag } from '../../core/errors.js';

/** A place in a user's file. */
export interface Where {
  file: string;
  line?: number;
  col?: number;
}

/** Finds where a value (addressed by a path below some root) was written. */
export type Locate = (path?: readonly PathPart[]) => Where;

export type PathPart = string | number;

/** How a path is shown in diagnostics: relative to the working directory when it is inside it. */
export function displayPath(absPath: string): string {
  const rel = relative(process.cwd(), absPath);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absPath;
}

/** A file that could not be read, with the reason in a user's words. */
export class UnreadableFile extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnreadableFile';
  }
}

/** The files read to build one suite, in read order, hashed as they are read. */
export class SuiteFiles {
  readonly files: string[] = [];
  private readonly cache = new Map<string, string>();
  private readonly hash = createHash('sha256');

  constructor(readonly basePath: string) {}

  /** Resolves a (possibly `file://`) path against the base path. */
  resolve(path: string): string {
    return resolve(this.basePath, path.startsWith('file://') ? path.slice('file://'.length) : path);
  }

  /** The path relative to the base path, with `/` separators (stable across machines). */
  relative(absPath: string): string {
    const rel = relative(this.basePath, absPath);
    return (rel === '' ? '.' : rel).split(sep).join('/');
  }

  /** Reads a UTF-8 file once, adding it to the content hash. Throws UnreadableFile. */
  read(absPath: string): string {
    const cached = this.cache.get(absPath);
    if (cached !== undefined) return cached;
    let bytes: Buffer;
    try {
      if (statSync(absPath).isDirectory()) throw new UnreadableFile(absPath, 'is a directory, not a file');
      bytes = readFileSync(absPath);
    } catch (err) {
      if (err instanceof UnreadableFile) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new UnreadableFile(absPath, code === 'ENOENT' ? 'file not found' : `cannot read: ${String(err)}`);
    }
    const rel = this.relative(absPath);
    this.hash.update(rel);
    this.hash.update('\u0000');
    this.hash.update(bytes);
    this.hash.update('\u0000');
    this.files.push(rel);
    const text = bytes.toString('utf8');
    this.cache.set(absPath, text);
    return text;
  }

  /** sha256 over every file read so far (relative path and bytes, in read order). */
  digest(): string {
    return this.hash.copy().digest('hex');
  }
}

/** A parsed YAML (or JSON) file that can say where each value was written. */
export class YamlFile {
  readonly doc: Document;
  readonly value: unknown;
  private readonly lines = new LineCounter();
  private readonly toJsError?: string;

  /** `json: true` for text already checked with JSON.parse, whose duplicate keys are legal (last wins). */
  constructor(
    readonly file: string,
    text: string,
    opts: { json?: boolean } = {},
  ) {
    this.doc = parseDocument(text, {
      lineCounter: this.lines,
      prettyErrors: true,
      uniqueKeys: !opts.json,
    });
    try {
      this.value = this.doc.toJS({ maxAliasCount: 10_000 });
    } catch (err) {
      // An unresolved alias makes the whole document unreadable; report it like a syntax error.
      this.value = undefined;
      this.toJsError = (err as Error).message;
    }
  }

  /** Reports every YAML syntax error with its position; what did parse stays usable. */
  reportErrors(bag: DiagnosticBag): void {
    if (this.toJsError) bag.error(this.file, `invalid YAML: ${this.toJsError}`);
    for (const e of this.doc.errors) {
      const pos = e.linePos?.[0];
      const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      bag.error(this.file, `invalid YAML: ${first}`, pos ? { line: pos.line, col: pos.col } : undefined);
    }
  }

  private offsetWhere(offset: number): Where {
    const p = this.lines.linePos(offset);
    return { file: this.file, line: p.line, col: p.col };
  }

  /** Where the value at `path` was written, or its nearest written ancestor. */
  locate(path: readonly PathPart[] = []): Where {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true) as Node | undefined;
      if (node && typeof node === 'object' && 'range' in node && node.range) {
        return this.offsetWhere(node.range[0]);
      }
    }
    return { file: this.file, line: 1, col: 1 };
  }

  /** Where the key of the mapping entry at `path` was written (falls back to the value). */
  locateKey(path: readonly PathPart[]): Where {
    const parent = this.doc.getIn(path.slice(0, -1), true);
    const last = path[path.length - 1];
    if (isMap(parent)) {
      for (const pair of parent.items) {
        const key = pair.key;
        if (isScalar(key) && key.value === last && key.range) return this.offsetWhere(key.range[0]);
      }
    }
    return this.locate(path);
  }

  /** A locator for values below `prefix`. */
  locator(prefix: readonly PathPart[] = []): Locate {
    return (path = []) => this.locate([...prefix, ...path]);
  }
}

/** A locator that always answers the same place (a CSV row, a JSONL line). */
export function fixedLocator(where: Where): Locate {
  return () => where;
}
