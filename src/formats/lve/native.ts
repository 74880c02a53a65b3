// What the LVE loader records in the run manifest (`suite.native`) for `--output-format lve`: a
// module of its own, so the writer (registered at start-up) does not load the loader.
import { is, view } from '../../core/view.js';

/** What the run manifest keeps of the LVEs (suite.native), for `--output-format lve`. */
export interface LveNative {
  kind: 'lve';
  replay: boolean;
  /** The repository root the LVE paths are relative to. */
  root: string;
  lves: { path: string; dir: string; category: string; name: string; model: string }[];
}

/** The checked view of an LVE repository's facts as the run manifest keeps them (`suite.native`). */
export const lveNative = view<LveNative>("an LVE repository's facts (manifest suite.native)", {
  kind: is.literal('lve'),
  replay: is.boolean,
  root: is.string,
  lves: is.arrayOf(
    is.shape({ path: is.string, dir: is.string, category: is.string, name: is.string, model: is.string }),
  ),
});
