// Where tests come from (spec §1.4): inline lists, test files, globs, `{path}` objects. Each test
// is returned raw (promptfoo's TestCase shape) with a locator for its diagnostics.
import { dirname, extname } from 'node:path';
import { brief, errorAt, isRecord, isRefObject, type LoadContext, warnAt } from './context.js';
import { type CsvRow, type CsvWarnings, csvTextTests, testFromCsvRow } from './csv.js';
import { generatedTests, isGeneratorPath } from './generators.js';
import { globFiles, isGlobPattern } from './glob.js';
import { dereferenced } from './json-refs.js';
import { remoteSourceProblem } from './remote-sources.js';
import {
  displayPath,
  fixedLocator,
  jsonProblem,
  type Locate,
  type RawTest,
  UnreadableFile,
  type Where,
  within,
  YamlFile,
} from './source.js';
import { isWorkbookRef, readWorkbookRows } from './xlsx.js';

export type { RawTest } from './source.js';

function stripFileScheme(ref: string): string {
  return ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
}

/**
 * Splits `path:fn` at the last colon (promptfoo's rule; a drive letter's colon is not one). More
 * than one such colon is promptfoo's "Too many colons" error.
 */
function splitFunction(path: string): { path: string; fn?: string } | { tooMany: true } {
  const body = /^[A-Za-z]:[\\/]/.test(path) ? path.slice(2) : path;
  const colons = body.split(':').length - 1;
  if (colons > 1) return { tooMany: true };
  const last = path.lastIndexOf(':');
  if (last <= 1) return { path };
  return { path: path.slice(0, last), fn: path.slice(last + 1) };
}

function read(ctx: LoadContext, abs: string, where: Where): string | undefined {
  try {
    return ctx.files.read(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `test file ${ctx.files.relative(abs)}: ${err.message}`);
    return undefined;
  }
}

/** Resolves a file reference to the files it names (a glob may name several). */
function matchFiles(ctx: LoadContext, ref: string, where: Where): string[] {
  const path = stripFileScheme(ref);
  if (!isGlobPattern(path)) return [ctx.files.resolve(path)];
  const matches = globFiles(path, ctx.files.basePath);
  if (matches.length === 0) errorAt(ctx, where, `No test files found for path: ${ref}`);
  return matches;
}

/** A YAML/JSON file's syntax errors and `$ref` pointers reported; the parsed file either way. */
/** A parsed YAML/JSON file: its syntax errors reported, its `$ref`s resolved. */
interface ParsedFile {
  yaml: YamlFile;
  value: unknown;
  abs: string;
}

/** Parses a YAML (or, with `json`, strictly JSON) file; undefined when JSON syntax is broken. */
export function parseDataFile(
  ctx: LoadContext,
  abs: string,
  text: string,
  opts: { json?: boolean } = {},
): ParsedFile | undefined {
  if (opts.json) {
    const problem = jsonProblem(text);
    if (problem) {
      const { message, ...pos } = problem;
      errorAt(ctx, { file: displayPath(abs), ...pos }, message);
      return undefined;
    }
  }
  const yaml = new YamlFile(displayPath(abs), text, opts);
  // promptfoo reads a standalone `.json` tests file with its YAML parser (so YAML's leniency
  // holds), but a broken one is a JSON mistake to its writer: say what JSON says, once.
  const problem =
    extname(abs).toLowerCase() === '.json' && (yaml.unreadable || yaml.hasSyntaxErrors)
      ? jsonProblem(text)
      : undefined;
  if (problem) {
    const { message, ...pos } = problem;
    errorAt(ctx, { file: displayPath(abs), ...pos }, message);
    return undefined;
  }
  yaml.reportErrors(ctx.bag);
  return { yaml, value: yaml.unreadable ? undefined : dereferenced(ctx, yaml, abs), abs };
}

