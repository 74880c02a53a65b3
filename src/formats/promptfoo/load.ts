// Loads a promptfoo config (and every file it references) into assay's Suite.
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { SurveyBuilder, type SurveyedStream, streamedSuite } from '../../core/cases.js';
import { DiagnosticBag, InputError } from '../../core/errors.js';
import { shortHash } from '../../core/hash.js';
import { assignCaseIds, CaseIdentities } from '../../core/ids.js';
import type { Case, CaseStream, PromptTemplate, ProviderSpec, Suite } from '../../core/types.js';
import '../../scorers/index.js';
import { type ConfigPart, combineConfigs } from './combine.js';
import { parseConfig } from './config.js';
import { errorAt, isFileRef, isRecord, type LoadContext, warnAt } from './context.js';
import { promptfooDefaultGrader } from './default-grader.js';
import { parseDerivedMetrics } from './derived-metrics.js';
import { envFlag, envRunDefaults, warnUnhonouredEnv } from './env-flags.js';
import { renderEnvTemplates } from './env-templates.js';
import { expandVars } from './expand.js';
import { loadNunjucksFilters } from './filters.js';
import { mergeDefaultTest } from './merge.js';
import { defaultPrompt, loadPrompts, markConversationPrompts } from './prompts.js';
import { loadProviders } from './providers.js';
import {
  missingPromptMessage,
  missingProviderMessage,
  promptRefMatches,
  providerRefMatches,
} from './refs.js';
import { type RowFile, rowFilesOf, rowFileTests, STREAM_ABOVE_BYTES, totalBytes } from './row-files.js';
import { type LoadDefaults, parseRunOptions } from './run-options.js';
import { scenarioTests } from './scenarios.js';
import {
  displayPath,
  type SplitSequence,
  SplitUnreadable,
  SuiteFiles,
  UnreadableFile,
  type Where,
  type YamlFile,
  type YamlSplit,
} from './source.js';
import { type ParsedTest, parseTest, type TestWarnings } from './test-case.js';
import { loadDefaultTestFile, loadTestSources, type RawTest } from './test-files.js';
import { VarFileLoader, type VarLocator, varScriptsOf } from './var-files.js';

/** Options for {@link loadPromptfooSuite}. */
export interface LoadPromptfooOptions {
  /** The environment `{{ env.NAME }}` reads (default: process.env). */
  env?: Record<string, string | undefined>;
  /** `--var`: merged over defaultTest.vars (promptfoo's rule: a test's own vars still win). */
  vars?: Record<string, string>;
  /** See LoadOptions.streamAboveBytes. */
  streamAboveBytes?: number;
  /** Further configs combined with this one (`-c a.yaml -c b.yaml`), as promptfoo combines them. */
  combine?: string[];
  /** The config's text, given instead of read from `configPath` (a config object given to `evaluate()`). */
  text?: string;
  /** `-p FILE…` (promptfoo's `--prompts`): prompt files that replace the config's, from the current folder. */
  prompts?: string[];
  /** `-t FILE` (promptfoo's `--tests`): a test file that replaces the config's tests, from the current folder. */
  tests?: string;
  /** `--prompt-prefix`/`--prompt-suffix`: as commandLineOptions.promptPrefix/promptSuffix, over them. */
  promptPrefix?: string;
  promptSuffix?: string;
}

function validateRefs(
  ctx: LoadContext,
  test: ParsedTest,
  owner: string,
  providers: ProviderSpec[] | undefined,
  prompts: PromptTemplate[] | undefined,
): void {
  if (providers) {
    for (const ref of test.providers ?? []) {
      if (!providers.some((p) => providerRefMatches(ref, p))) {
        errorAt(
          ctx,
          test.at(['providers', test.providers!.indexOf(ref)]),
          missingProviderMessage(owner, ref, providers),
        );
      }
    }
  }
  if (prompts) {
    for (const ref of test.prompts ?? []) {
      if (!prompts.some((p) => promptRefMatches(ref, p))) {
        errorAt(
          ctx,
          test.at(['prompts', test.prompts!.indexOf(ref)]),
          missingPromptMessage(owner, ref, prompts),
        );
      }
    }
  }
}

