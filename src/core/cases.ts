// A suite's cases, whether held in memory or streamed from their files: the few functions the
// pipeline uses so that it never holds every case of a streamed suite at once.
import type { Case, CaseStream, Suite } from './types.js';

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
