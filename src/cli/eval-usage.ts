// `assay eval`'s flags: the parseArgs table and the help text that describes them.

import { DEFAULT_MAX_CONCURRENCY } from '../evaluate.js';
import { outputFormatsHelp } from '../outputs.js';
import { DEFAULT_RETRY_POLICY } from '../providers/types.js';
import { COMPARE_FLAGS } from './compare.js';
import { FILTER_FLAGS, FILTER_FLAGS_USAGE } from './filter-flags.js';
import { SUITE_FLAGS, SUITE_FLAGS_USAGE } from './suite-flags.js';

/** Help text for `assay eval`. */
/** The output formats, listed from the registry (a plugin's among them). */
const OUTPUT_FORMATS_HELP = outputFormatsHelp(' '.repeat(29));

export const EVAL_USAGE = `Usage: assay eval [SUITE] [options]

Runs every prompt × provider × test of a suite, prints a summary and writes the run to
.assay/runs/<run-id>/ (manifest.json, results.jsonl, scorecard.json).

Suite and providers:
  -c, --config FILE          the suite (same as the SUITE argument); several promptfoo configs
                             (-c a.yaml -c b.yaml) are combined into one suite as promptfoo
                             combines them. A suite may set run defaults (promptfoo: evaluateOptions, commandLineOptions,
                             outputPath) that the flags below override
  -p, --provider ID          run with this provider instead of the suite's (repeatable); a name
                             matching a suite provider keeps its config
      --grader ID            the grader model for model-graded assertions that name none
      --embedder ID          the embedding model for similarity assertions whose grader has none
                             (e.g. openai:embedding:text-embedding-3-small)
      --expect-hash HASH     refuse to run unless the suite's own hash (pramana) is HASH
${SUITE_FLAGS_USAGE}${FILTER_FLAGS_USAGE}Running:
  -j, --max-concurrency N    jobs in flight at once (default ${DEFAULT_MAX_CONCURRENCY})
      --repeat N             run every job N times (trials)
      --max-errors N|P%      errors tolerated: past this the run stops early and exits 3
                             (default: the run goes on, and any error makes the exit code 3)
      --resume [RUN-ID]      continue an unfinished run (default: the latest unfinished run of
                             this suite; write --resume=ID or --resume ID): only its missing jobs
                             run, with the filters and --var values it was started with
      --retry-errors         with --resume, also run again the jobs that ended in error
      --shard I/N            run only shard I of N (1-based) of the jobs, chosen by job key;
                             k8s/N takes I from JOB_COMPLETION_INDEX (0-based). Combine with assay merge
      --grace-period S       after Ctrl-C/SIGTERM, seconds to let jobs in flight finish (default 10)
      --max-retries N        retries per request on 429/5xx/network errors (default ${DEFAULT_RETRY_POLICY.maxAttempts - 1})
      --request-timeout MS   per-request timeout (default ${DEFAULT_RETRY_POLICY.timeoutMs})
      --runs-dir DIR         where run directories go (default .assay/runs)
      --no-cache             neither read nor fill the response cache
      --cache-path FILE      the response cache (default .assay/cache.sqlite, or ASSAY_CACHE_PATH)
      --cache-ttl S          cached responses older than S seconds are ignored (default 14 days; 0: never expire)
Output:
  -o, --output FILE          also write results to FILE, in the format its extension names (repeatable)
      --output-format NAME   the format of the -o files (default: from each file's extension):
${OUTPUT_FORMATS_HELP}      --record NAME.jsonl    LVE: append each result as a TestInstance (as lve record writes it)
                             to instances/NAME.jsonl of its own LVE folder; -o DIR/
                             --output-format lve writes the same tree under DIR
      --reporter github      also append the summary to $GITHUB_STEP_SUMMARY and annotate each
                             failing test's line (default when GITHUB_ACTIONS=true; none: off)
      --no-progress          no progress line
      --no-color             no colours
      --verbose              print every result as it completes
Regression gate:
      --baseline RUN         after the run, compare it with RUN (a baseline name, run id or run
                             directory) as assay compare does; the exit code is then the gate's.
                             RUN is checked before any model is called: a run of another suite
                             (no case in common) or one that is not complete is refused (exit 2;
                             --allow-partial takes the latter, never passing); so is --shard
      --fail-on regressed|inconclusive   the gate fails on a regression (default), or also
                             when the change is inconclusive
      --seed N, --min-effect D, --correction holm|bh, --mid-p
                             as for assay compare; --baselines-dir DIR where names are found
      --pass-at K[,K…]       with --repeat: pass@k and pass^k for these k in the summary (1 and
                             the number of trials are always shown), and in the gate
  -h, --help

Exit codes: 0 all passed (or nothing selected) · 1 a test failed · 2 invalid input ·
3 run could not complete. With --baseline, a complete run exits 1 when the gate fails, else 0. promptfoo exits 100 for both 1 and 3; with PROMPTFOO_PASS_RATE_THRESHOLD
or PROMPTFOO_FAILED_TEST_EXIT_CODE set, a complete run's code follows promptfoo's rule.
`;

/** `assay eval`'s flags, for parseFlags. */
export const EVAL_FLAGS = {
  config: { type: 'string', short: 'c', multiple: true },
  ...SUITE_FLAGS,
  ...FILTER_FLAGS,
  grader: { type: 'string' },
  embedder: { type: 'string' },
  'expect-hash': { type: 'string' },
  provider: { type: 'string', short: 'p', multiple: true },
  'max-concurrency': { type: 'string', short: 'j' },
  repeat: { type: 'string' },
  output: { type: 'string', short: 'o', multiple: true },
  'output-format': { type: 'string' },
  record: { type: 'string' },
  reporter: { type: 'string' },
  'max-errors': { type: 'string' },
  resume: { type: 'string' },
  'retry-errors': { type: 'boolean' },
  shard: { type: 'string' },
  'grace-period': { type: 'string' },
  'max-retries': { type: 'string' },
  'request-timeout': { type: 'string' },
  'runs-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  'cache-path': { type: 'string' },
  'cache-ttl': { type: 'string' },
  'no-progress': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  verbose: { type: 'boolean' },
  baseline: { type: 'string' },
  ...COMPARE_FLAGS,
  help: { type: 'boolean', short: 'h' },
} as const;
