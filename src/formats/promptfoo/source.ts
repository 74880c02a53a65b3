// Reading the files a config references, remembering what was read (for the suite's content
// hash) and where each YAML value sits (for positioned diagnostics).
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { Document, LineCounter, Node } from 'yaml';
import { utf16Problem } from '../../core/encoding.js';
import type { DiagnosticBag } from '../../core/errors.js';
import type { ParseProblem } from '../../core/positions.js';
import {
  FAST_YAML_MIN_CHARS,
  type FastYaml,
  readSequenceChunk,
  readYamlFast,
  SEQUENCE_CHUNK,
  type SequenceChunk,
  splitRootSequence,
} from '../../core/yaml-fast.js';
import { yamlLib } from '../../core/yaml-lib.js';
import { printable } from './escape.js';

export { displayPath, jsonProblem } from '../../core/positions.js';

/** A place in a user's file. */
export interface Where {
  file: string;
  line?: number;
  col?: number;
}

/**
 * Finds where a value (addressed by a path below some root) was written; with `key`, where its
 * key was (for a message about the key itself, such as a misspelt field).
 */
export type Locate = (path?: readonly PathPart[], key?: boolean) => Where;

export type PathPart = string | number;

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
  private readonly bytes = new Map<string, Buffer>();
  private readonly texts = new Map<string, string>();
  private readonly hash = createHash('sha256');

  /**
   * `given`: files whose bytes are given instead of read (the config of a config object given to
   * `evaluate()`, which has no file of its own); they count in the hash as files do.
   */
  constructor(
    readonly basePath: string,
    private readonly given?: ReadonlyMap<string, Buffer>,
  ) {}

  /** Resolves a (possibly `file://`) path against the base path. */
  resolve(path: string): string {
    return resolve(this.basePath, path.startsWith('file://') ? path.slice('file://'.length) : path);
  }

  /** The path relative to the base path, with `/` separators (stable across machines). */
  relative(absPath: string): string {
    const rel = relative(this.basePath, absPath);
    return (rel === '' ? '.' : rel).split(sep).join('/');
  }

  /** Reads a file's bytes once, adding them to the content hash. Throws UnreadableFile. */
  readBytes(absPath: string): Buffer {
    const cached = this.bytes.get(absPath);
    if (cached !== undefined) return cached;
    let bytes: Buffer;
    try {
      const given = this.given?.get(absPath);
      if (given) bytes = given;
      else {
        if (statSync(absPath).isDirectory()) throw new UnreadableFile(absPath, 'is a directory, not a file');
        bytes = readFileSync(absPath);
      }
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
    this.bytes.set(absPath, bytes);
    return bytes;
  }

  /**
   * Adds a file to the content hash a chunk at a time without keeping it (a streamed test file,
   * read again on each pass): the same digest as {@link readBytes} gives. Throws UnreadableFile.
   */
  hashFile(absPath: string): void {
    const rel = this.relative(absPath);
    this.hash.update(rel);
    this.hash.update('\u0000');
    let fd: number;
    try {
      fd = openSync(absPath, 'r');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UnreadableFile(absPath, code === 'ENOENT' ? 'file not found' : `cannot read: ${String(err)}`);
    }
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer))
        this.hash.update(buffer.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    this.hash.update('\u0000');
    this.files.push(rel);
  }

  /** Reads a UTF-8 file once, adding it to the content hash. Throws UnreadableFile. */
  read(absPath: string): string {
    const cached = this.texts.get(absPath);
    if (cached !== undefined) return cached;
    const bytes = this.readBytes(absPath);
    const utf16 = utf16Problem(bytes);
    if (utf16) throw new UnreadableFile(absPath, utf16);
    const text = bytes.toString('utf8');
    this.texts.set(absPath, text);
    return text;
  }

  /** sha256 over every file read so far (relative path and bytes, in read order). */
  digest(): string {
    return this.hash.copy().digest('hex');
  }
}

export type { ParseProblem } from '../../core/positions.js';

/**
 * A parsed YAML (or JSON) file that can say where each value was written. It is read with the fast
 * reader (core/yaml-fast.ts) when it can be; the `yaml` package's full document, which reports
 * syntax errors exactly, is built only for a document the fast reader leaves to it.
 */
export class YamlFile {
  readonly value: unknown;
  private readonly fast?: FastYaml;
  private parsed?: Document;
  /** Line starts the `yaml` package's document records (made with it: a fast-read file never loads the package). */
  private counter?: LineCounter;
  private lineStarts?: number[];
  /** Why the document could not be turned into a value (an unresolved alias, say). */
  private readonly toJsError?: ParseProblem;

  /** The items of the sequence left out of `value` (see {@link YamlSplit}), when it was split. */
  readonly split?: SplitSequence;

