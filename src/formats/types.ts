// What a format folder implements. `src/formats/<name>/`:
// - `format.ts` exports `format: SuiteFormat` (below): cheap detection, loading into the core Suite,
//   the LoadOptions it accepts, its own hash; listed in detect.ts, imported on first use;
// - `report.ts` (when the format's tool writes a results file users expect) registers its writer
//   with report/outputs.ts when imported; listed in formats/reports.ts, and chosen by the
//   `--output-format` name a user gives, never by the suite's format;
// - its own scorers (semantics of that tool alone) register under a namespaced type
//   (`ewebench:ewe-quality`) when its loader is imported.
// Format modules import these types from here, never from the registry (detect.ts), and never
// from another format's folder (test/architecture.test.ts checks both).
import type { Suite } from '../core/types.js';

/** What the command line may tell a loader. A loader refuses options that do not apply to its format. */
export interface LoadOptions {
  env?: Record<string, string | undefined>;
  /** `--tier`: which tiers of a tiered suite to run (pramana). */
  tiers?: string[];
  /** `--category`: which categories to run (ÈwéBench). */
  categories?: string[];
  /** `--mode`: a format's scoring mode, e.g. `compat` (reproduce the upstream tool) or `fixed`. */
  mode?: string;
  /** `--var`: values for every case's vars, merged the way the format merges its own defaults. */
  vars?: Record<string, string>;
  /** `--suite`: the suite of a workspace to run (apastra). */
  suiteId?: string;
  /** `--eval`: the quick eval of a workspace to run (apastra). */
  evalId?: string;
  /**
   * `-p`: the providers the command line names, which replace the suite's for every case (a format
   * that ties each case to a model of its own, as LVE does, then lets every case run on these).
   */
  providers?: string[];
  /** `--model-map ID=PROVIDER`: the provider for a model id the suite names (LVE's `test.json:model`). */
  modelMap?: Record<string, string>;
  /** `--replay`: check the suite's recorded answers again instead of asking a model (LVE's unit-test). */
  replay?: boolean;
  /** `--args FILE`: a JSON Lines file of new inputs to run instead of the recorded ones (LVE instances). */
  argsFile?: string;
  /**
   * Files in the suite's folders that the run being resumed appended its own results to (LVE's
   * `--record`), each with its size before that run's first append: each is read as it was then,
   * so the run's own output is not taken for a change of the suite.
   */
  ownAppends?: Record<string, number>;
  /**
   * Test files larger than this many bytes in all are streamed (read again on each pass, never
   * held whole) by formats that can; default 4 MiB. 0 streams every suite that can be.
   */
  streamAboveBytes?: number;
  /** `-c a -c b`: further configs combined with the first, as the format's own tool combines them. */
  combine?: string[];
}

/**
 * A small suite of a format that runs offline at once (`assay init --format NAME`): its files, by
 * path relative to the folder it is written into, and the `assay eval` arguments that run it there.
 */
export interface Starter {
  files: Record<string, string>;
  /** Arguments after `assay eval`, run from the folder the files were written into. */
  evalArgs: string[];
}

/**
 * One input format. Detection must be cheap (a file name, a glance at the text); `load` may pull in
 * the format's parser. Formats are tried in the order of `FORMATS`.
 */
export interface SuiteFormat {
  name: string;
  /** What a user should have given, for "not a suite" messages. */
  expects: string;
  /** LoadOptions (besides env) this format understands; others are refused with exit 2. */
  options: Exclude<keyof LoadOptions, 'env' | 'streamAboveBytes' | 'providers'>[];
  /** The file (or the folder itself) to load when `dir` is a suite of this format. */
  detectDir?(dir: string): string | undefined;
  /** Whether this file is a suite of this format. */
  detectFile?(path: string, text: string): boolean;
  load(path: string, options: LoadOptions): Promise<Suite>;
  /**
   * The format's own hash of a file that is no suite of it but that its tool hashes anyway
   * (pramana's hash_suite takes any JSONL of objects with ids); undefined when it does not apply.
   */
  hashFile?(path: string): Promise<string | undefined>;
  /** A starter suite of this format (`assay init --format NAME`), loaded on demand. */
  starter?(): Promise<Starter>;
}
