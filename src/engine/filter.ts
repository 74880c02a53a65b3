// Narrowing a suite to part of its cases, prompts and providers (`--filter-*`). Pure functions over
// the core model: they never ask which format a suite came from.
import { InputError } from '../core/errors.js';
import type { Case, PromptTemplate, ProviderSpec, Suite } from '../core/types.js';

/** What the `--filter-*` flags ask for. Recorded in the run manifest: it decides what ran. */
export interface SuiteFilters {
  /** `key=value` conditions, all of which must hold; `value` may list alternatives `a,b` (`\,` is a comma). */
  metadata?: string[];
  /** Regular expression a case's description must match; cases without one are dropped. */
  pattern?: string;
  /** Keep the first N tests, counted as the suite wrote them (before list vars expanded them). */
  firstN?: number;
  /** Keep N tests drawn at random (with `seed`), counted like `firstN`. */
  sample?: number;
  /** Seed of the `sample` draw; the same seed draws the same tests from the same suite. */
  seed?: number;
  /** Regular expression a provider's id or label must match. */
  providers?: string;
  /** Regular expression a prompt's label or id must match. */
  prompts?: string;
  /** The earlier run (directory, or promptfoo results JSON) whose failed and errored tests to run again. */
  failing?: string;
  /** The earlier run whose assertion failures (not errors) to run again (`--filter-failing-only`). */
  failingOnly?: string;
  /** The earlier run whose errors to run again (`--filter-errors-only`). */
  errorsOnly?: string;
  /** Keep the tests at these zero-based positions, end excluded, counted like `firstN`. */
  range?: TestRange;
}

/** `--filter-range START:END`: zero-based, END excluded; an absent END runs to the last test. */
export interface TestRange {
  start: number;
  end?: number;
}

/**
 * Parses `START:END` as promptfoo does: one colon, digits only, either bound may be left out (not
 * both); START defaults to 0; START > END is refused. Returns a message instead when it is not valid.
 */
export function parseTestRange(text: string): TestRange | string {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const form = `--filter-range ${text}: expected START:END, zero-based with END excluded (e.g. 0:10)`;
  if (colon < 0 || colon !== trimmed.lastIndexOf(':')) return form;
  const startText = trimmed.slice(0, colon).trim();
  const endText = trimmed.slice(colon + 1).trim();
  if ((startText === '' && endText === '') || !/^\d*$/.test(startText) || !/^\d*$/.test(endText)) return form;
  const start = startText === '' ? 0 : Number(startText);
  const end = endText === '' ? undefined : Number(endText);
  if (!Number.isSafeInteger(start) || (end !== undefined && !Number.isSafeInteger(end)))
    return `--filter-range ${text}: the bounds must be whole numbers below 2^53`;
  if (end !== undefined && start > end) return `--filter-range ${text}: START must not be greater than END`;
  return end === undefined ? { start } : { start, end };
}

/** The cases an earlier run failed or errored on: by case id, and by vars (canonical JSON). */
export interface FailingSelection {
  caseIds: Set<string>;
  vars: Set<string>;
}

/** One `--filter-metadata` condition. */
interface MetadataCondition {
  key: string;
  values: string[];
}

/**
 * Parses `key=value` (the value is everything after the first `=`), with `a,b` meaning either;
 * returns a message instead when the text is not of that form.
 */
export function parseMetadataCondition(text: string): MetadataCondition | string {
  const eq = text.indexOf('=');
  const key = eq > 0 ? text.slice(0, eq) : '';
  const value = eq > 0 ? text.slice(eq + 1) : '';
  if (!key || value === '') return `--filter-metadata ${text}: expected key=value (e.g. category=math)`;
  const values = value.split(/(?<!\\),/).map((v) => v.replace(/\\,/g, ','));
  if (values.includes('')) return `--filter-metadata ${text}: an alternative in "${value}" is empty`;
  return { key, values };
}

function metadataText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** promptfoo's rule: the metadata value contains the text (any element, for a list). */
function metadataMatches(metadata: Record<string, unknown>, cond: MetadataCondition): boolean {
  const value = metadata[cond.key];
  if (value === undefined || value === null) return false;
  const texts = Array.isArray(value) ? value.map(metadataText) : [metadataText(value)];
  return cond.values.some((v) => texts.some((t) => t.includes(v)));
}

/** JSON with object keys sorted, so two equal vars maps give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort())
      sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** The entry (test as written) a case belongs to; cases of one entry are counted once. */
