// Builds core Suites directly, without any format's loader, so tests of the engine, the run log and
// analysis (and of formats still to come) do not depend on promptfoo's reading of YAML.
import { assignCaseIds } from '../../src/core/ids.js';
import type {
  AssertionSpec,
  Case,
  Conversation,
  Message,
  PromptTemplate,
  ProviderSpec,
  Suite,
  SuiteScoring,
} from '../../src/core/types.js';

/** A case as a test writes it: only what it needs; the rest defaults. */
export interface CaseSketch {
  ref?: string;
  description?: string;
  vars?: Record<string, unknown>;
  /** Conversations of their own (a hole: `hole('name')`); without them the suite's prompt renders. */
  conversations?: Conversation[];
  asserts?: AssertionSpec[];
  metadata?: Record<string, unknown>;
  threshold?: number;
  error?: string;
  /** Recorded completions standing in for the provider (per run, per hole). */
  recordedRuns?: string[][];
}

export interface SuiteSketch {
  name?: string;
  /** Provenance only; nothing downstream branches on it. */
  format?: string;
  cases: CaseSketch[];
  providers?: ProviderSpec[];
  /** Prompt templates; default one template `{{prompt}}`, used by cases without conversations. */
  prompts?: PromptTemplate[];
  scoring?: SuiteScoring;
  basePath?: string;
  grader?: ProviderSpec;
}

/** An assistant message for the model to fill, its completion named `variable` for scorers. */
export function hole(variable?: string): Message {
  return variable ? { role: 'assistant', content: null, variable } : { role: 'assistant', content: null };
}

/** A user message. */
export function user(content: string): Message {
  return { role: 'user', content };
}

/** A system message. */
export function system(content: string): Message {
  return { role: 'system', content };
}

/** A core Suite from a sketch, with case ids and refs assigned as every loader assigns them. */
export function buildSuite(sketch: SuiteSketch): Suite {
  const cases: Omit<Case, 'id'>[] = sketch.cases.map((c) => ({
    ...(c.ref !== undefined ? { ref: c.ref } : {}),
    ...(c.description !== undefined ? { description: c.description } : {}),
    vars: c.vars ?? {},
    ...(c.conversations ? { conversations: c.conversations } : {}),
    asserts: c.asserts ?? [],
    metadata: c.metadata ?? {},
    ...(c.threshold !== undefined ? { scoring: { threshold: c.threshold } } : {}),
    ...(c.error !== undefined ? { error: c.error } : {}),
    ...(c.recordedRuns !== undefined ? { replay: { runs: c.recordedRuns } } : {}),
  }));
  const basePath = sketch.basePath ?? process.cwd();
  return {
    id: 'built',
    name: sketch.name ?? 'built suite',
    format: sketch.format ?? 'built',
    source: { path: basePath, contentHash: 'built', files: [] },
    basePath,
    prompts: sketch.prompts ?? [{ id: 'p', label: 'prompt', raw: '{{prompt}}' }],
    providers: sketch.providers ?? [{ id: 'echo' }],
    cases: assignCaseIds(cases),
    scoring: sketch.scoring ?? {},
    ...(sketch.grader ? { grader: sketch.grader } : {}),
    warnings: [],
  };
}
