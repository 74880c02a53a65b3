/** Facts about the machine and the versions measured, for RESULTS.md. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { ROOT } from './paths.js';

/** Machine and version facts. */
export interface Environment {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  nodeVersion: string;
  assayVersion: string;
  gitCommit: string;
}

function tryRun(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '?';
  }
}

/** Reads /proc, os and git for the facts RESULTS.md records; `bin` is the assay measured. */
export function environment(bin: string): Environment {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const osRelease = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
  const commit = tryRun('git', ['rev-parse', '--short=12', 'HEAD']);
  const dirty = tryRun('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'bin']);
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpus: availableParallelism(),
    cpuModel: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? '?',
    memoryGiB: totalmem() / 1024 ** 3,
    os: /PRETTY_NAME="?([^"\n]+)"?/.exec(osRelease)?.[1] ?? process.platform,
    nodeVersion: process.version,
    assayVersion: tryRun(process.execPath, [bin, '--version']),
    gitCommit: dirty && dirty !== '?' ? `${commit} (with uncommitted changes in src/ or bin/)` : commit,
  };
}