function entryOf(c: Case, index: number): string {
  return c.expandedFrom !== undefined ? `e${c.expandedFrom}` : `c${index}`;
}

/** Keeps the cases of the entries `pick` chooses among the entries of `cases`, in suite order. */
function byEntries(cases: Case[], pick: (entries: string[]) => string[]): Case[] {
  const keys = cases.map((c, i) => entryOf(c, i));
  const entries = [...new Set(keys)];
  const kept = new Set(pick(entries));
  return cases.filter((_, i) => kept.has(keys[i]));
}

/** A small seeded generator (mulberry32): uniform floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** N items drawn without replacement (Fisher–Yates on a copy). */
function draw<T>(items: T[], n: number, random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/**
 * The cases the filters keep, in suite order. Applied in promptfoo's order: metadata, failing (the
 * earlier run's selection, `failing`), pattern, range, first N, sample. Conditions a flag cannot
 * express (bad regex) must be checked before.
 */
export function filterCases(cases: Case[], filters: SuiteFilters, failing?: FailingSelection): Case[] {
  let out = cases;
  if (filters.metadata?.length) {
    const conditions = filters.metadata.map(parseMetadataCondition);
    const bad = conditions.find((c) => typeof c === 'string');
    if (bad) throw new Error(bad as string);
    out = out.filter((c) => (conditions as MetadataCondition[]).every((m) => metadataMatches(c.metadata, m)));
  }
  if (failing) out = out.filter((c) => failing.caseIds.has(c.id) || failing.vars.has(canonicalJson(c.vars)));
  if (filters.pattern !== undefined) {
    const re = new RegExp(filters.pattern);
    out = out.filter((c) => c.description !== undefined && c.description !== '' && re.test(c.description));
  }
  if (filters.range !== undefined) {
    const { start, end } = filters.range;
    out = byEntries(out, (entries) => entries.slice(start, end));
  }
  if (filters.firstN !== undefined) {
    const n = filters.firstN;
    out = byEntries(out, (entries) => entries.slice(0, n));
  }
  if (filters.sample !== undefined) {
    const n = filters.sample;
    const random = seededRandom(filters.seed ?? 0);
    out = byEntries(out, (entries) => draw(entries, n, random));
  }
  return out;
}

/** Prompts whose label or id matches the regular expression (unanchored). */
export function filterPrompts(prompts: PromptTemplate[], pattern: string | undefined): PromptTemplate[] {
  if (pattern === undefined) return prompts;
  const re = new RegExp(pattern);
  return prompts.filter((p) => re.test(p.label) || re.test(p.id));
}

/** Providers whose id or label matches the regular expression (unanchored). */
export function filterProviders(providers: ProviderSpec[], pattern: string | undefined): ProviderSpec[] {
  if (pattern === undefined) return providers;
  const re = new RegExp(pattern);
  return providers.filter((p) => re.test(p.id) || (p.label !== undefined && re.test(p.label)));
}

/** The suite narrowed to the cases and prompts the filters keep (providers are chosen at run time). */
export function filterSuite(suite: Suite, filters: SuiteFilters, failing?: FailingSelection): Suite {
  const cases = filterCases(suite.cases, filters, failing);
  const prompts = filterPrompts(suite.prompts, filters.prompts);
  if (cases === suite.cases && prompts === suite.prompts) return suite;
  return { ...suite, cases, prompts };
}

/** Refuses filters that cannot be applied (a bad regular expression, a metadata condition without `=`). */
export function checkFilters(filters: SuiteFilters): void {
  const problems: string[] = [];
  for (const m of filters.metadata ?? []) {
    const parsed = parseMetadataCondition(m);
    if (typeof parsed === 'string') problems.push(parsed);
  }
  const patterns: [string, string | undefined][] = [
    ['--filter-pattern', filters.pattern],
    ['--filter-providers', filters.providers],
    ['--filter-prompts', filters.prompts],
  ];
  for (const [flag, pattern] of patterns) {
    if (pattern === undefined) continue;
    try {
      new RegExp(pattern);
    } catch (err) {
      problems.push(`${flag} ${pattern}: not a valid regular expression (${(err as Error).message})`);
    }
  }
  if (problems.length > 0)
    throw new InputError(problems.map((message) => ({ file: '', message, severity: 'error' as const })));
}

/** Whether any filter is set. */
export function hasFilters(filters: SuiteFilters | undefined): boolean {
  return filters !== undefined && Object.values(filters).some((v) => v !== undefined);
}
