/** The benchmark's workloads (issue 3's list), at full size or at `--quick` size. */

/** Which provider a workload's suite uses. */
export type ProviderKind = 'echo' | 'mock';

/** One row of the benchmark table. */
export interface Workload {
  /** Name used by `--only`. */
  name: string;
  /** What the row measures, as shown in the table. */
  title: string;
  /**
   * `version`: the cold start (`--version`); `eval`: one eval per run; `cached`: fill once, then
   * timed reruns; `html`: the HTML report of a run, written and opened in Chromium (assay only).
   */
  kind: 'version' | 'eval' | 'cached' | 'html';
  tests: number;
  provider: ProviderKind;
  /** The mock's path-prefix fault settings (`latency_ms=200`), '' for none. */
  faults: string;
  /** `-j` for both tools; undefined keeps each tool's default. */
  concurrency: number | undefined;
  /** Timed runs for assay and for promptfoo. */
  runs: { assay: number; peer: number };
  /** One untimed run of each tool first. */
  warmup: boolean;
  /** More assay flags for this workload. */
  assayArgs?: string[];
  /** The tests written inline in the YAML config (promptfoo's commonest form), not in a CSV file. */
  inline?: boolean;
}

/** The fault mix of the fault workload (the mock's `Retry-After` defaults to 1 s). */
export const FAULTS = 'fail_429=0.1&fail_500=0.05&fail_reset=0.02';

/** Every workload name, in table order. */
export const WORKLOAD_NAMES = [
  'version',
  'echo-1k',
  'echo-10k',
  'echo-100k',
  'yaml-10k',
  'yaml-100k',
  'echo-1m',
  'mock0-10k',
  'mock200-1k',
  'cached-10k',
  'faults-1k',
  'hang-1k',
  'html-10k',
  'html-100k',
];

/** Builds the workload list; `runs` overrides every default run count. */
export function workloads(quick: boolean, runs: number | undefined): Workload[] {
  const short = (n: number): { assay: number; peer: number } => ({ assay: runs ?? n, peer: runs ?? n });
  const r = quick ? 1 : 3;
  const list: Workload[] = [
    {
      name: 'version',
      title: 'cold start: `--version`',
      kind: 'version',
      tests: 0,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: short(quick ? 3 : 10),
      warmup: true,
    },
    {
      name: 'echo-1k',
      title: 'echo provider, default -j',
      kind: 'eval',
      tests: quick ? 100 : 1000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: short(r),
      warmup: !quick,
    },
    {
      name: 'echo-10k',
      title: 'echo provider, default -j',
      kind: 'eval',
      tests: quick ? 1000 : 10_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: short(r),
      warmup: false,
    },
    {
      name: 'echo-100k',
      title: 'echo provider, default -j',
      kind: 'eval',
      tests: 100_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      // promptfoo needs minutes here (if it finishes at all): one run.
      runs: { assay: runs ?? 3, peer: runs ?? 1 },
      warmup: false,
    },
    {
      // The same tests written inline in the config (three assertions each): loading YAML with
      // positions kept is what this row measures against the CSV row above.
      name: 'yaml-10k',
      title: 'echo provider, tests inline in the YAML config',
      kind: 'eval',
      tests: quick ? 1000 : 10_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: short(r),
      warmup: false,
      inline: true,
    },
    {
      // Inline YAML at 100k: what holding every test of a large config costs (memory above all).
      // promptfoo is not run: its echo CSV 100k row alone takes minutes.
      name: 'yaml-100k',
      title: 'echo provider, tests inline in the YAML config',
      kind: 'eval',
      tests: 100_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: { assay: runs ?? 1, peer: 0 },
      warmup: false,
      inline: true,
    },
    {
      // A million CSV tests, streamed: time and peak memory at a size no suite should hold whole.
      name: 'echo-1m',
      title: 'echo provider, default -j',
      kind: 'eval',
      tests: 1_000_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: { assay: runs ?? 1, peer: 0 },
      warmup: false,
    },
    {
      name: 'mock0-10k',
      title: 'mock, 0 ms latency, -j 50',
      kind: 'eval',
      tests: quick ? 1000 : 10_000,
      provider: 'mock',
      faults: '',
      concurrency: 50,
      runs: short(r),
      warmup: false,
    },
    {
      name: 'mock200-1k',
      title: 'mock, 200 ms latency, -j 50',
      kind: 'eval',
      tests: quick ? 100 : 1000,
      provider: 'mock',
      faults: 'latency_ms=200',
      concurrency: 50,
      runs: short(r),
      warmup: false,
    },
    {
      name: 'cached-10k',
      title: 'cached rerun of mock 0 ms, -j 50',
      kind: 'cached',
      tests: quick ? 1000 : 10_000,
      provider: 'mock',
      faults: '',
      concurrency: 50,
      runs: short(r),
      warmup: false,
    },
    {
      name: 'faults-1k',
      title: 'mock, 10% 429 + 5% 500 + 2% resets, -j 50',
      kind: 'eval',
      tests: quick ? 100 : 1000,
      provider: 'mock',
      faults: FAULTS,
      concurrency: 50,
      runs: short(r),
      warmup: false,
    },
    {
      // The fault mix plus 1% of requests that never answer: hung requests must not hold the
      // capacity healthy ones need (issue 11). Each hangs until the 10 s request timeout, then is
      // retried; the run should take about the no-hang time plus one or two timeouts.
      name: 'hang-1k',
      title: 'mock, the fault mix + 1% hung requests, -j 50, --request-timeout 10000 (assay)',
      kind: 'eval',
      tests: quick ? 100 : 1000,
      provider: 'mock',
      faults: `${FAULTS}&hang=0.01`,
      concurrency: 50,
      // promptfoo has no request-timeout flag (its default is minutes): assay only.
      runs: { assay: runs ?? (quick ? 1 : 2), peer: 0 },
      warmup: false,
      assayArgs: ['--request-timeout', '10000'],
    },
    {
      // The HTML report of a 10,000-job run (every tenth fails): its size, and how fast Chromium
      // opens it and redraws after a filter or a search (bench/html-report.ts).
      name: 'html-10k',
      title: 'HTML report of a run, opened in Chromium',
      kind: 'html',
      tests: quick ? 1000 : 10_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: { assay: 1, peer: 0 },
      warmup: false,
    },
    {
      name: 'html-100k',
      title: 'HTML report of a run, opened in Chromium',
      kind: 'html',
      tests: 100_000,
      provider: 'echo',
      faults: '',
      concurrency: undefined,
      runs: { assay: 1, peer: 0 },
      warmup: false,
    },
  ];
  const large = new Set(['echo-100k', 'yaml-100k', 'echo-1m', 'html-100k']);
  return quick ? list.filter((w) => !large.has(w.name)) : list;
}