/** The items of a file holding one test or a list of tests. */
function itemsOf(file: ParsedFile): RawTest[] {
  const { value, yaml } = file;
  const baseDir = dirname(file.abs);
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((item, i) => ({ value: item, at: yaml.locator([i]), baseDir }));
  return [{ value, at: yaml.locator([]), baseDir }];
}

function requireObjects(ctx: LoadContext, tests: RawTest[], file: string): RawTest[] {
  return tests.filter((t, i) => {
    if (isRecord(t.value)) return true;
    errorAt(ctx, t.at(), `Test case ${i + 1} in ${file} must be an object, got ${brief(t.value)}`);
    return false;
  });
}

/** CSV-style rows (a sheet) as tests, with promptfoo's `Row #n` default descriptions. */
function rowTests(ctx: LoadContext, rows: CsvRow[]): RawTest[] {
  const warnings: CsvWarnings = { seen: new Set() };
  return rows.map((row, i) => {
    const test = testFromCsvRow(ctx, row, warnings);
    test.description ||= `Row #${i + 1}`;
    return { value: test, at: fixedLocator(row.where) };
  });
}

function csvTests(ctx: LoadContext, abs: string, where: Where): RawTest[] {
  const text = read(ctx, abs, where);
  if (text === undefined) return [];
  return csvTextTests(ctx, text, displayPath(abs));
}

/** promptfoo's "standalone" reader: one file whose rows become tests. */
function standaloneFile(ctx: LoadContext, abs: string, where: Where): RawTest[] {
  const ext = extname(abs).toLowerCase();
  const file = displayPath(abs);
  if (ext === '.csv') return csvTests(ctx, abs, where);
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') {
    const text = read(ctx, abs, where);
    if (text === undefined) return [];
    const parsedFile = parseDataFile(ctx, abs, text);
    if (!parsedFile) return [];
    if (ext === '.json') {
      return requireObjects(ctx, itemsOf(parsedFile), file).map((t, i) => {
        const value = t.value as Record<string, unknown>;
        return { ...t, value: { ...value, description: value.description || `Row #${i + 1}` } };
      });
    }
    // promptfoo reads a YAML file given this way as CSV-style rows, not as test cases.
    const warnings: CsvWarnings = { seen: new Set() };
    return requireObjects(ctx, itemsOf(parsedFile), file).map((t, i) => {
      const row = t.value as Record<string, unknown>;
      if (isRecord(row.vars) || Array.isArray(row.assert)) {
        warnAt(
          ctx,
          t.at(),
          `${file} is read as CSV-style rows here (its "vars"/"assert" become plain vars); list it under \`tests:\` as a plain file:// string to read it as test cases`,
        );
      }
      const test = testFromCsvRow(ctx, { entries: Object.entries(row), where: t.at() }, warnings);
      test.description ||= `Row #${i + 1}`;
      return { value: test, at: t.at };
    });
  }
  if (ext === '.jsonl') {
    const text = read(ctx, abs, where);
    if (text === undefined) return [];
    // The single-string form overwrites any description (spec §1.4).
    return jsonlTests(ctx, text, abs).map((t, i) => ({
      ...t,
      value: { ...(t.value as Record<string, unknown>), description: `Row #${i + 1}` },
    }));
  }
  errorAt(ctx, where, `Unsupported file type for test file: ${ctx.files.relative(abs)}`);
  return [];
}

/** The test cases of a JSONL file, one per non-empty line, each positioned at its line. */
function jsonlTests(ctx: LoadContext, text: string, abs: string): RawTest[] {
  const file = displayPath(abs);
  const baseDir = dirname(abs);
  const out: RawTest[] = [];
  text.split('\n').forEach((line, lineIndex) => {
    if (!line.trim()) return;
    const lineNo = lineIndex + 1;
    const at = fixedLocator({ file, line: lineNo });
    const problem = jsonProblem(line);
    if (problem) {
      errorAt(ctx, { file, line: lineNo, col: problem.col }, problem.message);
      return;
    }
    // A line's `$ref`s point into the line itself (each line is its own JSON document).
    const value: unknown = line.includes('"$ref"')
      ? dereferenced(ctx, new YamlFile(file, line, { json: true }), abs)
      : JSON.parse(line);
    if (!isRecord(value)) {
      errorAt(ctx, at(), `the test case on line ${lineNo} of ${file} must be an object, got ${brief(value)}`);
      return;
    }
    out.push({ value, at, baseDir });
  });
  return out;
}

