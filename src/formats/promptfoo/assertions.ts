// A promptfoo assertion (`{type, value, threshold, …}`) translated into an AssertionSpec, with
// the load-time checks promptfoo makes (type required, known type) plus assay's own (the
// scorer's `validate`).
import { extname } from 'node:path';
import { closest } from '../../core/suggest.js';
import type { AssertionSpec } from '../../core/types.js';
import { yamlLib } from '../../core/yaml-lib.js';
import { parseScriptRef, scriptFileProblem } from '../../runtime/script-ref.js';
import { getScorer, resolveAssertionType, scorerTypes } from '../../scorers/registry.js';
import { checkTemplate, hasTemplateSyntax } from '../../template/render.js';
import { isPromptfooAssertionType, refusedType } from './assertion-types.js';
import {
  brief,
  didYouMean,
  errorAt,
  isRecord,
  isRefObject,
  type LoadContext,
  notYet,
  warnAt,
} from './context.js';
import { assertionFromString, type RawAssertion, ROW_KEY } from './expected.js';
import { graderSpec, rubricPrompt, SCRIPT_FILE } from './graders.js';
import { type Locate, UnreadableFile, type Where, within } from './source.js';
import { transformAt } from './transforms.js';

const MISSING_TYPE_HINT =
  "Hint: in YAML, keep all of an assertion's properties under the same list item:\n" +
  '  assert:\n' +
  '    - type: python\n' +
  "      value: file://script.py   # no '-' before 'value'";

const SCRIPT_TYPES = new Set(['javascript', 'python', 'ruby']);
/** Script types whose file:// value is checked as a JavaScript or Python script. */
const RUNNABLE_SCRIPT_TYPES = new Set(['javascript', 'python']);

function isRubyRef(value: unknown): value is string {
  return typeof value === 'string' && /^file:\/\/.*\.rb(?::[\w.]+)?$/.test(value.trim());
}

/** A Ruby file named by a value must exist; it joins the suite's hash. */
function checkRubyFile(ctx: LoadContext, written: string, value: unknown, where: Where): void {
  if (!isRubyRef(value)) return;
  const ref = parseScriptRef(value.trim());
  if (!ref) return;
  const abs = ctx.files.resolve(ref.path);
  try {
    ctx.files.read(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `${written} script file ${ctx.files.relative(abs)}: ${err.message}`);
  }
}

/** A whole value naming a script whose result is the expected value (`file://compute.js[:fn]`). */
function isValueScript(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('file://') && SCRIPT_FILE.test(value.slice(7));
}

function loadFileValue(ctx: LoadContext, ref: string, where: Where): { ok: boolean; value?: unknown } {
  const path = ref.slice('file://'.length);
  if (SCRIPT_FILE.test(path)) {
    // Inside a list, promptfoo reads a script file's text, never runs it; only a whole value runs.
    errorAt(ctx, where, notYet(`a script file in a list of expected values (${ref})`));
    return { ok: false };
  }
  const abs = ctx.files.resolve(path);
  const ext = extname(abs).toLowerCase();
  if (!['.json', '.yaml', '.yml', '.txt'].includes(ext)) {
    errorAt(
      ctx,
      where,
      `Unsupported file type for an assertion value: ${ref} (use .txt, .json, .yaml or .yml)`,
    );
    return { ok: false };
  }
  let text: string;
  try {
    text = ctx.files.read(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `assertion value file ${ctx.files.relative(abs)}: ${err.message}`);
    return { ok: false };
  }
  if (ext === '.txt') return { ok: true, value: text.trim() };
  try {
    return { ok: true, value: ext === '.json' ? JSON.parse(text) : yamlLib().parse(text, { merge: true }) };
  } catch (err) {
    errorAt(
      ctx,
      where,
      `assertion value file ${ctx.files.relative(abs)}: ${(err as Error).message.split('\n')[0]}`,
    );
    return { ok: false };
  }
}

