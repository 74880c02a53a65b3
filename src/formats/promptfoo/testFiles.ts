// Where tests come from (spec §1.4): inline lists, test files, globs, `{path}` objects. Each test
// is returned raw (promptfoo's TestCase shape) with a locator for its diagnostics.
import { extname } from 'node:path';
import { brief, errorAt, isRecord, type LoadContext, notYet, warnAt } from './context.js';
import { type CsvWarnings, parseCsvRows, testFromCsvRow } from './csv.js';
import { globFiles, isGlobPattern } from './glob.js';
import { displayPath, fixedLocator, type Locate, UnreadableFile, type Where, YamlFile } from './source.js';

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

/**
 * Where JSON.parse failed. Newer V8 messages carry no offset, so find the shortest prefix that
 * fails for a reason other than ending early: the error is at its last character.
 */
function jsonErrorOffset(text: string): number | undefined {
  const failsInside = (k: number): boolean => {
    try {
      JSON.parse(text.slice(0, k));
      return false;
    } catch (err) {
      const message = (err as Error).message;
      if (/end of (JSON )?(input|data)/i.test(message)) return false;
      const at = /position (\d+)/.exec(message);
      // An error reported at the very end of the prefix only means the prefix stops early.
      return !at || Number(at[1]) < k;
    }
  };
  if (!failsInside(text.length)) return undefined;
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsInside(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

function jsonFile(ctx: LoadContext, abs: string, text: string): YamlFile | undefined {
  try {
    JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const offset = /position (\d+)/.exec(message)?.[1] ?? jsonErrorOffset(text);
    const pos = offset !== undefined ? lineCol(text, Number(offset)) : {};
    const reason = message.replace(/ in JSON at position \d+.*$/, '').replace(/\s+/g, ' ');
    errorAt(ctx, { file: displayPath(abs), ...pos }, `invalid JSON: ${reason}`);
    return undefined;
  }
  return new YamlFile(displayPath(abs), text, { json: true });
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
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
    const yaml = new YamlFile(file, text);
    yaml.reportErrors(ctx.bag);
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
    const out: RawTest[] = [];
    text.split('\n').forEach((line, lineIndex) => {
      if (!line.trim()) return;
      const at = fixedLocator({ file, line: lineIndex + 1 });
      const value = parseJsonLine(ctx, line, at());
      if (value === undefined) return;
      if (!isRecord(value)) {
        errorAt(ctx, at(), `Test case ${out.length + 1} in JSONL test file must be an object`);
        return;
      }
      // The single-string form overwrites any description (spec §1.4).
      out.push({ value: { ...value, description: `Row #${out.length + 1}` }, at });
    });
    return out;
  }
  errorAt(ctx, where, `Unsupported file type for test file: ${ctx.files.relative(abs)}`);
  return [];
}

function parseJsonLine(ctx: LoadContext, line: string, where: Where): unknown {
  try {
    return JSON.parse(line);
  } catch (err) {
    errorAt(ctx, where, `invalid JSON: ${(err as Error).message}`);
    return undefined;
  }
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
  if (ext === '.jsonl') {
    const out: RawTest[] = [];
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      const at = fixedLocator({ file, line: i + 1 });
      const value = parseJsonLine(ctx, line, at());
      if (value !== undefined) out.push({ value, at });
    });
    return requireObjects(ctx, out, file);
  }
  let yaml: YamlFile | undefined;
  if (ext === '.json') yaml = jsonFile(ctx, abs, text);
  else {
    yaml = new YamlFile(file, text);
    yaml.reportErrors(ctx.bag);
  }
  return yaml ? requireObjects(ctx, itemsOf(yaml), file) : [];
}

function fromReference(ctx: LoadContext, ref: string, where: Where, standalone: boolean): RawTest[] {
  if (refuseSpecial(ctx, ref, where)) return [];
  return matchFiles(ctx, ref, where).flatMap((abs) =>
    standalone ? standaloneFile(ctx, abs, where) : globbedFile(ctx, abs, where),
  );
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
  if (value === undefined || value === null) return [];
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
    const itemAt: Locate = (sub = []) => at([i, ...sub]);
    if (typeof item === 'string') {
      out.push(...fromReference(ctx, item, itemAt(), false));
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
  const yaml = new YamlFile(displayPath(abs), text);
  yaml.reportErrors(ctx.bag);
  return { value: yaml.value ?? {}, at: yaml.locator([]) };
}
