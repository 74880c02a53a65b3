// The command-line entry. It loads only what the chosen command needs, so `--version` and
// `--help` start instantly.
import { readFileSync } from 'node:fs';

export const HELP = `assay — run LLM evaluation suites (promptfoo configs, pramana JSONL suites, ÈwéBench folders)
against model providers

Usage:
  assay eval [SUITE] [options]     run a suite and write a run directory
  assay validate [SUITE]           check a suite without calling any model
  assay hash [SUITE]               print a suite's own hash (pramana's suite hash)
  assay merge RUN_DIR…             combine the runs of a sharded evaluation into one
  assay rescore RUN [SUITE]        score a run's recorded answers again with the suite's
                                   current assertions; no model is called
  assay report [RUN]               a run rendered from its log: the summary, --json, or a
                                   report file (--format html|junit|markdown|github, -o FILE)
  assay compare BASELINE CANDIDATE pair two runs case by case: regressed, improved,
                                   unchanged or inconclusive, with paired statistics
  assay baseline save RUN | list   pin a run as a baseline to compare with
  assay cache stats|clear|prune    inspect or empty the response cache
  assay runs                       the runs kept in .assay/runs, newest first
  assay view [RUN]                 open a run's HTML report (the newest run by default)
  assay init [DIR] [--format F]    write a small suite that runs offline at once
  assay --version | --help
  assay COMMAND --help             options of one command

SUITE is a suite file or a folder, recognised by its shape: a promptfoo config (or a folder with
promptfooconfig.yaml|.yml|.json), a pramana .jsonl suite (or a folder with manifest.toml), or an
ÈwéBench tests/<category>.json file (or a folder of them). With none, assay looks in the current
folder.

Exit codes:
  0  everything ran and every test passed
  1  a test (or threshold) failed, or assay compare found a regression
  2  the input or the command line is invalid; nothing was run
  3  the run could not complete: provider errors beyond the allowed budget
     (--max-errors, default 0), a fatal provider error (bad credentials), or an interruption
`;

/**
 * A reader that went away (`assay eval … | head`) ends console output quietly: the run, its log and
 * its `-o` files carry on unaffected. Other stream errors still surface.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}

/** Runs the CLI with the given arguments and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  switch (command) {
    case 'eval':
      return (await import('./eval.js')).evalCommand(rest);
    case 'validate':
      return (await import('./validate.js')).validateCommand(rest);
    case 'hash':
      return (await import('./hash.js')).hashCommand(rest);
    case 'merge':
      return (await import('./merge.js')).mergeCommand(rest);
    case 'cache':
      return (await import('./cache.js')).cacheCommand(rest);
    case 'rescore':
      return (await import('./rescore.js')).rescoreCommand(rest);
    case 'report':
      return (await import('./report.js')).reportCommand(rest);
    case 'compare':
      return (await import('./compare.js')).compareCommand(rest);
    case 'baseline':
      return (await import('./baseline.js')).baselineCommand(rest);
    case 'runs':
      return (await import('./runs.js')).runsCommand(rest);
    case 'view':
      return (await import('./view.js')).viewCommand(rest);
    case 'init':
      return (await import('./init.js')).initCommand(rest);
    default:
      process.stderr.write(
        `assay: unknown command "${command}"; expected eval, validate, hash, merge, rescore, report, compare, baseline, cache, runs, view or init (assay --help)\n`,
      );
      return 2;
  }
}