/** promptfoo's glob loader: YAML/JSON/JSONL files hold test cases, CSV files hold rows. */
function globbedFile(ctx: LoadContext, abs: string, where: Where): RawTest[] {
  const ext = extname(abs).toLowerCase();
  const file = displayPath(abs);
  if (ext === '.csv') return csvTests(ctx, abs, where);
  if (ext !== '.yaml' && ext !== '.yml' && ext !== '.json' && ext !== '.jsonl') {
    errorAt(ctx, where, `Unsupported file type for test file: ${ctx.files.relative(abs)}`);
    return [];
  }
  const text = read(ctx, abs, where);
  if (text === undefined) return [];
  if (ext === '.jsonl') return jsonlTests(ctx, text, abs);
  const parsedFile = parseDataFile(ctx, abs, text, { json: ext === '.json' });
  return parsedFile ? requireObjects(ctx, itemsOf(parsedFile), file) : [];
}

/** Warns about a source that held no tests (legal, but almost never meant). */
async function warnIfEmpty(
  ctx: LoadContext,
  where: Where,
  what: string,
  load: () => RawTest[] | Promise<RawTest[]>,
): Promise<RawTest[]> {
  const errorsBefore = ctx.bag.errors.length;
  const tests = await load();
  if (tests.length === 0 && ctx.bag.errors.length === errorsBefore) {
    warnAt(ctx, where, `no test cases in ${what}`);
  }
  return tests;
}

/**
 * promptfoo's standalone reader for one reference: a generator script, a workbook, or a file
 * whose rows become tests. `config` goes to generators only.
 */
async function standaloneReference(
  ctx: LoadContext,
  ref: string,
  where: Where,
  config: unknown,
): Promise<RawTest[]> {
  const remote = remoteSourceProblem(ref);
  if (remote) {
    errorAt(ctx, where, remote);
    return [];
  }
  const bare = ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
  if (isWorkbookRef(bare)) {
    const rows = await readWorkbookRows(ctx, bare, where);
    return rows ? rowTests(ctx, rows) : [];
  }
  const split = splitFunction(bare);
  if ('tooMany' in split) {
    errorAt(ctx, where, `Too many colons. Invalid test file script path: ${ref}`);
    return [];
  }
  if (isGeneratorPath(split.path)) {
    return warnIfEmpty(ctx, where, ref, () =>
      generatedTests(ctx, split.path, split.fn || undefined, config, where),
    );
  }
  if (split.fn !== undefined) {
    errorAt(
      ctx,
      where,
      `${ref}: only a .js, .mjs, .cjs or .py test generator takes a function name after ":"`,
    );
    return [];
  }
  const out: RawTest[] = [];
  for (const abs of matchFiles(ctx, split.path, where)) {
    out.push(
      ...(await warnIfEmpty(ctx, where, ctx.files.relative(abs), () => standaloneFile(ctx, abs, where))),
    );
  }
  return out;
}

/** promptfoo's glob loader for one list entry or `*.yaml` string. */
async function globbedReference(ctx: LoadContext, ref: string, where: Where): Promise<RawTest[]> {
  const remote = remoteSourceProblem(ref);
  if (remote) {
    errorAt(ctx, where, remote);
    return [];
  }
  const out: RawTest[] = [];
  for (const abs of matchFiles(ctx, ref, where)) {
    out.push(...(await warnIfEmpty(ctx, where, ctx.files.relative(abs), () => globbedFile(ctx, abs, where))));
  }
  return out;
}

