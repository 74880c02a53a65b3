// JSON `$ref` pointers (spec §1.1): promptfoo dereferences configs and test files with
// json-schema-ref-parser, so `$ref: '#/assertionTemplates/x'` (a pointer into the same file) and
// `$ref: 'common.yaml#/x'` (into another file) are replaced by what they point at. Extra keys
// beside `$ref` are kept and win over the target's. Provider tool/function `parameters` are JSON
// schemas for the model and are left untouched, as promptfoo does. Remote targets are refused:
// loading a suite fetches nothing.
import { dirname, extname, resolve } from 'node:path';
import { errorAt, isRecord, type LoadContext } from './context.js';
import { displayPath, jsonProblem, type PathPart, UnreadableFile, type Where, YamlFile } from './source.js';

/** A parsed document that `$ref`s can point into. */
interface RefDocument {
  value: unknown;
  /** The file's absolute path (identifies the document). */
  abs: string;
  /** The folder file targets resolve against. */
  dir: string;
  /** Where a path in this document was written. */
  locate: (path: readonly PathPart[]) => Where;
}

/** Decodes one JSON-pointer token (`~1` is `/`, `~0` is `~`, then percent-escapes). */
function decodeToken(token: string): string {
  let out = token.replace(/~1/g, '/').replace(/~0/g, '~');
  try {
    out = decodeURIComponent(out);
  } catch {
    // A lone `%` is just a character.
  }
  return out;
}

/** Whether a path is a provider tool/function schema, which promptfoo leaves as written. */
function isToolSchema(path: readonly PathPart[]): boolean {
  const p = path.map(String);
  for (let i = 0; i + 2 < p.length; i++) {
    if (p[i] !== 'config') continue;
    if (p[i + 1] === 'tools' && p[i + 3] === 'function' && p[i + 4] === 'parameters') return true;
    if (p[i + 1] === 'functions' && p[i + 3] === 'parameters') return true;
  }
  return false;
}

/** Replaces `$ref` pointers in parsed documents, reading referenced files through the suite's files. */
export class RefResolver {
  private readonly documents = new Map<string, RefDocument | undefined>();
  private readonly reported = new Set<string>();
  /** Refs that could not be resolved so far: a target holding one cannot be used either. */
  private failures = 0;

  constructor(private readonly ctx: LoadContext) {}

  /** Whether `$ref`s are resolved at all (`PROMPTFOO_DISABLE_REF_PARSER=true` turns it off). */
  get enabled(): boolean {
    return this.ctx.env.PROMPTFOO_DISABLE_REF_PARSER !== 'true';
  }

  /**
   * The document's value with every `$ref` replaced. `yaml` gives positions for errors; `abs` is
   * the file's path (its folder anchors relative targets, and `#/…` pointers point into it).
   */
  resolveFile(yaml: YamlFile, abs: string): unknown {
    const doc: RefDocument = { value: yaml.value, abs, dir: dirname(abs), locate: (p) => yaml.locate(p) };
    this.documents.set(abs, doc);
    if (!this.enabled) {
      this.reportUnresolved(yaml.value, [], doc);
      return yaml.value;
    }
    return this.walk(yaml.value, [], doc, []);
  }

