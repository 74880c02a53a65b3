// `assay view [RUN]`: a run's HTML report, written if it is missing or older than the run's log,
// then opened in the browser where there is a display (else its file:// link is printed).
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { newestRun } from '../runlog/runs.js';
import { parseCommand, usage } from './args.js';
import { guard } from './common.js';
import { writeRunReport } from './outputs.js';

/** Whether the report is missing, or older than what it is made from. */
function stale(report: string, runDir: string): boolean {
  if (!existsSync(report)) return true;
  const made = statSync(report).mtimeMs;
  return ['results.jsonl', 'manifest.json']
    .map((f) => join(runDir, f))
    .some((f) => existsSync(f) && statSync(f).mtimeMs > made);
}

/**
 * The program that opens a file in the user's browser here, or undefined where there is no display
 * to open it on (a server, CI, a container).
 */
function opener(env: NodeJS.ProcessEnv): { command: string; args: string[] } | undefined {
  if (process.platform === 'darwin') return { command: 'open', args: [] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return { command: 'xdg-open', args: [] };
}

/** Opens a URL with the platform's opener; false when that could not be started. */
function open(url: string, how: { command: string; args: string[] }): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(how.command, [...how.args, url], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/** `assay view`. */
export async function viewCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('view', args);
    if (values.help) {
      process.stdout.write(usage('view', []));
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`assay view: expected one RUN, got ${positionals.length}`);
    const runsDir = values['runs-dir'] ?? '.assay/runs';
    const runDir =
      positionals.length === 1
        ? resolveRun(positionals[0], {
            runsDir,
            baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
          })
        : newestRun(runsDir, 'view');
    const report = join(runDir, 'report.html');
    if (stale(report, runDir)) {
      // The same page every eval writes, whatever the run's size: asked for, it is written.
      const written = await writeRunReport(runDir, await scorecardOfRun(runDir), Number.POSITIVE_INFINITY);
      if (!written) return 3;
    }
    const url = pathToFileURL(report).href;
    const how = values['no-open'] ? undefined : opener(process.env);
    if (how && (await open(url, how))) process.stdout.write(`Opened ${printable(url)}\n`);
    else process.stdout.write(`Report: ${printable(url)}\n`);
    return 0;
  });
}
