/**
 * Start-up cost of the CLI: `node dist/bench/startup.js [--runs N] [CHECKOUT…]`.
 *
 * For each command (`--version`, `--help`, `validate` and `eval` of a 6-line echo config, and `eval`
 * of a 2-test pramana JSONL suite on echo) it counts the modules loaded — assay's own files,
 * package files and the `yaml` package's — in one run with `startup-count.js`, then measures CPU
 * (GNU time) and wall over N runs (default 5), alternating the checkouts run by run. Each CHECKOUT
 * is a repository root with a built `dist/` (default: this one), so a branch can be compared with
 * main: `node dist/bench/startup.js --runs 5 /work/main .`. Prints a Markdown table; never asserts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './measure.js';
import { ROOT, WORK_DIR } from './paths.js';
import { median } from './summary.js';

const DIR = join(WORK_DIR, 'startup');
const COUNTER = fileURLToPath(new URL('./startup-count.js', import.meta.url));

const CONFIG = `description: start-up
prompts: ['Say {{word}}']
providers: [echo]
tests:
  - vars: {word: hello}
    assert: [{type: contains, value: hello}]
`;

/** A pramana suite (JSONL): a suite that holds no YAML, so the `yaml` package need not load. */
const JSONL = `${[
  {
    id: 'a-1',
    category: 'factual',
    input: 'Say hello',
    ideal: ['hello'],
    assertion: { type: 'contains' },
    metadata: { difficulty: 'easy', tokens_est: 5 },
  },
  {
    id: 'a-2',
    category: 'factual',
    input: 'Say bye',
    ideal: ['bye'],
    assertion: { type: 'contains' },
    metadata: { difficulty: 'easy', tokens_est: 5 },
  },
]
  .map((t) => JSON.stringify(t))
  .join('\n')}\n`;

interface Command {
  name: string;
  args: string[];
}

const COMMANDS: Command[] = [
  { name: 'assay --version', args: ['--version'] },
  { name: 'assay --help', args: ['--help'] },
  { name: 'assay validate (6-line config)', args: ['validate', '-c', 'config.yaml'] },
  { name: 'assay eval (6-line config)', args: ['eval', '-c', 'config.yaml', '--no-progress', '--no-table'] },
  { name: 'assay eval (2-test pramana JSONL)', args: ['eval', 'suite.jsonl', '-r', 'echo', '--no-progress'] },
];

interface Counts {
  assay: number;
  packages: number;
  yaml: number;
  exit: number | null;
}

function countModules(root: string, args: string[]): Counts {
  const file = join(DIR, 'modules.txt');
  rmSync(file, { force: true });
  const out = spawnSync(process.execPath, ['--import', COUNTER, join(root, 'bin', 'assay.js'), ...args], {
    cwd: DIR,
    env: { ...process.env, ASSAY_STARTUP_COUNT: file, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  let urls: string[] = [];
  try {
    urls = [
      ...new Set(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((u) => u.startsWith('file://')),
      ),
    ];
  } catch {
    // nothing loaded through the hooks
  }
  const rootUrl = `file://${resolve(root)}/`;
  const own = urls.filter((u) => u.startsWith(`${rootUrl}dist/`) || u.startsWith(`${rootUrl}bin/`));
  const packages = urls.filter((u) => u.includes('/node_modules/'));
  return {
    assay: own.length,
    packages: packages.length,
    yaml: packages.filter((u) => u.includes('/node_modules/yaml/')).length,
    exit: out.status,
  };
}

function parseArgs(argv: string[]): { runs: number; roots: string[] } {
  let runs = 5;
  const roots: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--runs') {
      runs = Number(argv[++i]);
      if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a whole number ≥ 1');
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else roots.push(resolve(a));
  }
  return { runs, roots: roots.length > 0 ? roots : [ROOT] };
}

async function main(argv: string[]): Promise<number> {
  let opts: { runs: number; roots: string[] };
  try {
    opts = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`startup: ${(err as Error).message}\n`);
    return 2;
  }
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, 'config.yaml'), CONFIG);
  writeFileSync(join(DIR, 'suite.jsonl'), JSONL);
  const lines = [
    '| command | checkout | assay modules | package files (yaml) | CPU s (median) | wall s (median) | exit |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const command of COMMANDS) {
    const counts = opts.roots.map((root) => countModules(root, command.args));
    const cpu: number[][] = opts.roots.map(() => []);
    const wall: number[][] = opts.roots.map(() => []);
    for (let run = 0; run < opts.runs; run++) {
      for (const [i, root] of opts.roots.entries()) {
        const m = await measure({
          command: process.execPath,
          args: [join(root, 'bin', 'assay.js'), ...command.args],
          cwd: DIR,
          env: { ...process.env, NO_COLOR: '1' },
          timeoutMs: 60_000,
          logFile: join(DIR, 'run.log'),
        });
        if (m.cpuS !== undefined) cpu[i]?.push(m.cpuS);
        wall[i]?.push(m.wallS);
      }
    }
    for (const [i, root] of opts.roots.entries()) {
      const c = counts[i] as Counts;
      const cpuS = median(cpu[i] ?? [])?.toFixed(3) ?? 'n/a';
      const wallS = median(wall[i] ?? [])?.toFixed(3) ?? 'n/a';
      lines.push(
        `| ${command.name} | ${root} | ${c.assay} | ${c.packages} (${c.yaml}) | ${cpuS} | ${wallS} | ${c.exit} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`startup: ${(err as Error).stack ?? err}\n`);
    process.exitCode = 3;
  },
);