/**
 * Checks the file a script assertion names (`file://x.py[:fn]`, §2.5): it must exist, and it joins
 * the suite's files so the content hash changes when the script does. The value itself is kept as
 * written; the scorer resolves it against the suite's folder, as this check does.
 */
function checkScriptFile(ctx: LoadContext, written: string, value: unknown, where: Where): void {
  if (typeof value !== 'string') return;
  const ref = parseScriptRef(value.trim());
  // A file of the wrong kind is the scorer's `validate` to report, in its own words.
  if (!ref || scriptFileProblem(ref, written)) return;
  const abs = ctx.files.resolve(ref.path);
  try {
    ctx.files.read(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `${written} script file ${ctx.files.relative(abs)}: ${err.message}`);
  }
}

/**
 * Loads `file://` expected values (§2.5) for non-script types and checks script files; other
 * values are kept. `written` is the type as the user wrote it (`not-python`), for messages.
 */
function expectedValue(
  ctx: LoadContext,
  type: string,
  written: string,
  value: unknown,
  whereOf: () => Where,
): unknown {
  if (RUNNABLE_SCRIPT_TYPES.has(type)) checkScriptFile(ctx, written, value, whereOf());
  if (type === 'ruby' || (!SCRIPT_TYPES.has(type) && isRubyRef(value)))
    checkRubyFile(ctx, written, value, whereOf());
  if (SCRIPT_TYPES.has(type)) return value;
  if (isValueScript(value)) {
    // Run for each output (AssertionSpec.valueScript); here only checked and hashed.
    const ref = parseScriptRef(value);
    const problem = ref && !isRubyRef(value) && scriptFileProblem(ref, written);
    if (problem) errorAt(ctx, whereOf(), problem);
    else checkScriptFile(ctx, written, value, whereOf());
    return value;
  }
  if (typeof value === 'string' && value.startsWith('file://')) {
    const loaded = loadFileValue(ctx, value, whereOf());
    return loaded.ok ? loaded.value : value;
  }
  if (Array.isArray(value)) {
    return value.map((item) => {
      if (typeof item !== 'string' || !item.startsWith('file://')) return item;
      const loaded = loadFileValue(ctx, item, whereOf());
      return loaded.ok ? loaded.value : item;
    });
  }
  return value;
}

/**
 * Where a part of an assertion was written, looked up on first use: a test file of thousands of
 * assertions that load without a problem asks for few of these places.
 */
function lazyWhere(at: Locate, path: (string | number)[]): () => Where {
  let where: Where | undefined;
  return () => {
    where ??= at(path);
    return where;
  };
}

function resolveType(
  ctx: LoadContext,
  written: string,
  where: Where,
  context: string,
): { type: string; negate: boolean } | undefined {
  const resolved = resolveAssertionType(written);
  if (resolved) return resolved;
  const refusal = refusedType(written);
  if (refusal) {
    errorAt(ctx, where, `${context}: assertion type "${written}" ${refusal}`);
    return undefined;
  }
  if (written === 'and' || written === 'or') {
    // Not promptfoo types: promptfoo 0.123.1 accepts the config and fails every row of the test
    // ("Unknown assertion type: and"); assay says so before the run.
    errorAt(
      ctx,
      where,
      `${context}: assertion type "${written}" is not a promptfoo type (promptfoo fails each row with "Unknown assertion type: ${written}"); group assertions with "assert-set"`,
    );
    return undefined;
  }
  if (isPromptfooAssertionType(written)) {
    errorAt(
      ctx,
      where,
      `${context}: assertion type "${written}" is a promptfoo type assay does not support yet`,
    );
    return undefined;
  }
  const negated = written.startsWith('not-');
  const base = negated ? written.slice(4) : written;
  const hint = didYouMean(base, scorerTypes()).replace(
    /"(.*)"/,
    (_, t: string) => `"${negated ? 'not-' : ''}${t}"`,
  );
  errorAt(ctx, where, `${context}: unknown assertion type "${written}"${hint}`);
  return undefined;
}

