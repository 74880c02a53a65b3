// A suite's cases, whether held in memory or streamed from their files: the few functions the
// pipeline uses so that it never holds every case of a streamed suite at once.
import type { AssertionSpec, Case, CaseStream, Suite } from './types.js';

/** The suite's cases to iterate (each pass over a streamed suite reads its files again). */
export function suiteCases(suite: Suite): CaseStream {
  return suite.stream ?? suite.cases;
}

/** How many cases the suite has, without reading them. */
export function caseCount(suite: Suite): number {
  return (suite.stream ?? suite.cases).length;
}

/**
 * A suite whose cases come from `stream`. Its `cases` array is built on first read and kept (a
 * library caller or a test that indexes it gets the same cases); it is not enumerable, so copying
 * the suite with `{...suite}` does not read every case.
 */
export function streamedSuite<S extends Omit<Suite, 'cases' | 'stream'>>(
  suite: S,
  stream: CaseStream,
): S & Suite {
  const out = { ...suite, stream } as S & Suite;
  // A copy of a streamed suite (`{...suite}`) keeps `stream` but not `cases`: give it its own.
  delete (out as Partial<Suite>).cases;
  let held: Case[] | undefined;
  Object.defineProperty(out, 'cases', {
    enumerable: false,
    configurable: true,
    get: () => {
      held ??= [...stream];
      return held;
    },
    set: (value: Case[]) => {
      held = value;
    },
  });
  return out;
}

/** A stream of the cases of `base` whose positions are set in `kept` (one bit a case). */
export function selectedCases(base: CaseStream, kept: Uint8Array, count: number): CaseStream {
  return {
    length: count,
    *[Symbol.iterator]() {
      let i = 0;
      for (const c of base) {
        if (kept[i >>> 3] & (1 << (i & 7))) yield c;
        i++;
      }
    },
  };
}

/**
 * Cases that stand for the whole suite in the checks made before a run (graders, the providers
 * cases name, job counts, ordered threads): one case of each kind, in order of first appearance,
 * with how many cases are of its kind. Two cases are of one kind when they restrict providers and
 * prompts alike, name the same provider, are turns of ordered threads alike, and have the same
 * assertion types with the same graders (positions aside). Each representative is the first case
 * of its kind, so a problem is reported where it first occurs, as a pass over every case reports it.
 */
export interface SurveyEntry {
  c: Case;
  count: number;
}

/** A stream whose loader gathered the survey on its first pass. */
export interface SurveyedStream extends CaseStream {
  readonly survey?: readonly SurveyEntry[];
}

/** More kinds than this and the survey is dropped: the checks then read every case again. */
const SURVEY_LIMIT = 10_000;

/** Gathers a survey a case at a time (see {@link SurveyEntry}). */
export class SurveyBuilder {
  private readonly kinds = new Map<string, SurveyEntry>();
  private overflow = false;

  add(c: Case): void {
    if (this.overflow) return;
    const key = surveyKey(c);
    const known = this.kinds.get(key);
    if (known) known.count++;
    else if (this.kinds.size >= SURVEY_LIMIT) {
      this.overflow = true;
      this.kinds.clear();
    } else this.kinds.set(key, { c, count: 1 });
  }

  /** The survey, or undefined when the cases were of too many kinds to keep one of each. */
  result(): SurveyEntry[] | undefined {
    return this.overflow ? undefined : [...this.kinds.values()];
  }
}

const withoutSource = (key: string, value: unknown): unknown => (key === 'source' ? undefined : value);

/** What the checks before a run read of a case (see {@link SurveyEntry}). */
function surveyKey(c: Case): string {
  let plain =
    c.only === undefined && c.preparation?.options?.provider === undefined && c.thread?.ordered !== true;
  let types = '';
  for (const a of c.asserts) {
    if (a.grader !== undefined || a.children !== undefined) plain = false;
    types += `${a.type}\u0000`;
  }
  if (plain) return `p${types}`;
  const asserts = (specs: AssertionSpec[]): unknown[] =>
    specs.map((a) => [a.type, a.grader ?? null, a.children ? asserts(a.children) : null]);
  return `j${JSON.stringify(
    [
      c.only ?? null,
      c.preparation?.options?.provider ?? null,
      c.thread?.ordered === true,
      asserts(c.asserts),
    ],
    withoutSource,
  )}`;
}

/**
 * The cases to look at for the checks before a run, each with how many cases it stands for: the
 * survey a streamed suite's loader gathered, else every case once.
 */
export function* surveyOf(suite: Suite): Generator<SurveyEntry> {
  const survey = suite.stream && (suite.stream as SurveyedStream).survey;
  if (survey) {
    yield* survey;
    return;
  }
  for (const c of suiteCases(suite)) yield { c, count: 1 };
}
