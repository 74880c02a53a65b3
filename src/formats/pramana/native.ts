// What the pramana loader records in the run manifest (`suite.native`) for its results writer: a
// module of its own, so the writer (registered at start-up) does not load the loader.
import { is, view } from '../../core/view.js';

/** What the results writer needs about each loaded tier (recorded in the run manifest). */
export interface PramanaTierFacts {
  name: string;
  file: string;
  /** `<version>-<file stem>`, as pramana's `suite_version`. */
  suiteVersion: string;
  suiteHash: string;
  tests: number;
}

/** `suite.native.pramana` (read back by the pramana results writer). */
export interface PramanaNative {
  tiers: PramanaTierFacts[];
  temperature: number;
  seed: number;
}

/** The checked view of a pramana suite's facts as the run manifest keeps them (`suite.native`). */
export const pramanaNative = view<{ pramana: PramanaNative }>(
  "a pramana suite's facts (manifest suite.native)",
  {
    pramana: is.shape({
      tiers: is.arrayOf(
        is.shape({
          name: is.string,
          file: is.string,
          suiteVersion: is.string,
          suiteHash: is.string,
          tests: is.number,
        }),
      ),
      temperature: is.number,
      seed: is.number,
    }),
  },
);