/** The assertions that read a retrieved context, and so a `contextTransform` (spec §5.4). */
const CONTEXT_TYPES = new Set(['context-faithfulness', 'context-recall', 'context-relevance']);

/** Fields of an assertion that assay reads itself; the rest (spec §5.1) go to the scorer as options. */
const OWN_FIELDS = new Set(['type', 'value', 'threshold', 'weight', 'metric', 'provider', 'config']);
/** Every assertion field promptfoo defines (spec §5.1), for telling a typo from an extra. */
const KNOWN_FIELDS = [
  ...OWN_FIELDS,
  'rubricPrompt',
  'transform',
  'contextTransform',
  'normalizeUnicode',
  // assert-set's own list.
  'assert',
];

/** Reports a template that would fail when rendered; true when it is fine. */
/** Whether a text renders only with the config's `nunjucksFilters`, which promptfoo gives to prompts alone. */
function usesPromptFilter(text: string): boolean {
  return (
    checkTemplate(text)?.includes('unknown filter') === true && checkTemplate(text, 'prompt') === undefined
  );
}

function templateOk(ctx: LoadContext, text: string, where: Where | (() => Where), name: string): boolean {
  const problem = checkTemplate(text);
  if (problem === undefined) return true;
  if (typeof where === 'function') where = where();
  // promptfoo renders assertion values without the config's `nunjucksFilters` (every row of
  // such a test is an error there); assay refuses it before the run and says why.
  const promptOnly =
    problem && usesPromptFilter(text) ? ' (`nunjucksFilters` apply to prompts only, as in promptfoo)' : '';
  if (problem) errorAt(ctx, where, `${name}: ${problem}${promptOnly}`);
  return problem === undefined;
}

/** Checks the templates in an assertion value as the engine will render them (§2.5). */
function valueTemplatesOk(
  ctx: LoadContext,
  value: unknown,
  at: Locate,
  name: string,
  valueWhere: () => Where,
): boolean {
  if (typeof value === 'string') return templateOk(ctx, value, valueWhere, `${name}.value`);
  if (!Array.isArray(value)) return true;
  let ok = true;
  value.forEach((item, i) => {
    if (typeof item === 'string' && !templateOk(ctx, item, at(['value', i]), `${name}.value[${i}]`))
      ok = false;
  });
  return ok;
}

/**
 * Translates one promptfoo assertion. `at` addresses the assertion; `context` names it the way
 * promptfoo does (`tests[0].assert[1]`). Returns undefined after reporting a problem.
 */
