/** Command-line options of the benchmark (`node dist/bench/run.js [options]`). */

/** The parsed options. */
export interface BenchOptions {
  /** Small workloads (100 / 1,000 tests), one run each, no 100k workload: a smoke test. */
  quick: boolean;
  /** Run only these workloads (by name); undefined runs all. */
  only: string[] | undefined;
  /** Run promptfoo next to assay (installing it when missing). */
  peer: boolean;
  /** Timed runs per workload and tool; undefined keeps each workload's default. */
  runs: number | undefined;
  /** Per-run timeout in seconds. */
  timeoutS: number;
  /** Profile assay (`--cpu-prof`) on every workload whose target it misses. */
  profile: boolean;
  help: boolean;
}

/** The usage text printed by `--help`. */
export const USAGE = `Usage: npm run bench -- [options]   (or: node dist/bench/run.js [options])

Measures assay and promptfoo side by side on generated workloads and writes bench/RESULTS.md.

Options:
  --quick            small workloads (100 / 1,000 tests), 1 run each, no 100k workload
  --only NAME[,NAME] run only these workloads (see the list below)
  --no-peer          do not run (or install) promptfoo
  --runs R           timed runs per workload and tool (default: 3 for short ones, 1 for long ones)
  --timeout-s S      per-run timeout in seconds (default 600)
  --profile          profile assay with --cpu-prof where it misses a target; summary in RESULTS.md
  -h, --help
`;

/** Parses argv; throws an Error with a readable message on a bad option. */
export function parseOptions(argv: string[], known: string[]): BenchOptions {
  const opts: BenchOptions = {
    quick: false,
    only: undefined,
    peer: true,
    runs: undefined,
    timeoutS: 600,
    profile: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const positive = (): number => {
      const raw = value();
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive integer, got "${raw}"`);
      return n;
    };
    switch (flag) {
      case '--quick':
        opts.quick = true;
        break;
      case '--no-peer':
        opts.peer = false;
        break;
      case '--profile':
        opts.profile = true;
        break;
      case '--runs':
        opts.runs = positive();
        break;
      case '--timeout-s':
        opts.timeoutS = positive();
        break;
      case '--only': {
        const names = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const unknown = names.filter((n) => !known.includes(n));
        if (unknown.length > 0) {
          throw new Error(
            `--only: unknown workload ${unknown.join(', ')}; expected some of ${known.join(', ')}`,
          );
        }
        opts.only = names;
        break;
      }
      case '-h':
      case '--help':
        opts.help = true;
        break;
      default:
        throw new Error(`unknown option "${arg}"\n\n${USAGE}`);
    }
  }
  return opts;
}