function loadDefaultTest(
  ctx: LoadContext,
  config: Record<string, unknown>,
  yaml: YamlFile,
): RawTest | undefined {
  const value = config.defaultTest;
  let raw: RawTest | undefined;
  if (typeof value === 'string') {
    if (value.startsWith('file://')) raw = loadDefaultTestFile(ctx, value, yaml.locate(['defaultTest']));
    else errorAt(ctx, yaml.locate(['defaultTest']), '`defaultTest` must be a mapping or a file:// reference');
  } else if (value !== undefined && value !== null) {
    raw = { value, at: yaml.locator(['defaultTest']) };
  }
  // Top-level `metadata` is the default metadata only when defaultTest sets none (§1.1).
  if (config.metadata !== undefined) {
    const base = raw ?? { value: {}, at: yaml.locator(['metadata']) };
    if (isRecord(base.value) && !('metadata' in base.value)) {
      raw = { ...base, value: { metadata: config.metadata, ...base.value } };
    } else raw = base;
  }
  return raw;
}

/**
 * The defaultTest with what the command line adds (spec §1.6): `--var` values (over the config's
 * `commandLineOptions.var`) merged into its vars, and a prompt prefix/suffix from
 * `commandLineOptions` where the defaultTest sets none (the config's own defaultTest wins).
 */
function withCommandLineDefaults(
  parsed: ParsedTest | undefined,
  vars: Record<string, string>,
  load: LoadDefaults,
  yaml: YamlFile,
): ParsedTest | undefined {
  const hasVars = Object.keys(vars).length > 0;
  const prefix = !parsed?.prefix && load.promptPrefix ? load.promptPrefix : undefined;
  const suffix = !parsed?.suffix && load.promptSuffix ? load.promptSuffix : undefined;
  if (!hasVars && prefix === undefined && suffix === undefined) return parsed;
  const out: ParsedTest = {
    ...(parsed ?? { options: {}, gradingOptions: {}, at: yaml.locator(['defaultTest']) }),
  };
  if (hasVars) out.vars = { ...parsed?.vars, ...vars };
  if (prefix !== undefined) out.prefix = prefix;
  if (suffix !== undefined) out.suffix = suffix;
  return out;
}

/** Where a case's vars were written: the test's own, else the defaultTest's. */
function varLocator(test: ParsedTest, defaultTest: ParsedTest | undefined): VarLocator {
  return (name, path) => {
    if (test.vars && name in test.vars) return test.at(['vars', name, ...path]);
    if (defaultTest?.vars && name in defaultTest.vars) return defaultTest.at(['vars', name, ...path]);
    return test.at(['vars']);
  };
}

/** The cases of one test as written: the defaultTest merged in, list vars expanded. */
function expandTest(
  ctx: LoadContext,
  test: ParsedTest,
  defaultTest: ParsedTest | undefined,
  entry: number,
  threaded = false,
  order: StoredOutputs = { storing: false },
): { cases: Omit<Case, 'id'>[]; at: VarLocator } {
  const merged = mergeDefaultTest(test, defaultTest);
  if (merged.storeOutputAs !== undefined && threaded)
    errorAt(
      ctx,
      test.at(['options', 'storeOutputAs']),
      '`options.storeOutputAs` in a suite whose prompt reads `_conversation` is not supported by assay yet',
    );
  else if (merged.storeOutputAs !== undefined || order.storing) {
    // promptfoo keeps each stored output in one register for the whole eval, which every later
    // job reads (over its own vars), and then runs the eval one job at a time in its order (test,
    // repeat, provider, prompt): a job sees the output of the last job that stored, whichever
    // provider and prompt that was. So from the first test that stores, every test is a turn of
    // one ordered thread across providers and prompts.
    order.storing = true;
    merged.case.thread = { id: '"storeOutputAs"', ordered: true, across: true };
    if (merged.storeOutputAs !== undefined) merged.case.thread.storeAs = merged.storeOutputAs;
  }
  if (threaded) {
    // promptfoo keeps one history per provider, prompt and conversationId (tests without one
    // share a history), so every test is a turn once a prompt reads `_conversation`.
    const id = merged.case.metadata.conversationId;
    merged.case.thread = { id: JSON.stringify(id ?? null) };
    if (merged.disableConversationVar) merged.case.thread.hidden = true;
  }
  const at = varLocator(test, defaultTest);
  const cases = expandVars(
    ctx,
    merged.case,
    merged.disableVarExpansion || envFlag(ctx.env, 'PROMPTFOO_DISABLE_VAR_EXPANSION'),
    at,
  );
  // Filters that count tests count them as written, before expansion (§4.3).
  // (A single case owns the provenance mergeDefaultTest made; expanded ones share it.)
  if (cases.length === 1 && cases[0] === merged.case && merged.case.provenance)
    merged.case.provenance.expandedFrom = entry;
  else for (const c of cases) c.provenance = { ...c.provenance, expandedFrom: entry };
  return { cases, at };
}