export function parseAssertion(
  ctx: LoadContext,
  raw: unknown,
  at: Locate,
  context: string,
): AssertionSpec | undefined {
  const where = at();
  if (!isRecord(raw)) {
    errorAt(
      ctx,
      where,
      `Invalid assertion at ${context}: expected an object, but got ${raw === null ? 'null' : typeof raw} (${brief(raw)})`,
    );
    return undefined;
  }
  // A `$ref` pointer has been refused where the file was parsed; "missing type" would only add noise.
  if (isRefObject(raw)) return undefined;
  if (raw.type === undefined || raw.type === null) {
    const typo = Object.keys(raw).find((key) => key !== 'type' && closest(key, ['type']) === 'type');
    errorAt(
      ctx,
      where,
      typo
        ? `Invalid assertion at ${context}: missing required 'type' property (found "${typo}": did you mean "type"?)`
        : `Invalid assertion at ${context}: missing required 'type' property (received ${brief(raw)})\n${MISSING_TYPE_HINT}`,
    );
    return undefined;
  }
  if (typeof raw.type !== 'string') {
    errorAt(
      ctx,
      at(['type']),
      `Invalid assertion at ${context}: 'type' must be a string, got ${brief(raw.type)}`,
    );
    return undefined;
  }
  const resolved = resolveAssertionType(raw.type) ?? resolveType(ctx, raw.type, at(['type']), context);
  let ok = resolved !== undefined;
  const spec: AssertionSpec = { type: resolved?.type ?? raw.type, source: where };
  if (resolved?.negate) spec.negate = true;
  if (raw.value !== undefined) {
    const valueWhere = lazyWhere(at, ['value']);
    spec.value = expectedValue(ctx, spec.type, raw.type, raw.value, valueWhere);
    if (!SCRIPT_TYPES.has(spec.type) && isValueScript(spec.value)) spec.valueScript = spec.value;
    else if (!valueTemplatesOk(ctx, spec.value, at, context, valueWhere)) ok = false;
  }
  for (const key of ['threshold', 'weight'] as const) {
    const v = raw[key];
    if (v === undefined || v === null) continue;
    // No upper bound: an assertion threshold may be milliseconds or dollars (latency, cost). A
    // negative threshold runs, as in promptfoo (it makes a score-type assertion always pass).
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      errorAt(ctx, at([key]), `assertion \`${key}\` must be a finite number, got ${brief(v)}`);
      ok = false;
    } else if (v < 0 && key === 'weight') {
      errorAt(ctx, at([key]), `assertion \`${key}\` must not be negative, got ${v}`);
      ok = false;
    } else spec[key] = v;
  }
  if (raw.metric !== undefined && raw.metric !== null) {
    if (typeof raw.metric !== 'string') {
      errorAt(ctx, at(['metric']), `assertion \`metric\` must be a string, got ${brief(raw.metric)}`);
      ok = false;
    } else if (usesPromptFilter(raw.metric)) {
      // promptfoo cannot render it either (no `nunjucksFilters` there) and keeps the name as written.
      warnAt(
        ctx,
        at(['metric']),
        `${context}.metric: \`nunjucksFilters\` apply to prompts only, so the metric is named ${JSON.stringify(raw.metric)} as written (as in promptfoo)`,
      );
      spec.metric = raw.metric;
    } else if (templateOk(ctx, raw.metric, at(['metric']), `${context}.metric`)) spec.metric = raw.metric;
    else ok = false;
  }
  if (raw.provider !== undefined && raw.provider !== null) {
    const grader = graderSpec(ctx, raw.provider, at(['provider']));
    if (grader) spec.grader = grader;
    else ok = false;
  }
  const options: Record<string, unknown> = {};
  if (raw.config !== undefined && raw.config !== null) {
    if (isRecord(raw.config)) options.config = raw.config;
    else {
      errorAt(ctx, at(['config']), `assertion \`config\` must be a mapping, got ${brief(raw.config)}`);
      ok = false;
    }
  }
  if (spec.type === 'assert-set') {
    const children = parseAssertSet(ctx, raw, at, context);
    if (children) spec.children = children;
    else ok = false;
  }
  for (const [key, value] of Object.entries(raw)) {
    if (OWN_FIELDS.has(key) || value === undefined) continue;
    if (key === 'assert' && spec.type === 'assert-set') continue;
    if (key === 'transform' && spec.type !== 'assert-set') {
      const code = transformAt(ctx, value, at([key]), `${context}.transform`);
      if (code === undefined) ok = false;
      else spec.transform = code;
      continue;
    }
    if (key === 'contextTransform') {
      const code = transformAt(ctx, value, at([key]), `${context}.contextTransform`);
      if (code === undefined) ok = false;
      else if (!CONTEXT_TYPES.has(spec.type))
        warnAt(
          ctx,
          at([key], true),
          `${context}: \`contextTransform\` is ignored by ${spec.type} (only the context-* assertions read it)`,
        );
      else options[key] = code;
      continue;
    }
    if (key === 'rubricPrompt') {
      const loaded = rubricPrompt(ctx, value, at([key]));
      if (loaded.ok) options[key] = loaded.value;
      else ok = false;
      continue;
    }
    if (!KNOWN_FIELDS.includes(key)) {
      const hint = didYouMean(key, KNOWN_FIELDS);
      // `vaule:` or `wieght:` would silently leave the assertion without its value or weight.
      if (hint) {
        errorAt(ctx, at([key], true), `${context}: unknown assertion field "${key}"${hint}`);
        ok = false;
        continue;
      }
      warnAt(ctx, at([key], true), `${context}: unknown assertion field "${key}" is ignored`);
    }
    options[key] = value;
  }
  if (Object.keys(options).length > 0) spec.options = options;
  if (!ok) return undefined;
  // A computed value is checked when it is computed; the file's name is no value to validate.
  const problem = spec.valueScript === undefined ? getScorer(spec.type)?.validate?.(spec) : undefined;
  if (problem) {
    // Scorers name the type in their newer messages; an older one gets the type in front.
    const named = problem.startsWith(raw.type) || problem.startsWith(`"${spec.type}"`);
    errorAt(ctx, where, `${context}: ${named ? problem : `${raw.type}: ${problem}`}`);
    return undefined;
  }
  const doubt = getScorer(spec.type)?.lint?.(spec);
  if (doubt) warnAt(ctx, where, `${context}: ${doubt}`);
  return spec;
}

