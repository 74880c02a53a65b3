// What the ÈwéBench loader records in the run manifest (`suite.native`) for its results writer: a
// module of its own, so the writer (registered at start-up) does not load the loader.

import { is, view } from '../../core/view.js';
import type { Mode } from './assertions.js';

/** What a run manifest records for the ÈwéBench results writer (`suite.native`). */
export interface EweNative {
  benchmark: string;
  version: string;
  mode: Mode;
  /**
   * Every category in the tool's order; `tests` is null for one that was not run. A single file
   * not named after a category is its own category, with `known: false` (the tool has no such one).
   */
  categories: { key: string; name: string; weight: number; tests: number | null; known?: false }[];
}

/** The checked view of an ÈwéBench suite's facts as the run manifest keeps them (`suite.native`). */
export const eweNative = view<EweNative>("an ÈwéBench suite's facts (manifest suite.native)", {
  benchmark: is.string,
  version: is.string,
  mode: is.literal('compat', 'fixed'),
  categories: is.arrayOf(
    is.shape({
      key: is.string,
      name: is.string,
      weight: is.number,
      tests: is.nullable(is.number),
      known: is.optional(is.literal(false)),
    }),
  ),
});