  /**
   * `json: true` for text already checked with JSON.parse, whose duplicate keys are legal (last
   * wins). `split`: a text of at least `minChars` whose root `key` holds a block sequence of
   * mappings is read without that sequence's items (the key reads as empty), which are read one at
   * a time from {@link split}; when it cannot be split exactly, the file is read whole.
   */
  constructor(
    readonly file: string,
    private readonly text: string,
    private readonly opts: { json?: boolean; split?: YamlSplit } = {},
  ) {
    // Large files only, and not one with a bare CR (a line break to YAML; positions count LFs).
    const fastOk = text.length >= FAST_YAML_MIN_CHARS && !/\r(?!\n)/.test(text);
    const split = opts.split;
    const splitRead =
      fastOk && split && text.length > split.minChars
        ? splitRootSequence(text, split.key, { json: opts.json, ...split })
        : undefined;
    if (splitRead)
      this.split = new SplitSequence(this, text, splitRead.bounds, {
        json: opts.json === true,
        refused: new Set(split?.refuseItemKeys),
      });
    this.fast = splitRead ? splitRead.rest : fastOk ? readYamlFast(text, opts) : undefined;
    if (this.fast) {
      this.value = this.fast.value;
      return;
    }
    const doc = this.doc;
    // Only a document with an alias can have an unresolved one; most have none, so skip the walk.
    const alias = doc.errors.length === 0 && text.includes('*') ? this.unresolvedAlias() : undefined;
    if (alias) {
      this.value = undefined;
      this.toJsError = alias;
      return;
    }
    try {
      this.value = doc.toJS({ maxAliasCount: 10_000 });
    } catch (err) {
      this.value = undefined;
      this.toJsError = { message: (err as Error).message };
    }
  }

  /** The `yaml` package's document (parsed on first use when the fast reader read the file). */
  get doc(): Document {
    // Merge keys (`<<: *base`) as js-yaml, promptfoo's parser, reads them.
    this.parsed ??= yamlLib().parseDocument(this.text, {
      lineCounter: this.lines,
      prettyErrors: true,
      uniqueKeys: !this.opts.json,
      merge: true,
    });
    return this.parsed;
  }

  private get lines(): LineCounter {
    this.counter ??= new (yamlLib().LineCounter)();
    return this.counter;
  }

  /** Whether the text has YAML syntax errors (a fast-read file has none). */
  get hasSyntaxErrors(): boolean {
    return !this.fast && this.doc.errors.length > 0;
  }

  /** The first alias naming no anchor before it, positioned (toJS would only say its name). */
  private unresolvedAlias(): ParseProblem | undefined {
    let found: ParseProblem | undefined;
    const { visit } = yamlLib();
    visit(this.doc, {
      Alias: (_key, node) => {
        if (node.resolve(this.doc) !== undefined) return undefined;
        const pos = node.range ? this.lines.linePos(node.range[0]) : undefined;
        found = {
          message: `unresolved alias *${node.source} (no anchor &${node.source} is set before it)`,
          ...(pos ? { line: pos.line, col: pos.col } : {}),
        };
        return visit.BREAK;
      },
    });
    return found;
  }

  /** True when the file could not be read as a value at all (the reported error says why). */
  get unreadable(): boolean {
    return this.toJsError !== undefined;
  }

  /** Reports every YAML syntax error with its position; what did parse stays usable. */
  reportErrors(bag: DiagnosticBag): void {
    if (this.toJsError) {
      const { message, line, col } = this.toJsError;
      bag.error(
        this.file,
        printable(`invalid YAML: ${message}`),
        line !== undefined ? { line, col } : undefined,
      );
    }
    if (this.fast) return;
    for (const e of this.doc.errors) {
      const pos = e.linePos?.[0];
      const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      bag.error(
        this.file,
        printable(`invalid YAML: ${first}`),
        pos ? { line: pos.line, col: pos.col } : undefined,
      );
    }
  }

  /** @internal Where an offset of the text is (line and column from 1). */
  offsetWhere(offset: number): Where {
    if (!this.fast) {
      const p = this.lines.linePos(offset);
      return { file: this.file, line: p.line, col: p.col };
    }
    if (!this.lineStarts) {
      const starts = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, line: lo + 1, col: offset - starts[lo] + 1 };
  }

  /** Where the value at `path` was written, or its nearest written ancestor. */
  locate(path: readonly PathPart[] = []): Where {
    if (this.fast) {
      const offset = this.fast.offsetOf(path);
      // js-yaml does not say where an empty value is (offset -1); the exact reader does.
      if (offset >= 0) return this.offsetWhere(offset);
    }
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
    if (this.fast) {
      const offset = this.fast.keyOffsetOf(path);
      return offset === undefined || offset < 0 ? this.locate(path) : this.offsetWhere(offset);
    }
    const parent = this.doc.getIn(path.slice(0, -1), true);
    const last = path[path.length - 1];
    const { isMap, isScalar } = yamlLib();
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
    return (path = [], key = false) => {
      const full = [...prefix, ...path];
      return key && full.length > 0 ? this.locateKey(full) : this.locate(full);
    };
  }
}

