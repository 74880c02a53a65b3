// Where tests come from (spec §1.4): inline lists, test files, globs, `{path}` objects. Each test
// is returned raw (promptfoo's TestCase shape) with a locator for its diagnostics.
import { extname } from 'node:path';
import { reportJsonRefs } from './config.js';
import { brief, errorAt, isRecord, isRefObject, type LoadContext, notYet, warnAt } from './context.js';
import { type CsvWarnings, parseCsvRows, testFromCsvRow } from './csv.js';
import { globFiles, isGlobPattern } from './glob.js';
import {
  displayPath,
  fixedLocator,
  jsonProblem,
  type Locate,
  UnreadableFile,
  type Where,
  within,
  YamlFile,
} from './source.js';

/** A test as written, with where it was written. */
export interface RawTest {
  value: unknown;
  at: Locate;
}

const SCRIPT = /\.(?:[cm]?[jt]sx?|py)$/;
const REMOTE = /^(?:huggingface:\/\/|az:\/\/|https?:\/\/)/;

function stripFileScheme(ref: string): string {
  return ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
}

/** Splits `path:fn` when the part before the last colon is a script (promptfoo's rule). */
function splitFunction(path: string): { path: string; fn?: string } {
  const last = path.lastIndexOf(':');
  if (last <= 1) return { path };
  const candidate = path.slice(0, last);
  return SCRIPT.test(candidate) ? { path: candidate, fn: path.slice(last + 1) } : { path };
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

function refuseSpecial(ctx: LoadContext, ref: string, where: Where): boolean {
  if (REMOTE.test(ref)) {
    errorAt(ctx, where, notYet(`loading tests from ${ref.split('/').slice(0, 3).join('/')}`));
    return true;
  }
  const { path, fn } = splitFunction(stripFileScheme(ref));
  if (SCRIPT.test(path) || fn !== undefined) {
    errorAt(ctx, where, notYet(`a test generator script (${ref})`));
    return true;
  }
  if (/\.xlsx?(?:#.*)?$/.test(path)) {
    errorAt(ctx, where, notYet(`an Excel test file (${ref})`));
    return true;
  }
  return false;
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
function parsed(ctx: LoadContext, file: string, text: string, opts: { json?: boolean } = {}): YamlFile {
  const yaml = new YamlFile(file, text, opts);
  yaml.reportErrors(ctx.bag);
  reportJsonRefs(ctx, yaml);
  return yaml;
}

function jsonFile(ctx: LoadContext, abs: string, text: string): YamlFile | undefined {
  const problem = jsonProblem(text);
  if (problem) {
    const { message, ...pos } = problem;
    errorAt(ctx, { file: displayPath(abs), ...pos }, message);
    return undefined;
  }
  return parsed(ctx, displayPath(abs), text, { json: true });
}

/** The items of a file holding one test or a list of tests. */
function itemsOf(yaml: YamlFile): RawTest[] {
  const value = yaml.value;
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((item, i) => ({ value: item, at: yaml.locator([i]) }));
  return [{ value, at: yaml.locator([]) }];
}

function requireObjects(ctx: LoadContext, tests: RawTest[], file: string): RawTest[] {
  return tests.filter((t, i) => {
    if (isRecord(t.value)) return true;
    errorAt(ctx, t.at(), `Test case ${i + 1} in ${file} must be an object, got ${brief(t.value)}`);
    return false;
  });
}

function csvTests(ctx: LoadContext, abs: string, where: Where): RawTest[] {
  const text = read(ctx, abs, where);
  if (text === undefined) return [];
  const file = displayPath(abs);
  const warnings: CsvWarnings = { seen: new Set() };
  return parseCsvRows(ctx, text, file).map((row, i) => {
    const test = testFromCsvRow(ctx, row, warnings);
    test.description ||= `Row #${i + 1}`;
    return { value: test, at: fixedLocator(row.where) };
  });
}

/** promptfoo's "standalone" reader: one file whose rows become tests. */
function standaloneFile(ctx: LoadContext, abs: string, where: Where): RawTest[] {
  const ext = extname(abs).toLowerCase();
  const file = displayPath(abs);
  if (ext === '.csv') return csvTests(ctx, abs, where);
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') {
    const text = read(ctx, abs, where);
    if (text === undefined) return [];
    const yaml = parsed(ctx, file, text);
    if (ext === '.json') {
      return requireObjects(ctx, itemsOf(yaml), file).map((t, i) => {
        const value = t.value as Record<string, unknown>;
        return { ...t, value: { ...value, description: value.description || `Row #${i + 1}` } };
      });
    }
    // promptfoo reads a YAML file given this way as CSV-style rows, not as test cases.
    const warnings: CsvWarnings = { seen: new Set() };
    return requireObjects(ctx, itemsOf(yaml), file).map((t, i) => {
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
    return jsonlTests(ctx, text, file).map((t, i) => ({
      ...t,
      value: { ...(t.value as Record<string, unknown>), description: `Row #${i + 1}` },
    }));
  }
  errorAt(ctx, where, `Unsupported file type for test file: ${ctx.files.relative(abs)}`);
  return [];
}

/** The test cases of a JSONL file, one per non-empty line, each positioned at its line. */
function jsonlTests(ctx: LoadContext, text: string, file: string): RawTest[] {
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
    const value: unknown = JSON.parse(line);
    if (!isRecord(value)) {
      errorAt(ctx, at(), `the test case on line ${lineNo} of ${file} must be an object, got ${brief(value)}`);
      return;
    }
    out.push({ value, at });
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
  if (ext === '.jsonl') return jsonlTests(ctx, text, file);
  const yaml = ext === '.json' ? jsonFile(ctx, abs, text) : parsed(ctx, file, text);
  return yaml ? requireObjects(ctx, itemsOf(yaml), file) : [];
}

function fromReference(ctx: LoadContext, ref: string, where: Where, standalone: boolean): RawTest[] {
  if (refuseSpecial(ctx, ref, where)) return [];
  return matchFiles(ctx, ref, where).flatMap((abs) => {
    const errorsBefore = ctx.bag.errors.length;
    const tests = standalone ? standaloneFile(ctx, abs, where) : globbedFile(ctx, abs, where);
    // An empty file is legal but almost never meant; a broken one has already been reported.
    if (tests.length === 0 && ctx.bag.errors.length === errorsBefore) {
      warnAt(ctx, where, `no test cases in ${ctx.files.relative(abs)}`);
    }
    return tests;
  });
}

function fromPathObject(ctx: LoadContext, value: Record<string, unknown>, at: Locate): RawTest[] {
  if (typeof value.path !== 'string') {
    errorAt(ctx, at(['path']), '`path` must be a string');
    return [];
  }
  return fromReference(ctx, value.path, at(['path']), true);
}

/** Reads the config's `tests` value into raw tests, in promptfoo's order. */
export function loadTestSources(ctx: LoadContext, value: unknown, at: Locate): RawTest[] {
  if (value === undefined || value === null || isRefObject(value)) return [];
  if (typeof value === 'string') {
    const yamlList = /ya?ml$/.test(value);
    return fromReference(ctx, value, at(), !yamlList);
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
  value.forEach((item, i) => {
    const itemAt = within(at, [i]);
    if (typeof item === 'string') {
      out.push(...fromReference(ctx, item, itemAt(), false));
    } else if (isRefObject(item)) {
      // Refused where the file was parsed.
    } else if (isRecord(item) && 'path' in item) {
      out.push(...fromPathObject(ctx, item, itemAt));
    } else {
      out.push({ value: item, at: itemAt });
    }
  });
  return out;
}

/** Reads a `defaultTest: file://…` reference (a YAML or JSON mapping). */
export function loadDefaultTestFile(ctx: LoadContext, ref: string, where: Where): RawTest | undefined {
  const abs = ctx.files.resolve(ref);
  const text = read(ctx, abs, where);
  if (text === undefined) return undefined;
  const yaml =
    extname(abs).toLowerCase() === '.json' ? jsonFile(ctx, abs, text) : parsed(ctx, displayPath(abs), text);
  if (!yaml || yaml.unreadable) return undefined;
  return { value: yaml.value ?? {}, at: yaml.locator([]) };
}
