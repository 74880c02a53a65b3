// The one option table of the command line. Every flag of every command is an entry here (or a
// format's own, from its `flags` hook): argument parsing, each command's `--help`, the CLI
// reference page (docs/cli.md, `npm run docs`) and "did you mean" are all made from it, so a flag
// cannot exist in one and not the others. Each entry also names the setting it maps to.
import type { CompareOptions } from '../analysis/compare.js';
import type { SuiteFilters } from '../core/types.js';
import { DEFAULT_MAX_CONCURRENCY, type RequestedSettings } from '../evaluate/settings.js';
import type { EvaluateOptions } from '../evaluate.js';
import type { LoadOptions } from '../formats/detect.js';
import { DEFAULT_RETRY_POLICY } from '../providers/types.js';

export type CommandName =
  | 'eval'
  | 'validate'
  | 'hash'
  | 'merge'
  | 'rescore'
  | 'report'
  | 'compare'
  | 'baseline'
  | 'cache'
  | 'runs'
  | 'view'
  | 'init';

/** The setting a flag maps to: a field of the library's options, of the loader's, of the filters… */
export type SettingPath =
  | `evaluate.${Exclude<keyof EvaluateOptions, 'suite' | 'onProgress' | 'onResult' | 'signal' | 'hardSignal'>}`
  | `settings.${keyof RequestedSettings}`
  | `filters.${keyof SuiteFilters}`
  | `load.${keyof LoadOptions}`
  | `compare.${keyof CompareOptions}`
  | `cli.${string}`;

/** One flag. */
export interface CliOption {
  /** The long name, without `--`. */
  name: string;
  /** The one-letter name, without `-`. */
  short?: string;
  type: 'string' | 'boolean';
  /** Repeatable: the values are collected in order. */
  multiple?: boolean;
  /** The value's name in help (FILE, N, ID…). */
  arg?: string;
  description: string;
  /** A different description for some commands (the same flag, told in that command's terms). */
  per?: Partial<Record<CommandName, string>>;
  commands: readonly CommandName[];
  /** The help section it is listed under. */
  group: Group;
  /** The setting it sets (documentation, and the docs page's "sets" column). */
  setting?: SettingPath;
  /** Listed in help as a second name of this flag (`--filter-targets` of `--filter-providers`). */
  aliasOf?: string;
  /** A promptfoo flag assay refuses (exit 2): what it says instead. */
  refused?: string;
  /** A promptfoo flag assay takes but that means less here: said on stderr when given. */
  note?: string;
  /** Not listed in --help (still parsed, still in the reference page). */
  hidden?: boolean;
}

export type Group =
  | 'Suite and providers'
  | 'Choosing tests'
  | 'Inputs'
  | 'Running'
  | 'Output'
  | 'Regression gate'
  | 'Comparison'
  | 'Options';

export const GROUPS: readonly Group[] = [
  'Suite and providers',
  'Choosing tests',
  'Inputs',
  'Running',
  'Output',
  'Regression gate',
  'Comparison',
  'Options',
];

const SUITE_COMMANDS = ['eval', 'validate', 'hash', 'rescore'] as const;

