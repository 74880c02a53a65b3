// The command-line entry. It loads only what the chosen command needs, so `--version` and
// `--help` start instantly.
import { printable } from '../core/printable.js';
import { assayVersion } from '../version.js';
import { redactTerminal } from './terminal.js';

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
  // Everything a command prints is redacted as what it writes is (the version and help hold no secret).
  if (!['--version', '-v', 'version', '--help', '-h', 'help'].includes(argv[0] ?? '--help')) redactTerminal();
  // `--require MODULE`: plugins load before any command (cli/plugins.ts).
  let args = argv;
  if (argv.some((a) => a === '--require' || a.startsWith('--require='))) {
    const { loadPluginsFrom } = await import('./plugins.js');
    const loaded = await loadPluginsFrom(argv);
    if (typeof loaded === 'number') return loaded;
    args = loaded;
  }
  const [command, ...rest] = args;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write((await import('./args.js')).mainHelp());
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${assayVersion()}\n`);
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
    default: {
      const { suggestCommand } = await import('./args.js');
      const { COMMANDS } = await import('./options.js');
      const near = suggestCommand(command);
      const names = COMMANDS.map((c) => c.name);
      process.stderr.write(
        `assay: unknown command "${printable(command)}"; ${near ? `did you mean assay ${near}? ` : ''}expected ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]} (assay --help)\n`,
      );
      return 2;
    }
  }
}