/** A test's name in promptfoo's messages. */
function testOwner(test: ParsedTest, index: number): string {
  return `Test #${index + 1}${test.description ? ` ("${test.description}")` : ''}`;
}

/** What tests are checked against: the prompts and providers that loaded (undefined: they did not). */
/** Whether a test before this one stored its output (`options.storeOutputAs`), in test order. */
interface StoredOutputs {
  storing: boolean;
}

interface TestRefs {
  prompts?: PromptTemplate[];
  providers?: ProviderSpec[];
  /** A prompt reads `_conversation`: every test is a turn of a thread. */
  threaded?: boolean;
}

/** A suite's cases, held or streamed, and whether any sets the `prompt` var. */
type LoadedCases = ({ cases: Case[] } | { stream: CaseStream }) & { anyPromptVar: boolean };

/** Reads every test source of the config (and its scenarios) into cases held in memory. */
async function casesInMemory(
  ctx: LoadContext,
  config: Record<string, unknown>,
  yaml: YamlFile,
  { defaultTest, refs, warnings }: { defaultTest?: ParsedTest; refs: TestRefs; warnings: TestWarnings },
): Promise<LoadedCases> {
  const bag = ctx.bag;
  const errorsBeforeTests = bag.errors.length;
  const rawTests = await loadTestSources(ctx, config.tests, yaml.locator(['tests']));
  const testsGiven = config.tests !== undefined && config.tests !== null;
  if (testsGiven && rawTests.length === 0 && bag.errors.length === errorsBeforeTests) {
    // promptfoo would run one empty test, a green run that checked nothing; a `tests` that names
    // only empty sources is far likelier a wrong path or an unsaved file.
    errorAt(ctx, yaml.locateKey(['tests']), 'no test cases: every source in `tests` is empty');
  }
  // Tests keep their position in the loaded list: promptfoo's messages number them by it.
  const tests: { test: ParsedTest; index: number }[] = [];
  rawTests.forEach((raw, index) => {
    const test = parseTest(ctx, raw, `tests[${index}]`, false, warnings);
    if (test) tests.push({ test, index });
  });
  const fromScenarios = scenarioTests(
    ctx,
    config.scenarios,
    yaml.locator(['scenarios']),
    defaultTest?.metadata,
    warnings,
  );
  for (const { test, index } of tests)
    validateRefs(ctx, test, testOwner(test, index), refs.providers, refs.prompts);
  for (const { test, name } of fromScenarios) validateRefs(ctx, test, name, refs.providers, refs.prompts);

  // No tests and no scenarios: promptfoo runs one empty test (which still gets the defaultTest).
  const sources: ParsedTest[] =
    rawTests.length > 0 || config.scenarios
      ? [...tests.map((t) => t.test), ...fromScenarios.map((t) => t.test)]
      : [{ options: {}, gradingOptions: {}, at: yaml.locator(['tests']) }];
  const unexpanded: Omit<Case, 'id'>[] = [];
  const varLocators: VarLocator[] = [];
  const order: StoredOutputs = { storing: false };
  for (const [entry, test] of sources.entries()) {
    const { cases: expanded, at } = expandTest(ctx, test, defaultTest, entry, refs.threaded, order);
    unexpanded.push(...expanded);
    for (const _ of expanded) varLocators.push(at);
  }
  const anyPromptVar = unexpanded.some((c) => c.vars.prompt !== undefined);
  // A case's identity is its file references, not the files' bytes: editing a document keeps
  // the case it feeds (the content hash still changes). So ids come before the files are read.
  const cases = assignCaseIds(unexpanded);
  const varFiles = new VarFileLoader(ctx);
  for (const [i, c] of cases.entries()) await loadVarFiles(varFiles, c, varLocators[i]);
  return { cases, anyPromptVar };
}