/** Every command's flags but the formats' own (those come from each format's `flags` hook). */
export const OPTIONS = [
  // ── Suite and providers ──────────────────────────────────────────────────────────────────────
  {
    name: 'config',
    short: 'c',
    type: 'string',
    multiple: true,
    arg: 'FILE',
    description:
      'the suite (same as the SUITE argument); several promptfoo configs (-c a.yaml -c b.yaml) are combined into one suite as promptfoo combines them. A suite may set run defaults (promptfoo: evaluateOptions, commandLineOptions, outputPath) that the flags override',
    per: {
      validate:
        'the suite (same as the SUITE argument); -c a.yaml -c b.yaml checks the one suite eval combines from them',
      hash: 'the suite (same as the SUITE argument)',
    },
    commands: ['eval', 'validate', 'hash'],
    group: 'Suite and providers',
    setting: 'evaluate.suitePath',
  },
  {
    name: 'prompts',
    short: 'p',
    type: 'string',
    multiple: true,
    arg: 'FILE',
    description:
      "promptfoo's -p: prompt files that replace the suite's prompts (paths from the current folder). A value that names no file but is a provider id assay knows is taken as --provider, with a warning (assay's -p of earlier versions)",
    per: { rescore: "a provider id is taken as --provider (assay's -p of earlier versions), with a warning" },
    commands: ['eval', 'validate', 'rescore'],
    group: 'Suite and providers',
    setting: 'load.prompts',
  },
  {
    name: 'providers',
    short: 'r',
    type: 'string',
    multiple: true,
    arg: 'ID',
    description:
      "run with this provider instead of the suite's (repeatable); a name matching a suite provider keeps its config",
    per: { rescore: "score only these providers' columns (default: the run's)" },
    commands: ['eval', 'rescore'],
    group: 'Suite and providers',
    setting: 'evaluate.providers',
  },
  {
    name: 'provider',
    type: 'string',
    multiple: true,
    arg: 'ID',
    description: 'the same as --providers',
    commands: ['eval', 'rescore'],
    group: 'Suite and providers',
    setting: 'evaluate.providers',
    aliasOf: 'providers',
  },
  {
    name: 'tests',
    short: 't',
    type: 'string',
    arg: 'FILE',
    description:
      "promptfoo's -t: a test file (CSV, JSON, JSONL, YAML) that replaces the suite's tests (path from the current folder)",
    commands: ['eval', 'validate'],
    group: 'Suite and providers',
    setting: 'load.tests',
  },
  {
    name: 'vars',
    short: 'v',
    type: 'string',
    arg: 'FILE',
    description: 'the same as --tests (promptfoo’s alias)',
    commands: ['eval', 'validate'],
    group: 'Suite and providers',
    setting: 'load.tests',
    aliasOf: 'tests',
  },
  {
    name: 'grader',
    type: 'string',
    arg: 'ID',
    description: 'the grader model for model-graded assertions that name none',
    commands: ['eval', 'validate', 'rescore'],
    group: 'Suite and providers',
    setting: 'settings.grader',
  },
  {
    name: 'embedder',
    type: 'string',
    arg: 'ID',
    description:
      'the embedding model for similarity assertions whose grader has none (e.g. openai:embedding:text-embedding-3-small)',
    commands: ['eval', 'validate', 'rescore'],
    group: 'Suite and providers',
    setting: 'evaluate.embedder',
  },
  {
    name: 'mode',
    type: 'string',
    arg: 'compat|fixed',
    description:
      "scoring mode of formats whose tool has known defects (ÈwéBench): compat reproduces the tool's numbers, fixed corrects them; apastra: compat scores judged assertions with apastra's offline fallbacks when no --grader is given",
    commands: SUITE_COMMANDS,
    group: 'Suite and providers',
    setting: 'load.mode',
  },
  {
    name: 'expect-hash',
    type: 'string',
    arg: 'HASH',
    description: "refuse to run unless the suite's own hash (pramana) is HASH",
    commands: ['eval'],
    group: 'Suite and providers',
    setting: 'cli.expectHash',
  },
  {
    name: 'description',
    type: 'string',
    arg: 'TEXT',
    description:
      "the run's suite name in the summary, the run log and the reports (promptfoo's --description)",
    commands: ['eval'],
    group: 'Suite and providers',
    setting: 'cli.description',
  },
  // ── Choosing tests ───────────────────────────────────────────────────────────────────────────
  {
    name: 'filter-metadata',
    type: 'string',
    multiple: true,
    arg: 'K=V',
    description:
      'tests whose metadata K contains V (a,b: either; \\, a comma); repeatable: every condition must hold',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.metadata',
  },
  {
    name: 'filter-failing',
    type: 'string',
    arg: 'RUN',
    description:
      'tests that failed or errored in an earlier run (run id or directory, or a promptfoo/assay results JSON), matched by case id or vars',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.failing',
  },
  {
    name: 'filter-failing-only',
    type: 'string',
    arg: 'RUN',
    description: 'tests that failed an assertion in RUN (errors left out)',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.failingOnly',
  },
  {
    name: 'filter-errors-only',
    type: 'string',
    arg: 'RUN',
    description: 'tests that errored in RUN (both -only flags: either)',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.errorsOnly',
  },
  {
    name: 'filter-pattern',
    type: 'string',
    arg: 'RE',
    description: 'tests whose description matches RE (tests without one are dropped)',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.pattern',
  },
  {
    name: 'filter-range',
    type: 'string',
    arg: 'A:B',
    description: 'tests A to B-1, zero-based, counted like -n (A: or :B leave a side open)',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.range',
  },
  {
    name: 'filter-first-n',
    short: 'n',
    type: 'string',
    arg: 'N',
    description: 'the first N tests, counted before list vars expand them',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.firstN',
  },
  {
    name: 'filter-sample',
    type: 'string',
    arg: 'N',
    description: 'N tests drawn at random; --seed S makes the draw repeatable',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.sample',
  },
  {
    name: 'filter-sample-seed',
    type: 'string',
    arg: 'S',
    description: 'the same as --seed with --filter-sample (promptfoo’s name)',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.seed',
    aliasOf: 'seed',
  },
  {
    name: 'filter-providers',
    type: 'string',
    arg: 'RE',
    description: 'providers whose id or label matches RE',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.providers',
  },
  {
    name: 'filter-targets',
    type: 'string',
    arg: 'RE',
    description: 'the same as --filter-providers',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.providers',
    aliasOf: 'filter-providers',
  },
  {
    name: 'filter-prompts',
    type: 'string',
    arg: 'RE',
    description: 'prompts whose label or id matches RE',
    commands: ['eval'],
    group: 'Choosing tests',
    setting: 'filters.prompts',
  },
  // ── Inputs ───────────────────────────────────────────────────────────────────────────────────
  {
    name: 'var',
    type: 'string',
    multiple: true,
    arg: 'K=V',
    description:
      "set var K in every test, as a default: a test's own K wins (promptfoo: K=V=W sets K to V); repeatable",
    commands: ['eval'],
    group: 'Inputs',
    setting: 'evaluate.vars',
  },
  {
    name: 'env-file',
    type: 'string',
    multiple: true,
    arg: 'FILE',
    description:
      "read environment variables from FILE (repeatable or a,b; overrides the shell). Default: .env in this folder and the suite's, filling in only unset variables. Values are never written to the run",
    commands: ['eval'],
    group: 'Inputs',
    setting: 'evaluate.env',
  },
  {
    name: 'env-path',
    type: 'string',
    multiple: true,
    arg: 'FILE',
    description: 'the same as --env-file',
    commands: ['eval'],
    group: 'Inputs',
    setting: 'evaluate.env',
    aliasOf: 'env-file',
  },
  {
    name: 'delay',
    type: 'string',
    arg: 'MS',
    description:
      'after each provider call (not cache hits), wait MS; requests then go one at a time (as in promptfoo: -j is ignored, with a warning)',
    commands: ['eval'],
    group: 'Inputs',
    setting: 'settings.delayMs',
  },
  // ── Running ──────────────────────────────────────────────────────────────────────────────────
  {
    name: 'max-concurrency',
    short: 'j',
    type: 'string',
    arg: 'N',
    description: `jobs in flight at once (default ${DEFAULT_MAX_CONCURRENCY})`,
    per: { rescore: `assertions scored at once (default ${DEFAULT_MAX_CONCURRENCY})` },
    commands: ['eval', 'rescore'],
    group: 'Running',
    setting: 'settings.maxConcurrency',
  },
  {
    name: 'repeat',
    type: 'string',
    arg: 'N',
    description: 'run every job N times (trials)',
    commands: ['eval'],
    group: 'Running',
    setting: 'settings.repeat',
  },
  {
    name: 'max-errors',
    type: 'string',
    arg: 'N|P%',
    description:
      'errors tolerated: past this the run stops early and exits 3 (default: the run goes on, and any error makes the exit code 3)',
    commands: ['eval'],
    group: 'Running',
    setting: 'evaluate.maxErrors',
  },
  {
    name: 'resume',
    type: 'string',
    arg: 'RUN-ID',
    description:
      'continue an unfinished run (default: the latest unfinished run of this suite; write --resume=ID or --resume ID): only its missing jobs run, with the filters and --var values it was started with',
    commands: ['eval'],
    group: 'Running',
    setting: 'evaluate.resume',
  },
  {
    name: 'retry-errors',
    type: 'boolean',
    description: 'with --resume, also run again the jobs that ended in error',
    commands: ['eval'],
    group: 'Running',
    setting: 'evaluate.retryErrors',
  },
  {
    name: 'shard',
    type: 'string',
    arg: 'I/N',
    description:
      'run only shard I of N (1-based) of the jobs, chosen by job key; k8s/N takes I from JOB_COMPLETION_INDEX (0-based). Combine with assay merge',
    commands: ['eval'],
    group: 'Running',
    setting: 'evaluate.shard',
  },
  {
    name: 'grace-period',
    type: 'string',
    arg: 'S',
    description: 'after Ctrl-C/SIGTERM, seconds to let jobs in flight finish (default 10)',
    commands: ['eval'],
    group: 'Running',
    setting: 'cli.gracePeriod',
  },
  {
    name: 'max-retries',
    type: 'string',
    arg: 'N',
    description: `retries per request on 429/5xx/network errors (default ${DEFAULT_RETRY_POLICY.maxAttempts - 1})`,
    commands: ['eval'],
    group: 'Running',
    setting: 'evaluate.retry',
  },
  {
    name: 'request-timeout',
    type: 'string',
    arg: 'MS',
    description: `per-request timeout (default ${DEFAULT_RETRY_POLICY.timeoutMs})`,
    commands: ['eval'],
    group: 'Running',
    setting: 'evaluate.retry',
  },
  {
    name: 'runs-dir',
    type: 'string',
    arg: 'DIR',
    description: 'where run directories go (default .assay/runs)',
    per: {
      rescore: 'where runs are found and the new run goes (default .assay/runs)',
      merge: 'where the merged run goes (default .assay/runs)',
      report: 'where run ids are found (default .assay/runs)',
      compare: 'where run ids are found (default .assay/runs)',
      baseline: 'where run ids are found (default .assay/runs)',
      runs: 'where runs are kept (default .assay/runs)',
      view: 'where run ids are found (default .assay/runs)',
    },
    commands: ['eval', 'rescore', 'merge', 'report', 'compare', 'baseline', 'runs', 'view'],
    group: 'Running',
    setting: 'evaluate.runsDir',
  },
  {
    name: 'no-cache',
    type: 'boolean',
    description: 'neither read nor fill the response cache',
    per: { rescore: 'graders neither read nor fill the response cache' },
    commands: ['eval', 'rescore'],
    group: 'Running',
    setting: 'settings.cache',
  },
  {
    name: 'cache-path',
    type: 'string',
    arg: 'FILE',
    description: 'the response cache (default .assay/cache.sqlite, or ASSAY_CACHE_PATH)',
    commands: ['eval', 'rescore', 'cache'],
    group: 'Running',
    setting: 'settings.cache',
  },
  {
    name: 'cache-ttl',
    type: 'string',
    arg: 'S',
    description: 'cached responses older than S seconds are ignored (default 14 days; 0: never expire)',
    per: { cache: 'entries older than S seconds are expired (default 1209600 = 14 days; 0 = never)' },
    commands: ['eval', 'cache'],
    group: 'Running',
    setting: 'settings.cache',
  },
  // ── Output ───────────────────────────────────────────────────────────────────────────────────
  {
    name: 'output',
    short: 'o',
    type: 'string',
    multiple: true,
    arg: 'FILE',
    description:
      'also write results to FILE, by extension: .html (a report to open in a browser), .xml (JUnit), .md (Markdown), .json, .jsonl, .csv (repeatable)',
    per: { rescore: 'also write results to FILE (as assay eval -o; repeatable)' },
    commands: ['eval', 'rescore', 'merge'],
    group: 'Output',
    setting: 'evaluate.outputs',
  },
  {
    name: 'output',
    short: 'o',
    type: 'string',
    arg: 'FILE',
    description:
      'write FILE in the format its extension names (.html, .xml (JUnit), .md, .json, .jsonl, .csv) or --format names',
    per: {
      compare:
        'also write the comparison to FILE: a page to open in a browser when FILE ends in .html, else JSON; with --policy, apastra’s regression report',
    },
    commands: ['report', 'compare'],
    group: 'Output',
    setting: 'cli.output',
  },
  {
    name: 'output-format',
    type: 'string',
    arg: 'NAME',
    description:
      "the format of the -o files (default: from each file's extension; the formats are listed below); promptfoo writes promptfoo's results JSON",
    commands: ['eval', 'rescore', 'merge'],
    group: 'Output',
    setting: 'cli.outputFormat',
  },
  {
    name: 'format',
    type: 'string',
    arg: 'NAME',
    description:
      'write the run in that output format (listed below): to -o FILE; without -o, a reporter reports (github: the Markdown appended to $GITHUB_STEP_SUMMARY, stdout outside Actions, and an ::error annotation at each failing test’s line), html writes RUN/report.html (its path is printed), and any other one-file format prints to stdout',
    per: {
      init: 'the starter’s suite format: promptfoo (default: promptfooconfig.yaml), pramana (manifest.toml and a tier), ewebench (tests/translation.json), apastra (a promptops/ workspace) or lve (an LVE repository with one test)',
    },
    commands: ['report', 'init'],
    group: 'Output',
    setting: 'cli.format',
  },
  {
    name: 'json',
    type: 'boolean',
    description: 'the scorecard as JSON',
    per: {
      compare: 'print the comparison as JSON',
      runs: 'the list as JSON (one object a run, with its manifest’s counts and its pass rate)',
    },
    commands: ['report', 'compare', 'runs'],
    group: 'Output',
    setting: 'cli.json',
  },
  {
    name: 'reporter',
    type: 'string',
    arg: 'github|none',
    description:
      "also append the summary to $GITHUB_STEP_SUMMARY and annotate each failing test's line (default when GITHUB_ACTIONS=true; none: off)",
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.reporter',
  },
  {
    name: 'table',
    type: 'boolean',
    description:
      "print promptfoo's per-test output grid after the run: the vars, then one column per prompt × provider ([PASS]/[FAIL]/[ERROR] and the output); the first 25 tests",
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.table',
  },
  {
    name: 'no-table',
    type: 'boolean',
    description: 'no output grid (the default)',
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.table',
  },
  {
    name: 'table-cell-max-length',
    type: 'string',
    arg: 'N',
    description: "with --table, cut each cell to N characters (default 250, as promptfoo's)",
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.tableCellMaxLength',
  },
  {
    name: 'no-report',
    type: 'boolean',
    description:
      'do not write the run’s report.html (written by default, and its link printed last; a run of more than 50,000 results skips it and says how to write it)',
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.report',
  },
  {
    name: 'no-progress',
    type: 'boolean',
    description: 'no progress line',
    commands: ['eval', 'rescore'],
    group: 'Output',
    setting: 'cli.progress',
  },
  {
    name: 'no-progress-bar',
    type: 'boolean',
    description: 'the same as --no-progress (promptfoo’s name)',
    commands: ['eval', 'rescore'],
    group: 'Output',
    setting: 'cli.progress',
    aliasOf: 'no-progress',
  },
  {
    name: 'no-color',
    type: 'boolean',
    description: 'no colours',
    commands: ['eval', 'rescore', 'merge', 'report'],
    group: 'Output',
    setting: 'cli.color',
  },
  {
    name: 'verbose',
    type: 'boolean',
    description:
      'print every result as it completes (with --baseline, also every figure of the comparison: the tests, corrected p-values and intervals, the smallest detectable change)',
    per: {
      compare:
        'every figure of the comparison, below the plain sentences: the tests, corrected p-values and intervals, the smallest detectable change, the errors both ways',
      report: 'with --baseline, every figure of the comparison (as assay compare --verbose)',
    },
    commands: ['eval', 'compare', 'report'],
    group: 'Output',
    setting: 'cli.verbose',
  },
  // ── Regression gate / comparison ─────────────────────────────────────────────────────────────
  {
    name: 'baseline',
    type: 'string',
    arg: 'RUN',
    description:
      'after the run, compare it with RUN (a baseline name, run id or run directory) as assay compare does; the exit code is then the gate’s. RUN is checked before any model is called: a run of another suite (no case in common) or one that is not complete is refused (exit 2; --allow-partial takes the latter, never passing); so is --shard',
    per: {
      report:
        'the comparison of the run reported (the candidate) with the baseline RUN, as assay compare prints it; with --format html (the run’s compare.html) or -o FILE.html, a page. The compare options apply; exit codes are compare’s',
    },
    commands: ['eval', 'report'],
    group: 'Regression gate',
    setting: 'cli.baseline',
  },
  {
    name: 'fail-on',
    type: 'string',
    arg: 'regressed|inconclusive',
    description: 'fail on a regression (default), or also when the change is inconclusive',
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'cli.failOn',
  },
  {
    name: 'seed',
    type: 'string',
    arg: 'N',
    description: 'seed of the bootstrap and permutation draws (default 1)',
    per: {
      eval: 'seed of --filter-sample (printed and recorded when not given), and of the gate’s draws',
    },
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'compare.seed',
  },
  {
    name: 'min-effect',
    type: 'string',
    arg: 'D',
    description:
      'a change smaller than D is never regressed or improved: it counts only when its whole 95% interval is beyond ±D (pass rate as a fraction, e.g. 0.02 for 2 points; score in its own units)',
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'compare.minEffect',
  },
  {
    name: 'correction',
    type: 'string',
    arg: 'holm|bh',
    description: 'multiple-comparison correction (default holm)',
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'compare.correction',
  },
  {
    name: 'mid-p',
    type: 'boolean',
    description: 'mid-p McNemar (less conservative)',
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'compare.midP',
  },
  {
    name: 'pass-at',
    type: 'string',
    arg: 'K[,K…]',
    description:
      'pass@k and pass^k for these k (repeated runs; 1 and the number of trials are always shown), in the summary and the gate',
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'evaluate.passAt',
  },
  {
    name: 'baselines-dir',
    type: 'string',
    arg: 'DIR',
    description: 'where baseline names are found (default .assay/baselines)',
    commands: ['eval', 'report', 'compare', 'view'],
    group: 'Comparison',
    setting: 'cli.baselinesDir',
  },
  {
    name: 'allow-partial',
    type: 'boolean',
    description:
      'compare runs that did not complete: the verdict is then never unchanged or improved, a policy never PASSes, and the exit code is 1',
    commands: ['eval', 'report', 'compare'],
    group: 'Comparison',
    setting: 'cli.allowPartial',
  },
  {
    name: 'policy',
    type: 'string',
    arg: 'FILE',
    description:
      "judge by an apastra regression policy (promptops/policies/regression.yaml) as apastra's compare.py does; BASELINE and CANDIDATE may then also be apastra scorecard.json files, baselines or run folders. -o writes apastra's regression report; two assay runs add paired statistics. Exit 1 when the report's status is fail or warning",
    commands: ['compare'],
    group: 'Comparison',
    setting: 'cli.policy',
  },
  // ── baseline ─────────────────────────────────────────────────────────────────────────────────
  {
    name: 'name',
    type: 'string',
    arg: 'NAME',
    description: 'the baseline’s name (default: the run id)',
    commands: ['baseline'],
    group: 'Options',
    setting: 'cli.name',
  },
  {
    name: 'dir',
    type: 'string',
    arg: 'DIR',
    description: 'where baselines are kept (default .assay/baselines)',
    commands: ['baseline'],
    group: 'Options',
    setting: 'cli.baselinesDir',
  },
  {
    name: 'force',
    type: 'boolean',
    description: 'save a run that is not complete anyway (with a warning)',
    per: { init: 'overwrite files of the same names (otherwise nothing is written when one exists)' },
    commands: ['baseline', 'init'],
    group: 'Options',
    setting: 'cli.force',
  },
  // ── promptfoo flags assay takes without acting on, or refuses ─────────────────────────────────
  {
    name: 'no-share',
    type: 'boolean',
    description: 'accepted for promptfoo command lines: assay never shares a run',
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.promptfoo',
    hidden: true,
  },
  {
    name: 'no-write',
    type: 'boolean',
    description: 'accepted for promptfoo command lines (promptfoo: keep the run out of its database)',
    note: 'assay always writes its run directory (every report, compare and rescore reads it); nothing else is written',
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.promptfoo',
    hidden: true,
  },
  {
    name: 'tag',
    type: 'string',
    multiple: true,
    arg: 'K=V',
    description: 'accepted for promptfoo command lines (promptfoo: a tag on the eval record)',
    note: 'assay does not record eval tags; the run is written without them',
    commands: ['eval'],
    group: 'Output',
    setting: 'cli.promptfoo',
    hidden: true,
  },
  {
    name: 'share',
    type: 'boolean',
    description: 'promptfoo’s shareable URL',
    refused: 'assay has no sharing service: open the run’s report.html (assay report RUN --format html)',
    commands: ['eval'],
    group: 'Output',
    hidden: true,
  },
  {
    name: 'watch',
    short: 'w',
    type: 'boolean',
    description: 'promptfoo’s re-run on change',
    refused: 'assay does not watch files: run assay eval again (cached answers make it quick)',
    commands: ['eval'],
    group: 'Running',
    hidden: true,
  },
  {
    name: 'assertions',
    short: 'a',
    type: 'string',
    arg: 'FILE',
    description: 'promptfoo’s standalone assertions mode',
    refused:
      'promptfoo’s --assertions/--model-outputs mode is not supported: put the outputs in a test file and use an echo provider',
    commands: ['eval'],
    group: 'Suite and providers',
    hidden: true,
  },
  {
    name: 'model-outputs',
    type: 'string',
    arg: 'FILE',
    description: 'promptfoo’s standalone assertions mode',
    refused:
      'promptfoo’s --assertions/--model-outputs mode is not supported: put the outputs in a test file and use an echo provider',
    commands: ['eval'],
    group: 'Suite and providers',
    hidden: true,
  },
  {
    name: 'suggest-prompts',
    type: 'string',
    arg: 'N',
    description: 'promptfoo’s prompt generation',
    refused: 'assay does not generate prompts',
    commands: ['eval'],
    group: 'Suite and providers',
    hidden: true,
  },
  {
    name: 'extension',
    short: 'x',
    type: 'string',
    multiple: true,
    arg: 'FILE',
    description: 'promptfoo’s extension hooks',
    refused: 'promptfoo’s extension hooks (beforeAll, afterEach…) are not supported',
    commands: ['eval'],
    group: 'Running',
    hidden: true,
  },
  {
    name: 'remote',
    type: 'boolean',
    description: 'promptfoo’s remote inference (red teams)',
    refused: 'assay runs no remote inference',
    commands: ['eval'],
    group: 'Running',
    hidden: true,
  },
  {
    name: 'help',
    short: 'h',
    type: 'boolean',
    description: 'this help',
    commands: [
      'eval',
      'validate',
      'hash',
      'merge',
      'rescore',
      'report',
      'compare',
      'baseline',
      'cache',
      'runs',
      'view',
      'init',
    ],
    group: 'Options',
    setting: 'cli.help',
  },
  // ── runs, view ────────────────────────────────────────────────────────────────────────────────
  {
    name: 'limit',
    short: 'n',
    type: 'string',
    arg: 'N',
    description: 'list only the newest N runs (default 20; 0 lists all)',
    commands: ['runs'],
    group: 'Output',
    setting: 'cli.limit',
  },
  {
    name: 'no-open',
    type: 'boolean',
    description: 'only write the report (when it is missing or older than the run) and print its link',
    commands: ['view'],
    group: 'Output',
    setting: 'cli.noOpen',
  },
] as const satisfies readonly CliOption[];

