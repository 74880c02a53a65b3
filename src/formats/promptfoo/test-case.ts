// One promptfoo TestCase (or the defaultTest) checked field by field (spec §1.5) into a form the
// defaultTest merge can work on. Field names of promptfoo stop here.
import type { ProviderSpec } from '../../core/types.js';
import { isKnownProviderId } from '../../providers/registry.js';
import { parseScriptRef, scriptFileProblem } from '../../runtime/script-ref.js';
import { checkPromptTemplate } from '../../template/render.js';
import { parseAssertions } from './assertions.js';
import {
  brief,
  didYouMean,
  errorAt,
  isFileRef,
  isRecord,
  isRefObject,
  type LoadContext,
  notYet,
  warnAt,
} from './context.js';
import { isGlobPattern } from './glob.js';
import { graderSpec, rubricPrompt } from './graders.js';
import type { ParsedTest, PreparsedTest } from './parsed-test.js';
import { unknownProviderMessage } from './providers.js';
import { type Locate, type RawTest, UnreadableFile, type Where, within } from './source.js';
import { transformAt } from './transforms.js';
import { varsFromFiles } from './var-files.js';

export type { ParsedTest, PreparsedTest } from './parsed-test.js';

const TEST_KEYS = [
  'description',
  'vars',
  'assert',
  'threshold',
  'metadata',
  'options',
  'provider',
  'providers',
  'prompts',
  'providerOutput',
  'assertScoringFunction',
];
const REFUSED_OPTIONS: Record<string, string> = {
  transformVars: '`transformVars`',
};
const GRADING_OPTIONS = new Set(['rubricPrompt', 'factuality']);

function parseOptions(ctx: LoadContext, value: unknown, at: Locate, out: ParsedTest): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) {
    errorAt(ctx, at(['options']), `\`options\` must be a mapping, got ${brief(value)}`);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    const where = at(['options', key]);
    if (key in REFUSED_OPTIONS) errorAt(ctx, where, notYet(REFUSED_OPTIONS[key]));
    else if (key === 'transform' || key === 'postprocess') {
      if (v === undefined || v === null || v === '') continue;
      const code = transformAt(ctx, v, where, `options.${key}`);
      if (code !== undefined) out[key] = code;
    } else if (key === 'prefix' || key === 'suffix') {
      if (typeof v === 'string') {
        // Concatenated onto the prompt before rendering, so a broken tag here breaks every job.
        const problem = checkPromptTemplate(v);
        if (problem) errorAt(ctx, where, `\`options.${key}\`: ${problem}`);
        else out[key] = v;
      } else if (v !== undefined && v !== null) errorAt(ctx, where, `\`options.${key}\` must be a string`);
    } else if (key === 'disableVarExpansion' || key === 'disableDefaultAsserts') {
      out[key] = v === true;
    } else if (key === 'provider') {
      if (v !== undefined && v !== null) out.grader = graderSpec(ctx, v, where);
    } else if (key === 'rubricPrompt') {
      const loaded = rubricPrompt(ctx, v, where);
      if (loaded.ok) out.gradingOptions[key] = loaded.value;
    } else if (GRADING_OPTIONS.has(key)) out.gradingOptions[key] = v;
    else if (key === 'runSerially')
      warnAt(
        ctx,
        where,
        '`runSerially` is ignored by assay: it changes only when calls overlap, never a verdict; use -j 1 to run every call one at a time',
      );
    else if (key === 'disableConversationVar') out.disableConversationVar = v === true;
    else if (key === 'storeOutputAs') {
      if (typeof v === 'string' && v !== '') out.storeOutputAs = v;
      else if (v !== undefined && v !== null)
        errorAt(ctx, where, `\`options.storeOutputAs\` must be a var name (a string), got ${brief(v)}`);
    } else out.options[key] = v;
  }
}

const TEST_PROVIDER_KEYS = ['id', 'label', 'config'];

/**
 * A test's own `provider` (§1.5): an id, or `{id, label?, config?}`. It answers every row of the
 * test in place of the provider under test; the row keeps that provider's column and transform.
 */