/** Reads a case's `file://` vars; the vars as written are kept for promptfoo's JSON, which shows the references. */
async function loadVarFiles(varFiles: VarFileLoader, c: Case, at: VarLocator): Promise<void> {
  const loaded = await varFiles.load(c.vars, at);
  const written = spelledAsPromptfoo(c.vars);
  if (loaded !== c.vars || written !== c.vars) {
    c.provenance = { ...c.provenance, varsAsWritten: written };
    c.vars = loaded;
  }
  const scripts = varScriptsOf(c.vars);
  if (scripts) c.preparation = { ...c.preparation, varScripts: scripts };
}

/**
 * Vars with each relative `file://` reference spelled as promptfoo writes it in results
 * (`file://./doc.txt` → `file://doc.txt`); the same object when nothing changes.
 */
function spelledAsPromptfoo(vars: Record<string, unknown>): Record<string, unknown> {
  const spell = (value: unknown): unknown => {
    if (typeof value === 'string' && value.startsWith('file://')) {
      const rest = value.slice('file://'.length);
      if (rest === '' || isAbsolute(rest)) return value;
      const normal = posix.normalize(rest);
      return normal === rest ? value : `file://${normal}`;
    }
    if (Array.isArray(value)) {
      const next = value.map(spell);
      return next.some((v, i) => v !== value[i]) ? next : value;
    }
    if (isRecord(value)) return spelledAsPromptfoo(value);
    return value;
  };
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(vars)) {
    const next = spell(v);
    if (next !== v) {
      out ??= { ...vars };
      out[k] = next;
    }
  }
  return out ?? vars;
}

/** Diagnostics nobody reads: a streamed suite's later passes (the first pass reported everything). */
class DiscardingBag extends DiagnosticBag {
  protected override keep(): void {}
}

/** Whether a var value names a file anywhere in it (read asynchronously, so not on a streamed pass). */
function hasFileRef(value: unknown): boolean {
  if (isFileRef(value)) return true;
  if (Array.isArray(value)) return value.some(hasFileRef);
  if (isRecord(value)) return Object.values(value).some(hasFileRef);
  return false;
}

/** Adds the row files to the suite's hash without keeping them (they are read again on each pass). */
function hashRowFiles(ctx: LoadContext, files: RowFile[]): void {
  for (const f of files) {
    try {
      ctx.files.hashFile(f.abs);
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(ctx, f.where, `test file ${ctx.files.relative(f.abs)}: ${err.message}`);
    }
  }
}

/** One pass over a streamed suite's tests: its cases in order (`first`: the pass that reports). */
type CasePass = (ctx: LoadContext, first: boolean) => Iterable<{ c: Omit<Case, 'id'>; at: VarLocator }>;

/**
 * The cases of a config whose tests are streamed (all rows of CSV/JSONL files, or written inline
 * in a big config): a first pass reads every test (each problem reported, with its line), counts
 * the cases and gives them their ids; each later pass reads the tests again and gives every case
 * the same id, so no pass holds more than one test. A suite whose vars read files
 * (asynchronously: a PDF, a script) is held in memory.
 */
async function streamedCases(ctx: LoadContext, pass: CasePass): Promise<LoadedCases> {
  const ids = new CaseIdentities();
  let count = 0;
  let anyPromptVar = false;
  let needsVarFiles = false;
  const survey = new SurveyBuilder();
  for (const { c } of pass(ctx, true)) {
    survey.add(ids.assign(c));
    count++;
    anyPromptVar ||= c.vars.prompt !== undefined;
    needsVarFiles ||= hasFileRef(c.vars);
  }
  ids.done();
  if (ctx.bag.errors.length > 0) return { cases: [], anyPromptVar };
  const basePath = ctx.files.basePath;
  const again = function* (): Generator<{ c: Case; at: VarLocator }> {
    const quiet: LoadContext = { bag: new DiscardingBag(), files: new SuiteFiles(basePath), env: ctx.env };
    let i = 0;
    for (const { c, at } of pass(quiet, false)) yield { c: ids.again(c, i++), at };
  };
  if (needsVarFiles) {
    const varFiles = new VarFileLoader(ctx);
    const cases: Case[] = [];
    for (const { c, at } of again()) {
      await loadVarFiles(varFiles, c, at);
      cases.push(c);
    }
    return { cases, anyPromptVar };
  }
  const stream: SurveyedStream = {
    length: count,
    survey: survey.result(),
    *[Symbol.iterator]() {
      for (const { c } of again()) yield c;
    },
  };
  return { stream, anyPromptVar };
}

