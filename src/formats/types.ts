// What a format folder implements. `src/formats/<name>/`:
// - `format.ts` exports `format: SuiteFormat` (below): cheap detection, loading into the core Suite,
//   the LoadOptions it accepts, its own hash; listed in detect.ts, imported on first use;
// - `report.ts` (when the format's tool writes a results file users expect) registers its writer
//   with report/outputs.ts when imported; listed in formats/reports.ts, and chosen by the
//   `--output-format` name a user gives, never by the suite's format;
// - `gate` (when the format's tool judges its own runs, as apastra's CI does) is found through the
//   registry by the run's `manifest.suite.format` and called by the host after the outputs;
// - its own scorers (semantics of that tool alone) register under a namespaced type
//   (`ewebench:ewe-quality`) when its loader is imported.
// Format modules import these types from here, never from the registry (detect.ts), and never
// from another format's folder (test/architecture.test.ts checks both).
import type { Suite } from '../core/types.js';
import type { FailuresReader } from '../engine/filter.js';

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
  /** `-p FILE` (promptfoo's `--prompts`): prompt files that replace the suite's, paths from the current folder. */
  prompts?: string[];
  /** `-t FILE` (promptfoo's `--tests`): a test file that replaces the suite's tests, path from the current folder. */
  tests?: string;
  /** `--prompt-prefix`/`--prompt-suffix` (promptfoo): text around every prompt, under the suite's own. */
  promptPrefix?: string;
  promptSuffix?: string;
}

/**
 * A flag of the format's own (`--tier`, `--model-map`, LVE's `--record`…). The command line's
 * option table includes every format's flags: they are parsed, listed in `--help` and the CLI
 * reference, and suggested for typos like any other.
 */
export interface FormatFlag {
  /** The long name, without `--`. */
  name: string;
  type: 'string' | 'boolean';
  /** Repeatable: the values are collected in order. */
  multiple?: boolean;
  /** The value's name in help (FILE, NAME…). */
  arg?: string;
  description: string;
  /** The commands that take it (default: every command that loads a suite: eval, validate, hash, rescore). */
  commands?: readonly ('eval' | 'validate' | 'hash' | 'rescore')[];
  /**
   * Sets the LoadOptions field `option` from the flag's value (a suite of another format then
   * refuses the flag, naming it). Throws InputError on a value it cannot take.
   */
  load?: {
    option: Exclude<keyof LoadOptions, 'env' | 'streamAboveBytes' | 'providers' | 'ownAppends'>;
    parse?(value: string | boolean | string[]): LoadOptions[keyof LoadOptions];
  };
  /**
   * Appends the run's results, in the named output format, to the file NAME in the suite's own
   * folders (LVE's `--record NAME.jsonl`); checked before any model is called.
   */
  record?: string;
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
  /** The format's own flags (see FormatFlag), in the order `--help` lists them. */
  flags?: readonly FormatFlag[];
  /** LoadOptions (besides env) this format understands; others are refused with exit 2. */
  options: Exclude<keyof LoadOptions, 'env' | 'streamAboveBytes' | 'providers'>[];
  /** The file (or the folder itself) to load when `dir` is a suite of this format. */
  detectDir?(dir: string): string | undefined;
  /** Whether this file is a suite of this format. */
  detectFile?(path: string, text: string): boolean;
  load(path: string, options: LoadOptions): Promise<Suite>;
  /**
   * The in-memory equivalent of `load`: a config object of the format's shape (what its file
   * would parse to), given to `evaluate({ config })`. Relative paths in it resolve against
   * `basePath` (default: the current folder). Bad input is an InputError naming the path in the
   * object (`tests[3].assert[0].type`).
   */
  loadObject?(config: unknown, options: LoadOptions & { basePath?: string }): Promise<Suite>;
  /**
   * The format's own hash of a file that is no suite of it but that its tool hashes anyway
   * (pramana's hash_suite takes any JSONL of objects with ids); undefined when it does not apply.
   */
  hashFile?(path: string): Promise<string | undefined>;
  /**
   * `assay baseline save`: the format's own baseline rules, for a run of a suite of this format
   * (found by the run's `manifest.suite.format`).
   */
  baseline?: BaselineHook;
  /**
   * `assay compare BASELINE CANDIDATE --policy FILE`: the format's own regression policy. Chosen by
   * the `manifest.suite.format` of a side that is an assay run, else the first format that has one.
   */
  policyCompare?: PolicyCompareHook;
  /**
   * `--filter-failing FILE` (and its `-only` forms) given a results file of the format's own tool:
   * the cases it failed or errored on.
   */
  failures?: FailuresHook;
  /**
   * The environment variables the format's own tool reads to choose the interpreter of user code
   * (promptfoo: `PROMPTFOO_PYTHON`, `PROMPTFOO_RUBY`); the Python and Ruby runners take them as a
   * parameter (every registered format's, so a run of any format honours them).
   */
  interpreters?: { python?: string; ruby?: string };
  /**
   * The format's own verdict on a finished run (apastra: thresholds, regression policy, budget),
   * called by the host after the outputs are written, with what was written. When it gives one,
   * its text is printed and, unless the run failed to run (exit 3), its `failed` decides the exit
   * code (1 or 0) in place of the count of failing cases, as the tool's own gate would.
   */
  gate?(run: GateInput): Promise<GateVerdict | undefined>;
  /** A starter suite of this format (`assay init --format NAME`), loaded on demand. */
  starter?(): Promise<Starter>;
}

