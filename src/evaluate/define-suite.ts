// A suite written in code: `defineSuite({ cases, prompts, providers })` fills in what a loader would
// (ids, hash, default prompt, empty vars and metadata) and checks the shape, so a mistake is an
// InputError naming its path (`cases[2].asserts[0].type`) before anything runs, never a TypeError
// deep inside the engine. `evaluate({ suite })` checks a suite built by hand the same way.
import { InputError } from '../core/errors.js';
import { canonicalJson, sha256, shortHash } from '../core/hash.js';
import { assignCaseIds } from '../core/ids.js';
import { pathStep } from '../core/object-text.js';
import { isRecord } from '../core/records.js';
import { closest } from '../core/suggest.js';
import type {
  AssertionSpec,
  Case,
  Diagnostic,
  PromptTemplate,
  ProviderSpec,
  RunDefaults,
  Suite,
  SuiteScoring,
} from '../core/types.js';
import { resolveAssertionType } from '../scorers/registry.js';

/** One case of a suite written in code: only `vars` and `asserts` are usual; the rest defaults. */
export interface CaseDefinition {
  description?: string;
  /** The values the prompt template reads (`{{city}}`). Default `{}`. */
  vars?: Record<string, unknown>;
  /** The checks of the output: `{ type, value }` as in a promptfoo config. Default `[]`. */
  asserts?: AssertionSpec[];
  metadata?: Record<string, unknown>;
  /** The case passes when its (weighted) score reaches this, instead of every assertion passing. */
  threshold?: number;
}

/** A suite written in code. */
export interface SuiteDefinition {
  /** Shown in summaries and reports. Default `suite`. */
  name?: string;
  /**
   * The format's name, for a suite a registered format loads (its `name`): commands find the
   * format's hooks by it. Default `code`.
   */
  format?: string;
  /** The file or folder the suite was read from (a format's loader gives it). Default: `basePath`. */
  path?: string;
  cases: CaseDefinition[];
  /** Prompt templates (text, or templates with `id`/`label`/`raw`). Default one: `{{prompt}}`. */
  prompts?: (string | PromptTemplate)[];
  /** Provider ids (`openai:gpt-4o-mini`) or specs. Default none: give `providers` to evaluate(). */
  providers?: (string | ProviderSpec)[];
  /** The grader of model-graded assertions that name none. */
  grader?: string | ProviderSpec;
  /** Where relative `file://` paths resolve. Default: the current folder. */
  basePath?: string;
  scoring?: SuiteScoring;
  runDefaults?: RunDefaults;
  /** The output rule of the suite's answers (Suite.answerRule: `default`, `promptfoo`, or one registered). */
  answerRule?: string;
}

const DEFINITION_KEYS = [
  'name',
  'format',
  'path',
  'cases',
  'prompts',
  'providers',
  'grader',
  'basePath',
  'scoring',
  'runDefaults',
  'answerRule',
];
const CASE_KEYS = ['description', 'vars', 'asserts', 'metadata', 'threshold'];

/** Names a program may use for a case field by habit (promptfoo's `assert`, other tools' `assertions`). */
const ALIASES: Record<string, string[]> = {
  asserts: ['assert', 'assertions', 'assertion'],
  vars: ['variables', 'inputs'],
};

class Problems {
  readonly list: Diagnostic[] = [];
  add(path: string, message: string): void {
    this.list.push({ file: path || '(suite)', message, severity: 'error' });
  }
  /** Keys not among `known`, each with the closest known one. */
  unknownKeys(value: Record<string, unknown>, path: string, known: string[]): void {
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue;
      const near = closest(key, known);
      this.add(
        pathStep(path, key),
        `unknown field${near ? `; did you mean "${near}"?` : ''} (expected ${known.join(', ')})`,
      );
    }
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw new InputError(this.list);
  }
}

/**
 * Checks assertion specs: objects with a `type` (registered, when `known`), nested `children` of
 * groups too.
 */
function checkAsserts(value: unknown, path: string, problems: Problems, known: boolean): void {
  if (!Array.isArray(value)) {
    problems.add(path, 'expected an array of assertions ({ type, value })');
    return;
  }
  value.forEach((a, i) => {
    const at = pathStep(path, i);
    if (!isRecord(a)) {
      problems.add(at, 'expected an assertion object ({ type, value })');
      return;
    }
    if (typeof a.type !== 'string' || a.type === '') {
      problems.add(pathStep(at, 'type'), 'expected the assertion type as text (e.g. "contains")');
      return;
    }
    if (known && !resolveAssertionType(a.type))
      problems.add(pathStep(at, 'type'), `unknown assertion type "${a.type}"`);
    if (a.children !== undefined) checkAsserts(a.children, pathStep(at, 'children'), problems, known);
  });
}

function checkCaseFields(c: Record<string, unknown>, at: string, problems: Problems): void {
  if (c.vars !== undefined && !isRecord(c.vars))
    problems.add(pathStep(at, 'vars'), 'expected an object of values');
  if (c.metadata !== undefined && !isRecord(c.metadata))
    problems.add(pathStep(at, 'metadata'), 'expected an object');
  if (c.description !== undefined && typeof c.description !== 'string')
    problems.add(pathStep(at, 'description'), 'expected text');
  if (c.threshold !== undefined && (typeof c.threshold !== 'number' || !Number.isFinite(c.threshold)))
    problems.add(pathStep(at, 'threshold'), 'expected a number');
}