/** A split sequence's items do not read as the whole file reads them: read the file whole. */
export class SplitUnreadable extends Error {
  constructor(file: string) {
    super(`${file}: its split sequence must be read whole`);
    this.name = 'SplitUnreadable';
  }
}

/** Which root sequence a {@link YamlFile} may leave out of its value, and from what size. */
export interface YamlSplit {
  key: string;
  /** Texts of this many characters or fewer are read whole. */
  minChars: number;
  /** An item whose mapping has one of these keys is not a plain item: the file is read whole. */
  refuseItemKeys?: readonly string[];
  /** A root with one of these keys is read whole. */
  refuseRootKeys?: readonly string[];
}

/**
 * The items of a root sequence a {@link YamlFile} left out of its value, read one at a time on
 * each pass (nothing of an item is kept once the pass moves on), each with its positions in the file.
 */
export class SplitSequence {
  constructor(
    private readonly yaml: YamlFile,
    private readonly text: string,
    private readonly bounds: Float64Array,
    private readonly read: { json: boolean; refused: ReadonlySet<string> },
  ) {}

  /** How many items the sequence has. */
  get length(): number {
    return this.bounds.length - 1;
  }

  /**
   * What the first complete pass kept of each chunk, for the later passes: the JSON text of
   * `[values, paths, places]` (each item's value as `prepare` made it, the paths its locators were
   * asked, and per item the places they answered), or undefined for a chunk whose values JSON cannot carry
   * exactly (a non-finite number, -0), which is read from the YAML again. Reading this back costs
   * a fraction of reading the YAML again; it is about as long as the items' text.
   */
  private kept?: KeptTexts;

  /**
   * The items in order, each with a locator for the values below it, its value passed through
   * `prepare` (the same function on every pass). Throws {@link SplitUnreadable} when an item does
   * not read as the whole file would read it (the first pass finds out; the file must then be read
   * whole). Once one pass has read every item, later passes read what it kept instead of the YAML.
   */
  *items(prepare: (value: unknown) => unknown = (v) => v): Generator<RawTest> {
    const kept = this.kept;
    const keeping: KeptTexts | undefined = kept ? undefined : new KeptTexts();
    for (let first = 0, n = 0; first < this.length; first += SEQUENCE_CHUNK, n++) {
      const count = Math.min(SEQUENCE_CHUNK, this.length - first);
      const keptChunk = kept?.get(n);
      if (keptChunk !== undefined) {
        yield* this.keptItems(keptChunk, first, count);
        continue;
      }
      const chunk = this.readChunk(first, count);
      const values: string[] | undefined = keeping && [];
      // The places asked: each item's as [path, line - its first line, col, …], the paths numbered per chunk.
      const paths = new PathNumbers();
      const places: number[][] = [];
      for (let k = 0; k < count; k++) {
        const value = prepare(chunk.values[k]);
        const at = this.itemLocator(chunk, k);
        if (values && jsonExact(value)) {
          values.push(JSON.stringify(value));
          const asked: number[] = [];
          places.push(asked);
          yield {
            value,
            at: (path = [], key = false) => {
              const where = at(path, key);
              if (where.line === undefined || where.col === undefined) return where;
              const n = paths.number(path, key, true) as number;
              if (asked.length === 0) asked.push(where.line);
              asked.push(n, where.line - asked[0], where.col);
              return where;
            },
          };
        } else yield { value, at };
      }
      // Each item is done with once the next one is asked for (late questions read the YAML again).
      keeping?.push(
        values?.length === count
          ? `[[${values.join(',')}],${JSON.stringify(paths.list)},${JSON.stringify(places)}]`
          : undefined,
      );
    }
    if (keeping) this.kept = keeping;
  }

  private readChunk(first: number, count: number): SequenceChunk {
    const chunk = readSequenceChunk(this.text, this.bounds, first, count, this.read);
    if (!chunk) throw new SplitUnreadable(this.yaml.file);
    return chunk;
  }

