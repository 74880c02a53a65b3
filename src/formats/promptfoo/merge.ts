// promptfoo's defaultTest merge (spec §1.6), producing assay cases.
import type { AssertionSpec, Case, CaseOptions, ProviderSpec } from '../../core/types.js';
import type { ParsedTest } from './test-case.js';

/** A case before ids are assigned, plus what var expansion needs to know. */
export interface MergedCase {
  case: Omit<Case, 'id'>;
  disableVarExpansion: boolean;
  disableConversationVar: boolean;
  /** `options.storeOutputAs`, the test's own or else the defaultTest's. */
  storeOutputAs?: string;
}

function withGrading(
  asserts: AssertionSpec[],
  grader: ProviderSpec | undefined,
  grading: Record<string, unknown>,
): AssertionSpec[] {
  const keys = Object.keys(grading);
  if (!grader && keys.length === 0) return asserts;
  return asserts.map((a) => {
    const out: AssertionSpec = { ...a };
    // Precedence (§5.4): the assertion's own provider, then the test's options.provider.
    if (!out.grader && grader) out.grader = grader;
    for (const key of keys) {
      if (out.options?.[key] === undefined) out.options = { ...out.options, [key]: grading[key] };
    }
    return out;
  });
}

/**
 * Merges defaultTest into a test: vars, options and metadata shallow (test wins), default
 * assertions first unless `disableDefaultAsserts`, threshold and prompt/provider filters taken
 * from the test when it sets them. `defaultTest.options.provider` is not applied here: it is the
 * suite's grader, which a command-line `--grader` may replace.
 */
export function mergeDefaultTest(test: ParsedTest, def: ParsedTest | undefined): MergedCase {
  const d: Partial<ParsedTest> = def ?? {};
  // concat sizes the array exactly; a spread or push-built array keeps spare slots in every case.
  const asserts = (test.disableDefaultAsserts === true ? [] : (d.asserts ?? [])).concat(test.asserts ?? []);
  const options: CaseOptions = {};
  const prefix = test.prefix || d.prefix;
  const suffix = test.suffix || d.suffix;
  if (prefix) options.prefix = prefix;
  if (suffix) options.suffix = suffix;
  const params = { ...d.options, ...test.options };
  if (Object.keys(params).length > 0) options.params = params;
  // Options merge key by key, so a default `transform` beats a test's `postprocess` (§1.6, §1.8).
  const transform = (test.transform ?? d.transform) || (test.postprocess ?? d.postprocess);
  if (transform) options.transform = transform;
  const provider = test.provider ?? d.provider;
  if (provider) options.provider = provider;

  const c: Omit<Case, 'id'> = {
    vars: { ...d.vars, ...test.vars },
    asserts: withGrading(asserts, test.grader, { ...d.gradingOptions, ...test.gradingOptions }),
    metadata: { ...d.metadata, ...test.metadata },
  };
  if (test.description !== undefined) c.description = test.description;
  const scoreScript = test.scoreScript || d.scoreScript;
  const threshold = test.threshold ?? d.threshold;
  if (scoreScript || threshold !== undefined) {
    c.scoring = {};
    if (threshold !== undefined) c.scoring.threshold = threshold;
    if (scoreScript) c.scoring.scoreScript = scoreScript;
  }
  const providers = test.providers ?? d.providers;
  const prompts = test.prompts ?? d.prompts;
  if (providers !== undefined || prompts !== undefined) {
    c.only = {};
    if (providers !== undefined) c.only.providers = providers;
    if (prompts !== undefined) c.only.prompts = prompts;
  }
  if (Object.keys(options).length > 0) c.preparation = { options };
  if (test.providerOutput !== undefined) c.replay = { output: test.providerOutput };
  const where = test.at();
  c.provenance = { source: { file: where.file, line: where.line, col: where.col } };
  return {
    case: c,
    disableVarExpansion: test.disableVarExpansion ?? d.disableVarExpansion ?? false,
    disableConversationVar: test.disableConversationVar ?? d.disableConversationVar ?? false,
    ...((test.storeOutputAs ?? d.storeOutputAs) !== undefined
      ? { storeOutputAs: test.storeOutputAs ?? d.storeOutputAs }
      : {}),
  };
}