/** The cases of row files' tests, in order; the first pass also checks references and empty files. */
function* casesOfRows(
  ctx: LoadContext,
  files: RowFile[],
  opts: { defaultTest?: ParsedTest; refs: TestRefs; warnings: TestWarnings; tests: Where; first: boolean },
): Generator<{ c: Omit<Case, 'id'>; at: VarLocator }> {
  const { defaultTest, refs, warnings, first } = opts;
  const errorsAtStart = first ? ctx.bag.errors.length : 0;
  const order: StoredOutputs = { storing: false };
  let index = 0;
  for (const f of files) {
    const errorsBefore = first ? ctx.bag.errors.length : 0;
    let inFile = 0;
    for (const raw of rowFileTests(ctx, f)) {
      inFile++;
      const test = parseTest(ctx, raw, `tests[${index}]`, false, warnings);
      if (test) {
        if (first) validateRefs(ctx, test, testOwner(test, index), refs.providers, refs.prompts);
        const { cases, at } = expandTest(ctx, test, defaultTest, index, refs.threaded, order);
        for (const c of cases) yield { c, at };
      }
      index++;
    }
    if (first && inFile === 0 && ctx.bag.errors.length === errorsBefore)
      warnAt(ctx, f.where, `no test cases in ${ctx.files.relative(f.abs)}`);
  }
  if (first && index === 0 && ctx.bag.errors.length === errorsAtStart)
    errorAt(ctx, opts.tests, 'no test cases: every source in `tests` is empty');
}

/**
 * The cases of a config's inline tests, read an item at a time from the config's text. The first
 * pass reports in the order a config read whole does: every test's own problems, then its
 * references, then what expanding it finds.
 */
function* casesOfItems(
  ctx: LoadContext,
  items: SplitSequence,
  opts: { defaultTest?: ParsedTest; refs: TestRefs; warnings: TestWarnings; first: boolean },
): Generator<{ c: Omit<Case, 'id'>; at: VarLocator }> {
  const { defaultTest, refs, warnings, first } = opts;
  const refsCtx: LoadContext = first ? { ...ctx, bag: new DiagnosticBag() } : ctx;
  const expandCtx: LoadContext = first ? { ...ctx, bag: new DiagnosticBag() } : ctx;
  const order: StoredOutputs = { storing: false };
  let index = 0;
  // As parseConfig renders the rest of the config.
  for (const raw of items.items((value) => renderEnvTemplates(value, ctx.env))) {
    const test = parseTest(ctx, raw, `tests[${index}]`, false, warnings);
    if (test) {
      if (first) validateRefs(refsCtx, test, testOwner(test, index), refs.providers, refs.prompts);
      const { cases, at } = expandTest(expandCtx, test, defaultTest, index, refs.threaded, order);
      for (const c of cases) yield { c, at };
    }
    index++;
  }
  for (const later of first ? [refsCtx.bag, expandCtx.bag] : []) {
    ctx.bag.items.push(...later.items);
    ctx.bag.count += later.count;
  }
}

/** One config file read and parsed, with the files it read (itself and its `$ref` targets). */
function readPart(
  ctx: LoadContext,
  abs: string,
  processEnv: Record<string, string | undefined>,
  given?: string,
  split?: YamlSplit,
): (ConfigPart & { files: string[] }) | undefined {
  const file = displayPath(abs);
  let text: string;
  try {
    text = given ?? readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    ctx.bag.error(file, code === 'ENOENT' ? 'config file not found' : `cannot read config: ${String(err)}`);
    return undefined;
  }
  const parsed = parseConfig(ctx, file, text, processEnv, split);
  if (!parsed) return undefined;
  const dir = dirname(abs);
  const files = [abs, ...ctx.files.files.map((rel) => resolve(dir, rel))];
  return { ...parsed, dir, files };
}

/**
 * Reads a promptfoo config and everything it references into a Suite. Throws InputError with
 * every problem found (each positioned where the parser allows) if the config cannot be run.
 */
export async function loadPromptfooSuite(
  configPath: string,
  opts: LoadPromptfooOptions = {},
): Promise<Suite> {
  try {
    return await loadSuite(configPath, opts, true);
  } catch (err) {
    // Inline tests that cannot be streamed exactly (found on the first pass): read them whole.
    if (err instanceof SplitUnreadable) return loadSuite(configPath, opts, false);
    throw err;
  }
}