/** What a format's gate is given: the run directory and the outputs written of it. */
export interface GateInput {
  runDir: string;
  /** Each output written, by output format name, with the paths written (files or folders). */
  outputs: { format: string; paths: string[] }[];
}

/** A format's own verdict on a run (see SuiteFormat.gate). */
export interface GateVerdict {
  text: string;
  failed: boolean;
}

/** A format's rules for `assay baseline save` of a run of one of its suites. */
export interface BaselineHook {
  /**
   * Why a run that is not complete must not be saved (said instead of assay's own refusal, which
   * applies when this is undefined). Only asked about a run that is not complete.
   */
  refusal?(runDir: string): Promise<string | undefined>;
  /**
   * After assay saved the run as baseline `savedAs`: the format's own baseline, if its tool has
   * one (written where that tool looks). `incomplete` says how the run falls short of whole when
   * it was saved anyway (--force). Returns the lines to print (stdout) and the warnings (stderr).
   */
  save?(
    runDir: string,
    savedAs: string,
    incomplete: string | undefined,
  ): Promise<{ lines: string[]; warnings: string[] } | undefined>;
}

/** One side of a policy comparison as the format read it. */
export interface PolicySideRef {
  /** The path the report names. */
  ref: string;
  /** Set when the side is an assay run directory (paired statistics and completeness apply). */
  runDir?: string;
  /** Set on a side that records a run that did not complete, in words. */
  incomplete?: string;
}

/** A format's regression policy, read with its two sides, ready to judge. */
export interface PolicyComparison {
  baseline: PolicySideRef;
  candidate: PolicySideRef;
  /**
   * The verdict. `incomplete` (why a side is not whole, when compared anyway) means it never
   * passes. Bad input (a side the policy cannot read) is an InputError.
   */
  judge(incomplete: string[] | undefined): PolicyVerdict;
}

/** A policy's verdict. */
export interface PolicyVerdict {
  /** Whether the gate passes (exit 0). */
  pass: boolean;
  /** The verdict for the console. */
  text: string;
  /** The report file's text (`-o`, `--json`), with assay's extra keys after the format's own. */
  report(extra: Record<string, unknown> | undefined): string;
}

/** `assay compare --policy`. */
export interface PolicyCompareHook {
  /** Reads and checks the policy file, then both sides (paths as given); bad input is an InputError. */
  read(policyFile: string, baseline: string, candidate: string): Promise<PolicyComparison>;
}

/** Failure selection from a results file of the format's own tool (`--filter-failing FILE`). */
export type FailuresHook = FailuresReader;
