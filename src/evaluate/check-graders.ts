// checkGraders: refuses, before anything runs, model-graded assertions that have no grader or name
// an unknown one.
import { surveyOf } from '../core/cases.js';
import { InputError } from '../core/errors.js';
import {
  type AssertionSpec,
  type Case,
  type Diagnostic,
  type ProviderSpec,
  SELF_GRADER,
  type Suite,
} from '../core/types.js';
import { graderSpecFor } from '../engine/graders.js';
import { providerKey } from '../engine/plan.js';
import { isKnownProviderId, providerOffersEmbeddings, providerPatterns } from '../providers/registry.js';
import { getScorer } from '../scorers/registry.js';

/**
 * Refuses, before anything runs, a suite with a model-graded assertion and no grader for it: a
 * surprise call to a paid default API is worse than an error. Also checks grader ids are known.
 */
export function checkGraders(
  suite: Suite,
  override: ProviderSpec | undefined,
  embedder?: ProviderSpec,
): void {
  const check = graderCheck(suite, override, embedder);
  for (const { c } of surveyOf(suite)) check.visit(c);
  check.done();
}

/**
 * {@link checkGraders} a case at a time, for a caller that makes one pass over the cases for
 * several checks (a streamed suite reads its files once for all of them): `done` throws.
 */
export function graderCheck(
  suite: Suite,
  override: ProviderSpec | undefined,
  embedder?: ProviderSpec,
): {
  visit(c: Case): void;
  done(): void;
  usesDefault(): boolean;
  used(): ProviderSpec[];
  required(): ProviderSpec[];
} {
  const problems: Diagnostic[] = [];
  let usesDefault = false;
  const seen = new Set<string>();
  // The grader providers the run will build (the pool builds a grader's text and embedding models).
  const used = new Map<string, ProviderSpec>();
  const use = (s: ProviderSpec | undefined): void => {
    if (s && s.id !== SELF_GRADER) used.set(providerKey(s), s);
  };
  // Of those, the models an assertion cannot be scored without: the text model of a graded
  // assertion, the embedding model of one that needs embeddings (an optional grader is not).
  const required = new Map<string, ProviderSpec>();
  const need = (s: ProviderSpec | undefined): void => {
    if (s && s.id !== SELF_GRADER) required.set(providerKey(s), s);
  };
  const visit = (c: Case): void => {
    for (const spec of allAssertions(c.asserts)) {
      const scorer = getScorer(spec.type);
      if (!scorer?.graded && !scorer?.usesGrader) continue;
      const graderSpec = graderSpecFor(spec, override, suite.grader, embedder);
      if (graderSpec && !spec.grader) usesDefault = true;
      const where = spec.source ?? c.provenance?.source ?? { file: suite.source.path };
      if (!graderSpec) {
        if (!scorer.graded) continue;
        const key = `none\u0000${spec.type}`;
        if (seen.has(key)) continue;
        seen.add(key);
        problems.push({
          ...where,
          severity: 'error',
          message: scorer.needsEmbeddings
            ? `${spec.type} needs an embedding model and none is configured: give --grader openai:embedding:MODEL, a suite default grader (promptfoo: defaultTest.options.provider), or a provider on the assertion${suite.graderHint ? `; ${suite.graderHint}` : ''}`
            : `${spec.type} needs a grader model and none is configured: give --grader PROVIDER, a suite default grader (promptfoo: defaultTest.options.provider), or a provider on the assertion${suite.graderHint ? `; ${suite.graderHint}` : ''}`,
        });
      } else {
        use(graderSpec);
        use(graderSpec.embedding);
        if (scorer.needsEmbeddings) need(graderSpec.embedding ?? graderSpec);
        else if (scorer.graded) need(graderSpec);
        const embedding = graderSpec.embedding?.id ?? graderSpec.id;
        if (
          scorer.needsEmbeddings &&
          embedding !== SELF_GRADER &&
          providerOffersEmbeddings(embedding) === false
        ) {
          const key = `noembed\u0000${spec.type}\u0000${embedding}`;
          if (!seen.has(key)) {
            seen.add(key);
            problems.push({
              ...where,
              severity: 'error',
              message: `${spec.type} needs embeddings, but its grader ${embedding} offers none: add --embedder openai:embedding:MODEL, or make the grader an embedding model or a provider map {text: …, embedding: …}`,
            });
          }
        }
        for (const id of [graderSpec.id, graderSpec.embedding?.id]) {
          if (id === undefined || id === SELF_GRADER || isKnownProviderId(id)) continue;
          const key = `unknown\u0000${id}`;
          if (seen.has(key)) continue;
          seen.add(key);
          problems.push({
            ...where,
            severity: 'error',
            message: `grader "${id}": unknown provider; expected one of: ${providerPatterns().join(', ')}`,
          });
        }
      }
    }
  };
  return {
    visit,
    usesDefault: () => usesDefault,
    used: () => [...used.values()],
    required: () => [...required.values()],
    done() {
      if (problems.length > 0) throw new InputError(problems);
    },
  };
}

/** Assertions with the members of groups (assert-sets) after their group. */
function* allAssertions(specs: AssertionSpec[]): Generator<AssertionSpec> {
  for (const spec of specs) {
    yield spec;
    if (spec.children) yield* allAssertions(spec.children);
  }
}

/**
 * The grader that judges assertions naming none of their own, and why it is that one: for the
 * manifest, the summary and the reports, so every verdict can be traced to the model that gave it.
 */
export function graderRecord(
  suite: Suite,
  override: ProviderSpec | undefined,
  fromCommandLine: boolean,
  embedder: ProviderSpec | undefined,
): { id: string; embedding?: string; reason: string } | undefined {
  const chosen = override ?? suite.grader;
  if (!chosen) return undefined;
  const reason = override
    ? fromCommandLine
      ? 'given with --grader'
      : "the suite's run options name it"
    : (suite.graderReason ?? "the suite's default grader");
  const id = chosen.id === SELF_GRADER ? 'the provider under test' : chosen.id;
  const embedding = embedder?.id ?? chosen.embedding?.id;
  return embedding && embedding !== chosen.id ? { id, embedding, reason } : { id, reason };
}