/**
 * The children of an `assert-set` (§5.6). promptfoo refuses a set inside a set, and ignores
 * select-best and max-score inside one (they compare whole rows), which is said here.
 */
function parseAssertSet(
  ctx: LoadContext,
  raw: Record<string, unknown>,
  at: Locate,
  context: string,
): AssertionSpec[] | undefined {
  if (!Array.isArray(raw.assert)) {
    errorAt(
      ctx,
      raw.assert === undefined ? at() : at(['assert']),
      `${context}: assert-set must have an \`assert\` property that is an array of assertions`,
    );
    return undefined;
  }
  const children = parseAssertions(ctx, raw.assert, within(at, ['assert']), `${context}.assert`);
  let ok = children.length === raw.assert.length;
  const kept: AssertionSpec[] = [];
  children.forEach((child) => {
    const where = child.source ?? at();
    if (child.type === 'assert-set') {
      errorAt(ctx, where, `${context}: assert-set must not have child assert-sets`);
      ok = false;
    } else if (getScorer(child.type)?.compare) {
      warnAt(
        ctx,
        where,
        `${context}: ${child.type} inside an assert-set is ignored (promptfoo skips it there)`,
      );
    } else kept.push(child);
  });
  return ok ? kept : undefined;
}

/** Translates an `assert` list; `prefix` is promptfoo's name for the list (`tests[2].assert`). */
export function parseAssertions(
  ctx: LoadContext,
  list: unknown,
  at: Locate,
  prefix: string,
): AssertionSpec[] {
  if (list === undefined || list === null || isRefObject(list)) return [];
  if (!Array.isArray(list)) {
    errorAt(ctx, at(), `${prefix} must be an array`);
    return [];
  }
  const out: AssertionSpec[] = [];
  list.forEach((item, i) => {
    const rowKey = isRecord(item) ? (item as RawAssertion)[ROW_KEY] : undefined;
    const spec =
      typeof rowKey === 'string'
        ? sharedRowAssertion(ctx, rowKey, item, within(at, [i]), `${prefix}[${i}]`)
        : parseAssertion(ctx, item, within(at, [i]), `${prefix}[${i}]`);
    if (spec) out.push(spec);
  });
  return out;
}

/** Parsed row assertions of one load, by row key (see ROW_KEY): a cell repeated in every row is parsed once. */
const sharedSpecs = new WeakMap<LoadContext, Map<string, AssertionSpec>>();