  /** Items of a chunk read from what the first pass kept; a place it was not asked reads the YAML. */
  private *keptItems(kept: string, first: number, count: number): Generator<RawTest> {
    const [values, list, places] = JSON.parse(kept) as [unknown[], [number, ...PathPart[]][], number[][]];
    const paths = new PathNumbers();
    for (const [key, ...path] of list) paths.number(path, key === 1, true);
    let chunk: SequenceChunk | undefined;
    for (let k = 0; k < count; k++) {
      const asked = places[k];
      const at: Locate = (path = [], key = false) => {
        const n = paths.number(path, key, false);
        for (let i = 1; n !== undefined && i < asked.length; i += 3)
          if (asked[i] === n)
            return { file: this.yaml.file, line: asked[0] + asked[i + 1], col: asked[i + 2] };
        chunk ??= this.readChunk(first, count);
        return this.itemLocator(chunk, k)(path, key);
      };
      yield { value: values[k], at };
    }
  }

  private itemLocator(chunk: SequenceChunk, k: number): Locate {
    const locate = (path: readonly PathPart[]): Where => {
      const offset = chunk.offsetOf(k, path);
      if (offset >= 0) return this.yaml.offsetWhere(offset);
      // js-yaml does not say where an empty value is: the exact reader of the chunk's text does.
      const doc = yamlLib().parseDocument(chunk.text, { uniqueKeys: !this.read.json, merge: true });
      for (let n = path.length; n >= 0; n--) {
        const node = doc.getIn([k, ...path.slice(0, n)], true) as Node | undefined;
        if (node && typeof node === 'object' && 'range' in node && node.range)
          return this.yaml.offsetWhere(chunk.start + node.range[0]);
      }
      return this.yaml.offsetWhere(chunk.start);
    };
    return (path = [], key = false) => {
      if (key && path.length > 0) {
        const offset = chunk.keyOffsetOf(k, path);
        if (offset !== undefined && offset >= 0) return this.yaml.offsetWhere(offset);
      }
      return locate(path);
    };
  }
}

/**
 * Texts kept in a few large Buffers (off the JS heap, in few allocations), read back by number;
 * an undefined text stays undefined.
 */
class KeptTexts {
  private static readonly SLAB = 4 << 20;
  private readonly slabs: Buffer[] = [];
  private used = KeptTexts.SLAB;
  /** Per text: its slab, start and end (slab -1: undefined). */
  private readonly at: number[] = [];

  push(text: string | undefined): void {
    if (text === undefined) {
      this.at.push(-1, 0, 0);
      return;
    }
    const length = Buffer.byteLength(text);
    if (this.used + length > KeptTexts.SLAB) {
      this.slabs.push(Buffer.allocUnsafe(Math.max(KeptTexts.SLAB, length)));
      this.used = 0;
    }
    const slab = this.slabs.length - 1;
    this.slabs[slab].write(text, this.used);
    this.at.push(slab, this.used, this.used + length);
    this.used += length;
  }

  get(n: number): string | undefined {
    const slab = this.at[3 * n];
    if (slab === undefined || slab < 0) return undefined;
    return this.slabs[slab].toString('utf8', this.at[3 * n + 1], this.at[3 * n + 2]);
  }
}

interface PathNode {
  /** The path's number, and its key's (a locator asked with `key`). */
  n?: number;
  keyN?: number;
  next?: Map<PathPart, PathNode>;
}

/**
 * The paths asked of items' locators, numbered in the order first asked; exact (`0` and `'0'` are
 * different parts) and cheap to look up. `list`: each as `[key ? 1 : 0, ...path]`.
 */
class PathNumbers {
  private readonly root: PathNode = {};
  readonly list: [number, ...PathPart[]][] = [];

  /** The path's number (a new one when `add`; undefined when not added and never seen). */
  number(path: readonly PathPart[], key: boolean, add: boolean): number | undefined {
    let node = this.root;
    for (const part of path) {
      let next = node.next?.get(part);
      if (!next) {
        if (!add) return undefined;
        next = {};
        node.next ??= new Map();
        node.next.set(part, next);
      }
      node = next;
    }
    // A key is asked of a mapping entry; the root's "key" is the root itself.
    const asKey = key && path.length > 0;
    const n = asKey ? node.keyN : node.n;
    if (n !== undefined || !add) return n;
    const added = this.list.length;
    this.list.push([asKey ? 1 : 0, ...path]);
    if (asKey) node.keyN = added;
    else node.n = added;
    return added;
  }
}

/** Whether JSON text carries a value exactly (numbers finite and not -0; plain data only). */
function jsonExact(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(jsonExact);
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) if (!jsonExact((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/** A locator for the values below `prefix` of another locator. */
export function within(at: Locate, prefix: readonly PathPart[]): Locate {
  return (path = [], key = false) => at([...prefix, ...path], key);
}

/** A locator that always answers the same place (a CSV row, a JSONL line). */
export function fixedLocator(where: Where): Locate {
  return () => where;
}

/** A test as written, with where it was written. */
export interface RawTest {
  value: unknown;
  at: Locate;
  /** The folder the test's own file references resolve against (its file's), if not the base path. */
  baseDir?: string;
}