/** A command: what it takes and what it does (its `--help` and its line in `assay --help`). */
export interface CommandSpec {
  name: CommandName;
  /** What follows the command name in its usage line. */
  args: string;
  /** Its line in `assay --help`. */
  summary: string;
  /** The paragraphs after the usage line. */
  about: string;
  /** Said after the options (exit codes, notes). */
  footer?: string;
}

const EVAL_EXIT = `Exit codes: 0 all passed (or nothing selected) · 1 a test failed · 2 invalid input · 3 run could not complete. With --baseline, a complete run exits 1 when the gate fails, else 0. promptfoo exits 100 for both 1 and 3; with PROMPTFOO_PASS_RATE_THRESHOLD or PROMPTFOO_FAILED_TEST_EXIT_CODE set, a complete run's code follows promptfoo's rule.`;

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'eval',
    args: '[SUITE] [options]',
    summary: 'run a suite and write a run directory',
    about:
      'Runs every prompt × provider × test of a suite, prints a summary and writes the run to .assay/runs/<run-id>/ (manifest.json, results.jsonl, scorecard.json). promptfoo’s own command line works too: promptfoo eval -c CONFIG -p PROMPTS -r PROVIDER -t TESTS … runs as assay eval with the same flags.',
    footer: EVAL_EXIT,
  },
  {
    name: 'validate',
    args: '[SUITE] [-c FILE…] [options]',
    summary: 'check a suite without calling any model',
    about:
      'Loads and checks a suite (files, prompts, providers, tests, assertion types and values, graders) without calling any model. Every problem is printed as file:line:col: message. Exit 0 if valid, 2 if not.',
  },
  {
    name: 'hash',
    args: '[SUITE] [options]',
    summary: "print a suite's own hash (pramana's suite hash)",
    about:
      "Prints the suite's own identity hash, as its format's tool computes it (pramana: sha256:…). With several parts loaded (pramana tiers), prints one line per part: HASH  NAME. Loads and checks the suite; calls no model. Exit 2 for a format that defines no suite hash. A file that is no suite (or one its format refuses) but that a format's tool hashes anyway gets that hash, after the reasons it does not run (a .jsonl of objects with ids, or an empty one: pramana's hash_suite, which does not validate the tests).",
  },
  {
    name: 'merge',
    args: 'RUN_DIR… [options]',
    summary: 'combine the runs of a sharded evaluation into one',
    about:
      'Combines the runs of a sharded evaluation (assay eval --shard i/n on several machines) into one run directory with one scorecard. Refuses runs of different suites or settings, a shard given twice, and a job present in two runs. Exit codes as for assay eval.',
  },
  {
    name: 'rescore',
    args: 'RUN [SUITE] [options]',
    summary: "score a run's recorded answers again with the suite's current assertions; no model is called",
    about: `Scores the answers a past run recorded again, with the suite's current assertions, into a new run directory that names its source. No model is called: use it after fixing an assertion, a threshold or an output transform. Model-graded assertions still ask their grader (its answers come from the response cache when it has them).

RUN is a run directory, or a run id under --runs-dir. SUITE defaults to the suite the run was made from. Results pair by the case's stable identity (its format id, or its description and vars), prompt, provider and trial, so an edited assertion keeps its recorded answer; a case the run did not record is left out and counted, never sent to a model.

A re-score is as complete as its source: re-scoring a run that was interrupted or aborted (or one shard) gives a run marked the same, which says how many planned jobs were never run, and which compare and baseline save refuse as they refuse its source.`,
    footer:
      "Exit codes are eval's: 0 all passed, 1 a test failed, 2 bad input, 3 the rescore could not complete.",
  },
  {
    name: 'report',
    args: '[RUN] [options]',
    summary: 'a run rendered from its log: the summary, --json, or a report file (--format, -o FILE)',
    about:
      'Renders a run from its log (results.jsonl and the scoring its manifest recorded). RUN is a run directory, a run id under --runs-dir, or a baseline name; default: the newest run under --runs-dir (.assay/runs). Works for any run: live, merged, re-scored, or from an earlier assay version. With no flag, prints the console summary.',
  },
  {
    name: 'compare',
    args: '[BASELINE CANDIDATE] [options]',
    summary:
      'pair two runs case by case: regressed, improved, unchanged or inconclusive, with paired statistics',
    about: `Pairs the results of two runs case by case (case identity × prompt label × provider, trials reduced per case) and says, for each prompt × provider and metric (pass rate, score), whether the candidate regressed, improved, is unchanged, or whether the difference is within the noise (inconclusive). BASELINE and CANDIDATE are run directories, run ids under --runs-dir, or baseline names (assay baseline save); with neither, the newest complete run is compared with the newest complete earlier run of the same suite (and shard), and stderr says which two and which newer runs that did not complete (a Ctrl-C) it passed over (with --allow-partial the newest run is taken whatever its state). Unlabeled prompts whose text changed pair by position; a case judged on one side only (skipped on the other) is unpaired and listed, never counted as a failure.

Each comparison is said first in plain words (what moved, and whether that could be chance), with its statistics on one line below; --verbose prints every figure.

Tests: exact McNemar on the cases whose outcome flipped (one trial a case), with Tango's score interval made to agree with it about 0; else a sign-flip permutation test on the per-case differences (a within-case permutation of the trials when the sides ran different numbers) with a 95% studentized paired-bootstrap interval; Holm (or Benjamini–Hochberg) correction over every comparison. Each metric also shows the smallest change its test could detect at 80% power after the correction. A change the errored trials could decide (had they passed, or failed) is "cannot judge", not a regression. Draws are seeded: the same runs give the same answer.

A run that is not complete (interrupted, aborted, one shard, or a log shorter than its plan) is refused (exit 2), saying how many planned jobs each side is missing: the jobs never run may be the ones that changed. --allow-partial compares them anyway, and then no verdict in the comparison, at any level, is unchanged or improved.`,
    footer:
      'Exit codes: 0 nothing regressed; 1 something regressed (or inconclusive, with --fail-on inconclusive; or a side is not complete, with --allow-partial); 2 bad input (unreadable or damaged runs, no case in common, a run that is not complete); 3 cannot judge (errors decide the verdict).',
  },
  {
    name: 'baseline',
    args: 'save RUN [options] | list [--dir DIR]',
    summary: 'pin a run as a baseline to compare with',
    about: `save copies a finished run (its results.jsonl, manifest.json and scorecard.json) to DIR/NAME (default .assay/baselines/<NAME>; NAME defaults to the run id), replacing a baseline of that name whole: the copy is built in DIR/.store and DIR/NAME, a link to it, is swapped in one rename, so a kill leaves the old baseline or the new one, never a mix. Saves of one name take turns. Only copies assay saved (each holds a marker) are ever removed; a DIR/.store that is a link elsewhere is used, and said; anything at DIR/NAME assay did not make is refused. A run of an apastra suite also becomes its active apastra baseline, derived-index/baselines/<suite-id>.json in the workspace (the previous one is copied to a new <suite-id>-<timestamp>.json, -2… when the name is taken). A run that is not complete (interrupted, aborted, one shard, or a log shorter than its plan), of any format, is refused (nothing is saved) unless --force is given. RUN is a run directory or a run id under --runs-dir. A baseline is a run directory: assay compare, report and rescore read it as any run.

list shows the saved baselines, newest first.`,
  },
  {
    name: 'cache',
    args: 'stats|clear|prune [options]',
    summary: 'inspect or empty the response cache',
    about:
      'stats prints the entry count, size on disk, oldest and newest entry, and the path; clear removes every entry; prune removes the entries older than the TTL.',
  },
  {
    name: 'runs',
    args: '[options]',
    summary: 'the runs kept in .assay/runs, newest first',
    about:
      'Lists the runs under --runs-dir, newest first (by start time, or last resumption): the run id, the suite and its format, the status (complete, interrupted, aborted, running), passed/failed/errors, the pass rate (errors count as not passed) and how long ago it started. A run folder whose manifest cannot be read is listed as unreadable. Give a run id to assay view, report, compare, rescore or eval --resume.',
  },
  {
    name: 'view',
    args: '[RUN] [options]',
    summary: "open a run's HTML report (the newest run by default)",
    about:
      "Opens a run's HTML report (RUN/report.html) in the browser, writing it first if the run has none or its log is newer. RUN is a run directory, a run id under --runs-dir, or a baseline name; default: the newest run. Where there is no display (no DISPLAY or WAYLAND_DISPLAY on Linux), or with --no-open, the report's file:// link is printed instead.",
  },
  {
    name: 'init',
    args: '[DIR] [options]',
    summary: 'write a small suite that runs offline at once',
    about:
      'Writes a small suite into DIR (default: the current folder) that assay eval runs offline at once with the echo provider (it answers with the prompt itself), and prints the command that runs it. Replace echo with a real model when you are ready. Nothing is written when a file of the starter exists (unless --force), nor beside a suite of another format.',
  },
];