function testProvider(ctx: LoadContext, value: unknown, at: Locate): ProviderSpec | undefined {
  const where = at(['provider']);
  if (typeof value === 'string' || (isRecord(value) && typeof value.id === 'string')) {
    const spec: ProviderSpec = typeof value === 'string' ? { id: value } : { id: value.id as string };
    if (isRecord(value)) {
      for (const key of Object.keys(value)) {
        if (!TEST_PROVIDER_KEYS.includes(key))
          warnAt(ctx, at(['provider', key], true), `test \`provider.${key}\` is ignored by assay`);
      }
      if (typeof value.label === 'string') spec.label = value.label;
      if (isRecord(value.config)) spec.config = value.config;
      else if (value.config !== undefined && value.config !== null)
        errorAt(ctx, at(['provider', 'config']), '`provider.config` must be a mapping');
    }
    if (!isKnownProviderId(spec.id)) {
      errorAt(ctx, where, unknownProviderMessage(spec.id));
      return undefined;
    }
    return { ...spec, source: where };
  }
  errorAt(ctx, where, `a test's \`provider\` must be a provider id or {id, config}, got ${brief(value)}`);
  return undefined;
}

function stringList(ctx: LoadContext, value: unknown, where: Where, name: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  errorAt(ctx, where, `${name} must be an array of strings, got ${brief(value)}`);
  return undefined;
}

/** Whether a `vars:` string names vars files (promptfoo globs it, with or without `file://`). */
function isVarsFileRef(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    (isFileRef(value) || /\.(?:ya?ml|json)$/i.test(value) || isGlobPattern(value))
  );
}

function isPreparsed(raw: RawTest): raw is PreparsedTest {
  return typeof (raw as Partial<PreparsedTest>).parsed === 'function';
}

/** Whether any vars-in-assert warning has been given (once per load, like promptfoo). */
export interface TestWarnings {
  varsAssert: boolean;
}

/**
 * Checks and translates one test. `name` is promptfoo's name for it (`tests[3]` or
 * `defaultTest`); a defaultTest may be empty, any other test must set something to run.
 */