/** A core Suite from a definition, with the defaults a loader would give; bad input is an InputError with paths. */
export function defineSuite(definition: SuiteDefinition): Suite {
  const problems = new Problems();
  if (!isRecord(definition)) {
    problems.add('', 'expected a suite definition ({ cases, prompts, providers })');
    problems.throwIfAny();
  }
  const d = definition as unknown as Record<string, unknown>;
  problems.unknownKeys(d, '', DEFINITION_KEYS);
  if (!Array.isArray(d.cases)) problems.add('cases', 'expected an array of cases ({ vars, asserts })');
  else
    d.cases.forEach((c, i) => {
      const at = pathStep('cases', i);
      if (!isRecord(c)) {
        problems.add(at, 'expected a case object ({ vars, asserts })');
        return;
      }
      problems.unknownKeys(c, at, CASE_KEYS);
      checkCaseFields(c, at, problems);
      if (c.asserts !== undefined) checkAsserts(c.asserts, pathStep(at, 'asserts'), problems, true);
    });
  for (const key of ['prompts', 'providers'] as const) {
    const list = d[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) problems.add(key, 'expected an array');
    else
      list.forEach((p, i) => {
        if (typeof p === 'string') return;
        if (!isRecord(p) || typeof p[key === 'prompts' ? 'raw' : 'id'] !== 'string')
          problems.add(
            pathStep(key, i),
            key === 'prompts'
              ? 'expected text or { id, label, raw }'
              : 'expected a provider id or { id, config }',
          );
      });
  }
  for (const key of ['name', 'format', 'path', 'basePath'])
    if (d[key] !== undefined && typeof d[key] !== 'string') problems.add(key, 'expected text');
  problems.throwIfAny();

  const prompts: PromptTemplate[] = (definition.prompts ?? ['{{prompt}}']).map((p, i) =>
    typeof p === 'string' ? { id: `prompt-${i + 1}`, label: p, raw: p } : p,
  );
  const providers: ProviderSpec[] = (definition.providers ?? []).map((p) =>
    typeof p === 'string' ? { id: p } : p,
  );
  const cases: Omit<Case, 'id'>[] = definition.cases.map((c) => ({
    ...(c.description !== undefined ? { description: c.description } : {}),
    vars: c.vars ?? {},
    asserts: c.asserts ?? [],
    metadata: c.metadata ?? {},
    ...(c.threshold !== undefined ? { threshold: c.threshold } : {}),
  }));
  const basePath = definition.basePath ?? process.cwd();
  const contentHash = sha256(canonicalJson({ prompts, providers, cases, scoring: definition.scoring ?? {} }));
  const grader = typeof definition.grader === 'string' ? { id: definition.grader } : definition.grader;
  return {
    id: shortHash(contentHash),
    name: definition.name ?? 'suite',
    format: definition.format ?? 'code',
    source: { path: definition.path ?? basePath, contentHash, files: [] },
    basePath,
    prompts,
    providers,
    cases: assignCaseIds(cases),
    scoring: definition.scoring ?? {},
    ...(grader ? { grader } : {}),
    ...(definition.runDefaults ? { runDefaults: definition.runDefaults } : {}),
    ...(definition.answerRule !== undefined ? { answerRule: definition.answerRule } : {}),
    warnings: [],
  };
}

/**
 * Checks a Suite given to evaluate() as an object (built by hand, not by a loader or defineSuite):
 * the fields the engine relies on, each problem named by its path (`cases[0].asserts`, with a
 * "did you mean" for a misnamed field such as `assertions`).
 */
export function checkSuite(suite: Suite): Suite {
  const problems = new Problems();
  const s = suite as unknown as Record<string, unknown>;
  if (!isRecord(s)) {
    problems.add('', 'expected a Suite (use defineSuite({ cases, prompts, providers }) to build one)');
    problems.throwIfAny();
  }
  for (const key of ['prompts', 'providers'] as const)
    if (!Array.isArray(s[key])) problems.add(key, 'expected an array (defineSuite fills in the defaults)');
  if (s.stream === undefined && !Array.isArray(s.cases)) problems.add('cases', 'expected an array of cases');
  else if (s.stream === undefined)
    (s.cases as unknown[]).forEach((c, i) => {
      const at = pathStep('cases', i);
      if (!isRecord(c)) {
        problems.add(at, 'expected a case object');
        return;
      }
      for (const [key, kind] of [
        ['id', 'text'],
        ['vars', 'an object'],
        ['asserts', 'an array of assertions'],
        ['metadata', 'an object'],
      ] as const) {
        if (c[key] !== undefined) continue;
        const near = (ALIASES[key] ?? []).find((k) => k in c) ?? closest(key, Object.keys(c));
        problems.add(
          pathStep(at, key),
          `missing (expected ${kind})${near ? `; the case has "${near}": did you mean "${key}"?` : ''}`,
        );
      }
      checkCaseFields(c, at, problems);
      if (c.asserts !== undefined) checkAsserts(c.asserts, pathStep(at, 'asserts'), problems, false);
    });
  problems.throwIfAny();
  return suite;
}