/** The names `assay COMMAND` takes (and their help entries), for "did you mean". */
export const COMMAND_NAMES: readonly string[] = [...COMMANDS.map((c) => c.name), 'help', 'version'];

// ── Typed values ───────────────────────────────────────────────────────────────────────────────

type Table = (typeof OPTIONS)[number];
type ValueOf<E> = E extends { type: 'boolean' } ? boolean : E extends { multiple: true } ? string[] : string;
type EntriesOf<C extends CommandName> = Table extends infer E
  ? E extends { commands: readonly (infer X)[] }
    ? C extends X
      ? E
      : never
    : never
  : never;

/** The parsed values of a command's own flags, typed from the table. */
export type CommandValues<C extends CommandName> = {
  [E in EntriesOf<C> as E['name']]?: ValueOf<E>;
};

/** The entries of one command (its own; the formats' come from `formatOptions`). */
export function optionsOf(command: CommandName): CliOption[] {
  return (OPTIONS as readonly CliOption[]).filter((o) => o.commands.includes(command));
}

// Every run setting and every filter has a flag, checked by the compiler: a field added to
// RequestedSettings or SuiteFilters does not compile until an entry above maps to it, or it is
// listed here as one only a suite sets for itself.
type Declared = Table extends infer E ? (E extends { setting: infer S } ? S : never) : never;
type SuiteOnly = 'settings.jobTimeoutMs' | 'settings.maxRunMs';
type Unflagged = Exclude<
  `settings.${Exclude<keyof RequestedSettings, 'filters'>}` | `filters.${keyof SuiteFilters}`,
  Declared
>;
type Assert<T extends true> = T;
export type EverySettingHasAFlag = Assert<[Unflagged] extends [SuiteOnly] ? true : false>;