  private reportUnresolved(value: unknown, path: PathPart[], doc: RefDocument): void {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) this.reportUnresolved(v, [...path, i], doc);
    } else if (isRecord(value)) {
      if (typeof value.$ref === 'string' && !isToolSchema(path)) {
        errorAt(
          this.ctx,
          doc.locate([...path, '$ref']),
          `$ref "${value.$ref}" is not resolved because PROMPTFOO_DISABLE_REF_PARSER is set`,
        );
      }
      for (const [k, v] of Object.entries(value)) this.reportUnresolved(v, [...path, k], doc);
    }
  }

  /** `chain` holds the refs being expanded, to catch a ref that contains itself. */
  private walk(value: unknown, path: PathPart[], doc: RefDocument, chain: string[]): unknown {
    if (isToolSchema(path)) return value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      value.forEach((item, i) => {
        const next = this.walk(item, [...path, i], doc, chain);
        if (next !== item) {
          out ??= [...value];
          out[i] = next;
        }
      });
      return out ?? value;
    }
    if (!isRecord(value)) return value;
    if (typeof value.$ref === 'string') {
      const target = this.target(value.$ref, path, doc, chain);
      if (target === undefined) return value;
      const { $ref: _ref, ...siblings } = value;
      if (Object.keys(siblings).length === 0 || !isRecord(target)) return target;
      // json-schema-ref-parser's extended refs: the keys written beside `$ref` come first and win.
      const siblingsResolved = this.walk(siblings, path, doc, chain) as Record<string, unknown>;
      return {
        ...siblingsResolved,
        ...Object.fromEntries(Object.entries(target).filter(([k]) => !(k in siblings))),
      };
    }
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = this.walk(item, [...path, key], doc, chain);
      if (next !== item) {
        out ??= { ...value };
        out[key] = next;
      }
    }
    return out ?? value;
  }

  /** Reports a failed ref once (a cycle is met from several places) and counts it. */
  private fail(where: Where, message: string): undefined {
    this.failures++;
    const key = `${where.file}:${where.line}:${where.col}:${message}`;
    if (!this.reported.has(key)) {
      this.reported.add(key);
      errorAt(this.ctx, where, message);
    }
    return undefined;
  }

  /** What a `$ref` points at (itself dereferenced), or undefined after reporting why not. */
  private target(ref: string, path: PathPart[], doc: RefDocument, chain: string[]): unknown {
    const where = doc.locate([...path, '$ref']);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref) && !ref.startsWith('file://')) {
      return this.fail(
        where,
        `$ref "${ref}" points at a remote document; assay fetches nothing while loading a suite, so save it next to the config and refer to it by path`,
      );
    }
    const hash = ref.indexOf('#');
    const filePart = (hash === -1 ? ref : ref.slice(0, hash)).replace(/^file:\/\//, '');
    const pointer = hash === -1 ? '' : ref.slice(hash + 1);
    let target = doc;
    if (filePart !== '') {
      const loaded = this.load(resolve(doc.dir, filePart), ref, where);
      if (!loaded) {
        // load() has said why.
        this.failures++;
        return undefined;
      }
      target = loaded;
    }
    const key = `${target.abs}#${pointer}`;
    if (chain.includes(key)) {
      return this.fail(where, `$ref "${ref}" is circular: it contains itself`);
    }
    if (pointer !== '' && !pointer.startsWith('/')) {
      return this.fail(where, `$ref "${ref}": a JSON pointer after "#" must start with "/"`);
    }
    const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map(decodeToken);
    let value: unknown = target.value;
    for (const [i, token] of tokens.entries()) {
      const next = Array.isArray(value)
        ? /^\d+$/.test(token)
          ? value[Number(token)]
          : undefined
        : isRecord(value) && Object.hasOwn(value, token)
          ? value[token]
          : undefined;
      if (next === undefined) {
        const at = `/${tokens.slice(0, i + 1).join('/')}`;
        return this.fail(
          where,
          `$ref "${ref}" points at nothing: there is no ${at}${filePart ? ` in ${filePart}` : ''}`,
        );
      }
      value = next;
    }
    // The target may hold refs of its own, resolved against its own document; if one of them
    // fails, so does this ref (its error was given where the inner ref is).
    const failuresBefore = this.failures;
    const resolved = this.walk(value, tokens, target, [...chain, key]);
    if (this.failures > failuresBefore) {
      this.failures++;
      return undefined;
    }
    return resolved;
  }

  private load(abs: string, ref: string, where: Where): RefDocument | undefined {
    if (this.documents.has(abs)) return this.documents.get(abs);
    let doc: RefDocument | undefined;
    try {
      const text = this.ctx.files.read(abs);
      const isJson = extname(abs).toLowerCase() === '.json';
      const problem = isJson ? jsonProblem(text) : undefined;
      if (problem) {
        errorAt(this.ctx, where, `$ref "${ref}": ${this.ctx.files.relative(abs)}: ${problem.message}`);
      } else {
        const yaml = new YamlFile(displayPath(abs), text, { json: isJson });
        yaml.reportErrors(this.ctx.bag);
        if (!yaml.unreadable) {
          doc = { value: yaml.value, abs, dir: dirname(abs), locate: (p) => yaml.locate(p) };
        }
      }
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(this.ctx, where, `$ref "${ref}": ${this.ctx.files.relative(abs)}: ${err.message}`);
    }
    this.documents.set(abs, doc);
    return doc;
  }
}

const resolvers = new WeakMap<LoadContext, RefResolver>();

/** The resolver shared by everything one load reads (each referenced file is parsed once). */
export function refResolver(ctx: LoadContext): RefResolver {
  let resolver = resolvers.get(ctx);
  if (!resolver) {
    resolver = new RefResolver(ctx);
    resolvers.set(ctx, resolver);
  }
  return resolver;
}

/** A parsed file's value with its `$ref`s resolved (`abs` anchors relative targets). */
export function dereferenced(ctx: LoadContext, yaml: YamlFile, abs: string): unknown {
  return refResolver(ctx).resolveFile(yaml, abs);
}
