// Narrowing a suite to part of its cases, prompts and providers (`--filter-*`). Pure functions over
// the core model: they never ask which format a suite came from.
import { selectedCases, streamedSuite } from '../core/cases.js';
import { InputError } from '../core/errors.js';
import { canonicalJsonAsWritten } from '../core/hash.js';
import { seededRandom } from '../core/random.js';
import type { Case, PromptTemplate, ProviderSpec, Suite, SuiteFilters, TestRange } from '../core/types.js';

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

/** Which results of an earlier run select their cases: failures and errors, failures only, errors only. */
export type FailingKind = 'any' | 'fail' | 'error';

/** The cases an earlier run failed or errored on: by case id, and by vars (canonical JSON). */
export interface FailingSelection {
  caseIds: Set<string>;
  vars: Set<string>;
}

/**
 * Reads the failures from a results file of another tool (a format's `failures` hook: promptfoo's
 * results JSON), for `--filter-failing FILE`.
 */
export interface FailuresReader {
  /** What such a file is, for the message when no reader recognises a file. */
  describes: string;
  /**
   * The cases `file` (its text given) says failed (`kind` any, fail or error); undefined when the
   * file is not of this reader's shape. May throw an InputError naming the file.
   */
  read(file: string, text: string, kind: FailingKind): Promise<FailingSelection | undefined>;
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

/** N of the positions 0…m-1 drawn without replacement (Fisher–Yates on them all, as on the entries). */
function draw(m: number, n: number, random: () => number): Uint32Array {
  const copy = new Uint32Array(m);
  for (let i = 0; i < m; i++) copy[i] = i;
  for (let i = m - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = copy[i];
    copy[i] = copy[j];
    copy[j] = t;
  }
  return copy.subarray(0, n);
}

/** Which cases the filters keep: one bit a case, and how many. */
interface Kept {
  bits: Uint8Array;
  count: number;
}

/**
 * The cases the filters keep, in suite order. Applied in promptfoo's order: metadata, failing (the
 * earlier run's selection, `failing`), pattern, range, first N, sample; range, first N and sample
 * count the tests as written (the cases one test's list vars expanded into go or stay together).
 * One pass over the cases, holding a few bytes a case: a streamed suite is never held whole.
 * Conditions a flag cannot express (bad regex) must be checked before.
 */
function keptCases(
  cases: Iterable<Case>,
  total: number,
  filters: SuiteFilters,
  failing?: FailingSelection,
): Kept | undefined {
  const conditions = (filters.metadata ?? []).map(parseMetadataCondition);
  const bad = conditions.find((c) => typeof c === 'string');
  if (bad) throw new Error(bad as string);
  const metadata = conditions as MetadataCondition[];
  const re = filters.pattern !== undefined ? new RegExp(filters.pattern) : undefined;
  const byEntry = filters.range !== undefined || filters.firstN !== undefined || filters.sample !== undefined;
  if (metadata.length === 0 && !failing && !re && !byEntry) return undefined;
  // Each case's entry among the cases the conditions keep (-1: dropped by a condition).
  const entry = new Int32Array(total);
  let entries = 0;
  let previous: number | undefined;
  let i = 0;
  for (const c of cases) {
    const keep =
      metadata.every((m) => metadataMatches(c.metadata, m)) &&
      (!failing || failing.caseIds.has(c.id) || failing.vars.has(canonicalJsonAsWritten(c.vars))) &&
      (!re || (c.description !== undefined && c.description !== '' && re.test(c.description)));
    if (keep) {
      // The cases of one test as written are adjacent; a case of its own is an entry of its own.
      const from = c.provenance?.expandedFrom;
      if (from === undefined || from !== previous) entries++;
      previous = from;
      entry[i] = entries - 1;
    } else entry[i] = -1;
    i++;
  }
  // The entries kept, as a range of the kept ones, then a draw from that range.
  let from = 0;
  let to = entries;
  if (filters.range !== undefined) {
    from = Math.min(filters.range.start, entries);
    to = Math.max(from, Math.min(filters.range.end ?? entries, entries));
  }
  if (filters.firstN !== undefined) to = Math.min(to, from + Math.max(0, filters.firstN));
  let chosen: Uint8Array | undefined;
  if (filters.sample !== undefined) {
    chosen = new Uint8Array(entries);
    for (const d of draw(to - from, Math.max(0, filters.sample), seededRandom(filters.seed ?? 0)))
      chosen[from + d] = 1;
  }
  const bits = new Uint8Array((total >>> 3) + 1);
  let count = 0;
  for (let k = 0; k < i; k++) {
    const e = entry[k];
    if (e < from || e >= to || (chosen && !chosen[e])) continue;
    bits[k >>> 3] |= 1 << (k & 7);
    count++;
  }
  return { bits, count };
}

/** The cases the filters keep, in suite order (see {@link keptCases} for the rules). */
export function filterCases(cases: Case[], filters: SuiteFilters, failing?: FailingSelection): Case[] {
  const kept = keptCases(cases, cases.length, filters, failing);
  if (!kept) return cases;
  return cases.filter((_, i) => kept.bits[i >>> 3] & (1 << (i & 7)));
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
  const prompts = filterPrompts(suite.prompts, filters.prompts);
  if (suite.stream) {
    // A streamed suite stays streamed: the filtered one reads the same files and skips what is not kept.
    const kept = keptCases(suite.stream, suite.stream.length, filters, failing);
    if (!kept && prompts === suite.prompts) return suite;
    // Spread copies what is enumerable: never the streamed suite's `cases`, which would read every case.
    const stream = suite.stream;
    return streamedSuite({ ...suite, prompts }, kept ? selectedCases(stream, kept.bits, kept.count) : stream);
  }
  const cases = filterCases(suite.cases, filters, failing);
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
