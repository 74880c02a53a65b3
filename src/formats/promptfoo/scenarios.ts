// promptfoo `scenarios` (spec §1.7): every `config` entry (a data set) is crossed with every
// `tests` entry, in order, after the ordinary tests. The pair's fields merge as promptfoo's
// evaluator merges them: the test's fields win over the data's, vars and metadata merge, the
// assertions are the data's then the test's, and the data's `options` are dropped. The defaultTest
// is merged afterwards like for any test.
import { extname } from 'node:path';
import { brief, errorAt, isRecord, type LoadContext, notYet, warnAt } from './context.js';
import { globFiles, isGlobPattern } from './glob.js';
import { type Locate, UnreadableFile, type Where, within } from './source.js';
import { type ParsedTest, parseTest, type TestWarnings } from './test-case.js';
import { parseDataFile } from './test-files.js';

/** A scenario test with the name promptfoo's messages use for it. */
export interface ScenarioTest {
  test: ParsedTest;
  name: string;
}

interface Located {
  value: unknown;
  at: Locate;
}

/** The items of a `file://` YAML/JSON reference (a glob may name several files). */
function fileItems(ctx: LoadContext, ref: string, where: Where, what: string): Located[] {
  const path = ref.slice('file://'.length);
  const files = isGlobPattern(path) ? globFiles(path, ctx.files.basePath) : [ctx.files.resolve(path)];
  if (files.length === 0) errorAt(ctx, where, `no ${what} files match ${ref}`);
  const out: Located[] = [];
  for (const abs of files) {
    const ext = extname(abs).toLowerCase();
    if (!['.yaml', '.yml', '.json'].includes(ext)) {
      errorAt(ctx, where, `${what} file ${ctx.files.relative(abs)} must be YAML or JSON`);
      continue;
    }
    let text: string;
    try {
      text = ctx.files.read(abs);
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(ctx, where, `${what} file ${ctx.files.relative(abs)}: ${err.message}`);
      continue;
    }
    const file = parseDataFile(ctx, abs, text, { json: ext === '.json' });
    if (!file || file.value === undefined || file.value === null) continue;
    if (Array.isArray(file.value)) {
      file.value.forEach((value, i) => {
        out.push({ value, at: file.yaml.locator([i]) });
      });
    } else out.push({ value: file.value, at: file.yaml.locator([]) });
  }
  return out;
}

/** A list that may be written inline or as `file://` references (strings inside the list too). */
function listOf(ctx: LoadContext, value: unknown, at: Locate, what: string): Located[] {
  if (typeof value === 'string' && value.startsWith('file://')) return fileItems(ctx, value, at(), what);
  if (!Array.isArray(value)) {
    errorAt(ctx, at(), `${what} must be a list (or a file:// reference), got ${brief(value)}`);
    return [];
  }
  return value.flatMap((item, i) =>
    typeof item === 'string' && item.startsWith('file://')
      ? fileItems(ctx, item, at([i]), what)
      : [{ value: item, at: within(at, [i]) }],
  );
}

/** Combines a scenario's data entry and test the way promptfoo's evaluator does. */
function combine(data: ParsedTest, test: ParsedTest, conversationId: string | undefined): ParsedTest {
  const metadata = { ...data.metadata, ...test.metadata };
  if (conversationId !== undefined) metadata.conversationId ??= conversationId;
  const out: ParsedTest = {
    // Only the test's options survive (promptfoo drops the data's).
    options: test.options,
    gradingOptions: test.gradingOptions,
    vars: { ...data.vars, ...test.vars },
    asserts: [...(data.asserts ?? []), ...(test.asserts ?? [])],
    metadata,
    at: test.at,
  };
  const description = test.description ?? data.description;
  if (description !== undefined) out.description = description;
  for (const key of ['prefix', 'suffix', 'disableVarExpansion', 'disableDefaultAsserts', 'grader'] as const) {
    if (test[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = test[key];
  }
  for (const key of ['threshold', 'providers', 'prompts', 'providerOutput'] as const) {
    const value = test[key] ?? data[key];
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * Expands the config's `scenarios` into tests, in promptfoo's order: scenario, then data entry,
 * then test. `defaultMetadata` is the defaultTest's metadata (a conversationId there wins).
 */
export function scenarioTests(
  ctx: LoadContext,
  value: unknown,
  at: Locate,
  defaultMetadata: Record<string, unknown> | undefined,
  warnings: TestWarnings,
): ScenarioTest[] {
  if (value === undefined || value === null) return [];
  const out: ScenarioTest[] = [];
  let pairIndex = 0;
  listOf(ctx, value, at, '`scenarios`').forEach((scenario, s) => {
    const name = `scenarios[${s}]`;
    if (!isRecord(scenario.value)) {
      errorAt(
        ctx,
        scenario.at(),
        `${name} must be a mapping with \`config\` and \`tests\`, got ${brief(scenario.value)}`,
      );
      return;
    }
    for (const key of Object.keys(scenario.value)) {
      if (!['description', 'config', 'tests'].includes(key)) {
        warnAt(ctx, scenario.at([key], true), `unknown scenario field "${key}" is ignored`);
      }
    }
    if (scenario.value.config === undefined) {
      errorAt(ctx, scenario.at(), `${name} needs a \`config\` list (the data each of its tests runs with)`);
      return;
    }
    const data = listOf(ctx, scenario.value.config, within(scenario.at, ['config']), `${name}.config`);
    const tests =
      scenario.value.tests === undefined || scenario.value.tests === null
        ? [{ value: {}, at: scenario.at }]
        : listOf(ctx, scenario.value.tests, within(scenario.at, ['tests']), `${name}.tests`);
    // Each test is checked once, however many data entries it is crossed with.
    const parsedTests = tests.map((t, k) =>
      parseTest(ctx, { value: t.value, at: t.at }, `${name}.tests[${k}]`, true, warnings),
    );
    data.forEach((entry, d) => {
      const dataName = `${name}.config[${d}]`;
      if (isRecord(entry.value) && '$values' in entry.value) {
        errorAt(ctx, entry.at(['$values'], true), notYet('`$values` in a scenario config'));
        return;
      }
      const parsedData = parseTest(ctx, { value: entry.value, at: entry.at }, dataName, true, warnings);
      if (isRecord(entry.value) && entry.value.options !== undefined) {
        warnAt(
          ctx,
          entry.at(['options'], true),
          `\`options\` in ${dataName} are ignored: promptfoo takes a scenario test's options from the test and the defaultTest only`,
        );
      }
      const conversationId =
        defaultMetadata?.conversationId !== undefined ? undefined : `__scenario_${pairIndex}__`;
      pairIndex++;
      if (!parsedData) return;
      parsedTests.forEach((parsed, k) => {
        if (parsed)
          out.push({ test: combine(parsedData, parsed, conversationId), name: `${dataName}.tests[${k}]` });
      });
    });
  });
  return out;
}