export function parseTest(
  ctx: LoadContext,
  raw: RawTest,
  name: string,
  isDefault: boolean,
  warnings: TestWarnings,
): ParsedTest | undefined {
  if (!isDefault && isPreparsed(raw)) return raw.parsed(ctx, name);
  const at = raw.at;
  const value = raw.value;
  if (!isRecord(value)) {
    errorAt(ctx, at(), `${name} must be a mapping (a test case), got ${brief(value)}`);
    return undefined;
  }
  // A `$ref` pointer has been refused where the file was parsed; nothing more to say about it.
  if (isRefObject(value)) return undefined;
  const test: ParsedTest = { options: {}, gradingOptions: {}, at };
  for (const key of Object.keys(value)) {
    if (TEST_KEYS.includes(key)) continue;
    const hint = didYouMean(key, TEST_KEYS);
    // `asserts:` instead of `assert:` would drop every check and leave a green test.
    if (hint) errorAt(ctx, at([key], true), `unknown test field "${key}"${hint}`);
    else warnAt(ctx, at([key], true), `unknown test field "${key}" is ignored`);
  }
  if (value.description !== undefined && value.description !== null) {
    if (isRecord(value.description) || Array.isArray(value.description)) {
      errorAt(ctx, at(['description']), '`description` must be text');
    } else test.description = String(value.description);
  }
  if (value.vars !== undefined && value.vars !== null) {
    const refs = typeof value.vars === 'string' ? [value.vars] : Array.isArray(value.vars) ? value.vars : [];
    if (refs.length > 0 && refs.every(isVarsFileRef)) {
      test.vars = varsFromFiles(ctx, refs, raw.baseDir ?? ctx.files.basePath, at(['vars']));
    } else if (!isRecord(value.vars)) {
      errorAt(ctx, at(['vars']), `\`vars\` must be a mapping (or file:// paths), got ${brief(value.vars)}`);
    } else {
      test.vars = value.vars;
      if ('assert' in value.vars && !warnings.varsAssert) {
        warnings.varsAssert = true;
        warnAt(
          ctx,
          at(['vars', 'assert']),
          "Found 'assert' key in vars. This is likely a mistake in your configuration: 'assert' should be unindented so it is under the test itself, not vars",
        );
      }
    }
  }
  if (value.assert !== undefined && value.assert !== null) {
    test.asserts = parseAssertions(ctx, value.assert, within(at, ['assert']), `${name}.assert`);
  }
  if (value.threshold !== undefined && value.threshold !== null) {
    const t = value.threshold;
    // A case's score is a weighted mean of scores in [0, 1]: a threshold outside that range makes
    // the case always pass or never pass, whatever the model said. promptfoo runs it; so does assay,
    // with a warning.
    if (typeof t !== 'number' || !Number.isFinite(t)) {
      errorAt(ctx, at(['threshold']), `\`threshold\` must be a finite number, got ${brief(t)}`);
    } else {
      if (t < 0 || t > 1)
        warnAt(
          ctx,
          at(['threshold']),
          `\`threshold\` ${t} is outside [0, 1], the range of scores: the test ${t < 0 ? 'always passes' : 'can never pass'}`,
        );
      test.threshold = t;
    }
  }
  if (value.metadata !== undefined && value.metadata !== null) {
    if (isRecord(value.metadata)) test.metadata = value.metadata;
    else errorAt(ctx, at(['metadata']), `\`metadata\` must be a mapping, got ${brief(value.metadata)}`);
  }
  parseOptions(ctx, value.options, at, test);
  if (value.provider !== undefined && value.provider !== null) {
    test.provider = testProvider(ctx, value.provider, at);
  }
  if (value.assertScoringFunction !== undefined && value.assertScoringFunction !== null) {
    const script = scoringScript(ctx, value.assertScoringFunction, at(['assertScoringFunction']));
    if (script) test.scoreScript = script;
  }
  test.providers = stringList(ctx, value.providers, at(['providers']), `${name}.providers`);
  test.prompts = stringList(ctx, value.prompts, at(['prompts']), `${name}.prompts`);
  if (value.providerOutput !== undefined && value.providerOutput !== null) {
    if (typeof value.providerOutput === 'string' || isRecord(value.providerOutput)) {
      test.providerOutput = value.providerOutput;
    } else errorAt(ctx, at(['providerOutput']), '`providerOutput` must be text or a mapping');
  }

  // promptfoo's readTest: a test that sets none of these would run nothing meaningful.
  if (
    !isDefault &&
    !value.assert &&
    !value.vars &&
    !value.options &&
    !value.metadata &&
    !value.provider &&
    !value.providerOutput &&
    typeof value.threshold !== 'number'
  ) {
    errorAt(
      ctx,
      at(),
      `Test case must contain one of the following properties: assert, vars, options, metadata, provider, providerOutput, threshold. Instead got: ${brief(value)}`,
    );
    return undefined;
  }
  return test;
}

/**
 * An `assertScoringFunction` (`file://x.js[:fn]` or `file://x.py[:fn]`): checked here (the file
 * must exist and join the suite's hash), run for each result.
 */
function scoringScript(ctx: LoadContext, value: unknown, where: Where): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('file://')) {
    errorAt(
      ctx,
      where,
      `\`assertScoringFunction\` must be a file:// reference to a .js or .py file, got ${brief(value)}`,
    );
    return undefined;
  }
  const ref = parseScriptRef(value);
  const problem = ref && scriptFileProblem(ref, 'assertScoringFunction');
  if (!ref || problem) {
    errorAt(ctx, where, problem ?? `\`assertScoringFunction\` ${value} names no file`);
    return undefined;
  }
  try {
    ctx.files.read(ctx.files.resolve(ref.path));
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(
      ctx,
      where,
      `assertScoringFunction ${ctx.files.relative(ctx.files.resolve(ref.path))}: ${err.message}`,
    );
    return undefined;
  }
  return value;
}