/** Whether a list entry goes to the standalone reader rather than the glob loader (promptfoo's rule). */
function isStandaloneEntry(ref: string): boolean {
  const bare = ref.replace(/^file:\/\//, '');
  const last = bare.lastIndexOf(':');
  const withoutFn = last > 1 ? bare.slice(0, last) : bare;
  return isGeneratorPath(withoutFn) || isWorkbookRef(bare) || bare.includes(':');
}

/**
 * A generator's `config` with `file://` values loaded (promptfoo resolves them before the call):
 * JSON and YAML files parsed, any other file as its text.
 */
function loadConfigFiles(ctx: LoadContext, value: unknown, where: Where): unknown {
  if (typeof value === 'string' && value.startsWith('file://')) {
    const abs = ctx.files.resolve(value);
    const text = read(ctx, abs, where);
    if (text === undefined) return value;
    const ext = extname(abs).toLowerCase();
    if (ext !== '.json' && ext !== '.yaml' && ext !== '.yml') return text;
    return parseDataFile(ctx, abs, text, { json: ext === '.json' })?.value ?? value;
  }
  if (Array.isArray(value)) return value.map((v) => loadConfigFiles(ctx, v, where));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, loadConfigFiles(ctx, v, where)]));
  }
  return value;
}

async function fromPathObject(
  ctx: LoadContext,
  value: Record<string, unknown>,
  at: Locate,
): Promise<RawTest[]> {
  if (typeof value.path !== 'string') {
    errorAt(ctx, at(['path']), '`path` must be a string');
    return [];
  }
  const config = value.config === undefined ? undefined : loadConfigFiles(ctx, value.config, at(['config']));
  return standaloneReference(ctx, value.path, at(['path']), config);
}

/** Reads the config's `tests` value into raw tests, in promptfoo's order. */
export async function loadTestSources(ctx: LoadContext, value: unknown, at: Locate): Promise<RawTest[]> {
  if (value === undefined || value === null || isRefObject(value)) return [];
  if (typeof value === 'string') {
    // A YAML path (or glob) holds test cases; anything else is read by the standalone reader.
    if (/ya?ml$/.test(value) && !remoteSourceProblem(value)) return globbedReference(ctx, value, at());
    return standaloneReference(ctx, value, at(), undefined);
  }
  if (isRecord(value)) {
    if ('path' in value) return fromPathObject(ctx, value, at);
    errorAt(ctx, at(), '`tests` must be a list of tests, a file path, or {path: …}');
    return [];
  }
  if (!Array.isArray(value)) {
    errorAt(
      ctx,
      at(),
      `Unsupported 'tests' format: expected a string, a list or {path: …}, got ${typeof value}`,
    );
    return [];
  }
  const out: RawTest[] = [];
  for (const [i, item] of value.entries()) {
    const itemAt = within(at, [i]);
    if (typeof item === 'string') {
      out.push(
        ...(isStandaloneEntry(item) || remoteSourceProblem(item)
          ? await standaloneReference(ctx, item, itemAt(), undefined)
          : await globbedReference(ctx, item, itemAt())),
      );
    } else if (isRecord(item) && 'path' in item) {
      out.push(...(await fromPathObject(ctx, item, itemAt)));
    } else {
      out.push({ value: item, at: itemAt });
    }
  }
  return out;
}

/** Reads a `defaultTest: file://…` reference (a YAML or JSON mapping). */
export function loadDefaultTestFile(ctx: LoadContext, ref: string, where: Where): RawTest | undefined {
  const abs = ctx.files.resolve(ref);
  const text = read(ctx, abs, where);
  if (text === undefined) return undefined;
  const file = parseDataFile(ctx, abs, text, { json: extname(abs).toLowerCase() === '.json' });
  if (!file || file.yaml.unreadable) return undefined;
  return { value: file.value ?? {}, at: file.yaml.locator([]), baseDir: dirname(abs) };
}