function sharedMemo(ctx: LoadContext): Map<string, AssertionSpec> {
  let memo = sharedSpecs.get(ctx);
  if (!memo) {
    memo = new Map();
    sharedSpecs.set(ctx, memo);
  }
  return memo;
}

/**
 * The assertion of a row's (trimmed) `__expected` cell in a file without `__metric` or `__config`
 * columns: what parseAssertions gives for the item testFromCsvRow builds from it, the `i`-th of the
 * list `prefix` (`tests[3].assert`) at `at`. A cell seen before is not parsed again.
 */
export function cellAssertion(
  ctx: LoadContext,
  cell: string,
  at: Locate,
  i: number,
  prefix: string,
): AssertionSpec | undefined {
  const key = `${cell}\u0000\u0000`;
  const known = sharedMemo(ctx).get(key);
  if (known) return known;
  const raw = assertionFromString(cell);
  raw[ROW_KEY] = key;
  const plain = plainCellSpec(raw);
  if (plain) {
    remember(sharedMemo(ctx), key, plain);
    return plain;
  }
  return sharedRowAssertion(ctx, key, raw, within(at, [i]), `${prefix}[${i}]`);
}

/**
 * What parseAssertion gives (without its source, frozen) for a cell's `{type, value, threshold?}`
 * when there is nothing to check but the type and what the scorer says: a known type that runs no
 * code and is no group, a text value that names no file and holds no template. Undefined for any
 * other, and where the scorer's `validate` or `lint` has something to say (the full parse says it).
 */
function plainCellSpec(raw: RawAssertion): AssertionSpec | undefined {
  const value = raw.value;
  if (typeof value !== 'string' || value.includes('file://') || hasTemplateSyntax(value)) return undefined;
  for (const key of Object.keys(raw))
    if (key !== 'type' && key !== 'value' && key !== 'threshold') return undefined;
  const resolved = resolveAssertionType(raw.type);
  if (!resolved || SCRIPT_TYPES.has(resolved.type) || resolved.type === 'assert-set') return undefined;
  const spec: AssertionSpec = { type: resolved.type };
  if (resolved.negate) spec.negate = true;
  spec.value = value;
  if (raw.threshold !== undefined) {
    if (typeof raw.threshold !== 'number' || !Number.isFinite(raw.threshold)) return undefined;
    spec.threshold = raw.threshold;
  }
  const scorer = getScorer(spec.type);
  if (scorer?.validate?.(spec) || scorer?.lint?.(spec)) return undefined;
  return Object.freeze(spec);
}

/** Keeps a shared spec under its row key. */
function remember(memo: Map<string, AssertionSpec>, key: string, spec: AssertionSpec): void {
  // Full: start again (a cell repeated throughout the file comes straight back in). Dropping the
  // oldest key instead made each insertion skip the holes earlier deletions left in the map.
  if (memo.size >= SHARED_LIMIT) memo.clear();
  memo.set(key, spec);
}
/** Enough for the cells a suite repeats; a cell unique to its row is never asked for again. */
const SHARED_LIMIT = 1000;

/**
 * Parses an assertion from a row's `__expected` cell, or returns the frozen spec an equal cell gave.
 * A shared spec has no `source` (the case's source is the row's line, the same place); a cell
 * with a problem is parsed again in every row, so each row still reports it.
 */
function sharedRowAssertion(
  ctx: LoadContext,
  key: string,
  raw: unknown,
  at: Locate,
  context: string,
): AssertionSpec | undefined {
  const memo = sharedMemo(ctx);
  const known = memo.get(key);
  if (known) return known;
  const diagnostics = ctx.bag.count;
  const spec = parseAssertion(ctx, raw, at, context);
  if (!spec || ctx.bag.count !== diagnostics) return spec;
  const { source: _source, ...shared } = spec;
  if (Array.isArray(shared.value)) Object.freeze(shared.value);
  Object.freeze(shared);
  remember(memo, key, shared);
  return shared;
}