/** {@link loadPromptfooSuite}; `streamInline`: a big config's inline tests may be streamed. */
async function loadSuite(
  configPath: string,
  opts: LoadPromptfooOptions,
  streamInline: boolean,
): Promise<Suite> {
  const abs = resolve(configPath);
  const file = displayPath(abs);
  const processEnv = opts.env ?? process.env;
  const bag = new DiagnosticBag();
  const configDir = dirname(abs);
  const given = opts.text !== undefined ? new Map([[abs, Buffer.from(opts.text)]]) : undefined;
  const ctx: LoadContext = { bag, files: new SuiteFiles(configDir, given), env: processEnv };
  // A big config's inline tests are streamed (read an item at a time on each pass) unless other
  // configs or `-t` replace them, or scenarios, `{path: …}` entries or `<<` merges mix in.
  const streamTests = streamInline && (opts.combine?.length ?? 0) === 0 && opts.tests === undefined;
  const split: YamlSplit | undefined = streamTests
    ? {
        key: 'tests',
        minChars: opts.streamAboveBytes ?? STREAM_ABOVE_BYTES,
        refuseItemKeys: ['path', '<<'],
        refuseRootKeys: ['scenarios'],
      }
    : undefined;
  const first = readPart(ctx, abs, processEnv, opts.text, split);
  if (!first) throw new InputError(bag.errors);
  const parts = [first];
  for (const other of opts.combine ?? []) {
    const partCtx: LoadContext = { bag, files: new SuiteFiles(dirname(resolve(other))), env: processEnv };
    const part = readPart(partCtx, resolve(other), processEnv);
    if (part) parts.push(part);
  }
  if (parts.length !== 1 + (opts.combine?.length ?? 0)) throw new InputError(bag.errors);
  const parsed =
    parts.length === 1 ? first : { ...combineConfigs(ctx, parts), files: parts.flatMap((p) => p.files) };
  const { yaml } = parsed;
  // promptfoo's -p and -t replace the config's prompts and tests; their paths are the command
  // line's (from the current folder), written as references from the config's folder.
  const refBase =
    parts.length === 1 && typeof parsed.config.basePath === 'string'
      ? resolve(configDir, parsed.config.basePath)
      : configDir;
  const fromCli = (path: string): string => `file://${relative(refBase, resolve(path)).split(sep).join('/')}`;
  const config: Record<string, unknown> = {
    ...parsed.config,
    ...(opts.prompts ? { prompts: opts.prompts.map(fromCli) } : {}),
    ...(opts.tests !== undefined ? { tests: fromCli(opts.tests) } : {}),
  };
  ctx.env = { ...processEnv, ...parsed.env };

  let basePath = configDir;
  if (parts.length === 1 && typeof config.basePath === 'string')
    basePath = resolve(configDir, config.basePath);
  ctx.files = new SuiteFiles(basePath, given);
  // The configs and the files their `$ref`s read count in the hash, now relative to the base path.
  for (const f of parsed.files) ctx.files.read(f);

  // Custom filters first: prompts, vars and assertion values are checked with them.
  await loadNunjucksFilters(ctx, config.nunjucksFilters, yaml);
  const derivedMetrics = parseDerivedMetrics(ctx, config.derivedMetrics, yaml);
  const runOptions = parseRunOptions(ctx, config, yaml);
  warnUnhonouredEnv(ctx, file);
  const fromEnv = envRunDefaults(ctx, file);
  if (Object.keys(fromEnv).length > 0) runOptions.run = { ...fromEnv, ...runOptions.run };
  const cliVars = { ...runOptions.load.vars, ...opts.vars };
  const errorsBefore = bag.errors.length;
  const loadedPrompts = loadPrompts(ctx, config.prompts, yaml.locator(['prompts']));
  const promptsOk = bag.errors.length === errorsBefore;
  const providerErrors = bag.errors.length;
  const providers = loadProviders(ctx, config, yaml);
  const providersOk = bag.errors.length === providerErrors;

  const warnings: TestWarnings = { varsAssert: false };
  const rawDefault = loadDefaultTest(ctx, config, yaml);
  const parsedDefault = rawDefault && parseTest(ctx, rawDefault, 'defaultTest', true, warnings);
  const loadDefaults = {
    ...runOptions.load,
    ...(opts.promptPrefix !== undefined ? { promptPrefix: opts.promptPrefix } : {}),
    ...(opts.promptSuffix !== undefined ? { promptSuffix: opts.promptSuffix } : {}),
  };
  const defaultTest = withCommandLineDefaults(parsedDefault, cliVars, loadDefaults, yaml);
  const prompts = loadedPrompts ?? [defaultPrompt()];
  const refs: TestRefs = {
    prompts: promptsOk ? prompts : undefined,
    providers: providersOk ? providers : undefined,
    threaded: markConversationPrompts(ctx, prompts),
  };
  if (defaultTest) validateRefs(ctx, defaultTest, 'defaultTest', refs.providers, refs.prompts);
  if (refs.prompts) {
    for (const provider of providers) {
      for (const ref of provider.prompts ?? []) {
        if (!refs.prompts.some((p) => promptRefMatches(ref, p))) {
          warnAt(
            ctx,
            provider.source ?? { file },
            `provider "${provider.label ?? provider.id}" lists prompt "${ref}", which matches no prompt`,
          );
        }
      }
    }
  }

  // A suite whose tests are all in big CSV/JSONL files is streamed: read again on each pass.
  const rowFiles = config.scenarios ? undefined : rowFilesOf(ctx, config.tests, yaml.locator(['tests']));
  // Later passes report nothing: their warnings start afresh.
  const passWarnings = (first: boolean): TestWarnings => (first ? warnings : { varsAssert: false });
  const rowPass: CasePass = (c, first) =>
    casesOfRows(c, rowFiles ?? [], {
      defaultTest,
      refs,
      tests: yaml.locateKey(['tests']),
      first,
      warnings: passWarnings(first),
    });
  const itemPass: CasePass = (c, first) =>
    casesOfItems(c, yaml.split!, { defaultTest, refs, first, warnings: passWarnings(first) });
  let loadedCases: LoadedCases;
  if (yaml.split) loadedCases = await streamedCases(ctx, itemPass);
  else if (rowFiles && totalBytes(rowFiles) > (opts.streamAboveBytes ?? STREAM_ABOVE_BYTES)) {
    hashRowFiles(ctx, rowFiles);
    loadedCases = await streamedCases(ctx, rowPass);
  } else loadedCases = await casesInMemory(ctx, config, yaml, { defaultTest, refs, warnings });
  if (!loadedPrompts && !loadedCases.anyPromptVar) {
    warnAt(ctx, { file }, 'no `prompts` given; using the default prompt "{{prompt}}"');
  }

  let grader: ProviderSpec | undefined;
  if (defaultTest?.grader) grader = defaultTest.grader;
  bag.throwIfErrors();

  const contentHash = ctx.files.digest();
  // promptfoo reads any path a file:// reference names; so does assay, but says which are outside
  // the suite's folder, so a suite cannot read ~/.ssh or /etc unnoticed.
  const outside = ctx.files.files.filter((rel) => rel === '..' || rel.startsWith('../') || isAbsolute(rel));
  for (const rel of outside)
    warnAt(ctx, { file }, `reads ${rel}, which is outside the suite's folder (${displayPath(basePath)})`);
  const base = {
    id: shortHash(contentHash),
    name:
      runOptions.load.description ??
      (typeof config.description === 'string' && config.description ? config.description : basename(abs)),
    format: 'promptfoo',
    source: {
      path: abs,
      contentHash,
      files: [...ctx.files.files],
      ...(outside.length > 0 ? { outside } : {}),
    },
    basePath,
    prompts,
    providers,
    scoring: derivedMetrics ? { derivedMetrics } : {},
    // Outputs read as promptfoo's providers build them (output-rule.ts, registered by format.ts).
    answerRule: 'promptfoo',
    warnings: bag.warnings,
  };
  const suite: Suite =
    'stream' in loadedCases ? streamedSuite(base, loadedCases.stream) : { ...base, cases: loadedCases.cases };
  if (grader) suite.grader = grader;
  else {
    // promptfoo picks a grader from the keys in the environment (its `env:` section included).
    const chosen = promptfooDefaultGrader(ctx.env);
    if ('spec' in chosen) {
      suite.grader = chosen.spec;
      suite.graderReason = chosen.reason;
    } else suite.graderHint = chosen.hint;
  }
  if (parsed.env) suite.env = parsed.env;
  if (runOptions.run) suite.runDefaults = runOptions.run;
  return suite;
}
