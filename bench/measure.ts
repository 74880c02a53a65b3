/** Runs one command and measures its wall time and peak RSS, with a timeout. */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const GNU_TIME = '/usr/bin/time';

/** What to run. stdout and stderr go to `logFile`. */
export interface RunSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  logFile: string;
}

/** What one run cost and how it ended. */
export interface Measurement {
  wallS: number;
  /** Peak resident set size of the process in MiB (undefined when it could not be read). */
  peakRssMiB: number | undefined;
  /** User + system CPU seconds of the process (undefined without GNU time). */
  cpuS: number | undefined;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

/** Process groups started by `measure` and still running (so the bench can stop them on exit). */
const running = new Set<number>();

/** Kills (SIGKILL, by process group id) every command `measure` started that is still running. */
export function killRunning(): void {
  for (const pgid of running) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
}

/** How peak RSS is measured on this machine. */
export function rssMethod(): string {
  return existsSync(GNU_TIME)
    ? "GNU time (`/usr/bin/time -f '%e %M %U %S'`)"
    : 'polling /proc/PID/status VmHWM';
}

/** Runs the command in its own process group, killing the group when it exceeds the timeout. */
export async function measure(spec: RunSpec): Promise<Measurement> {
  const useTime = existsSync(GNU_TIME);
  const timeFile = `${spec.logFile}.time`;
  rmSync(timeFile, { force: true });
  const [command, args] = useTime
    ? [GNU_TIME, ['-f', '%e %M %U %S', '-o', timeFile, spec.command, ...spec.args]]
    : [spec.command, spec.args];
  const log = openSync(spec.logFile, 'w');
  const start = performance.now();
  const child = spawn(command, args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${spec.command}`);
  running.add(pid);
  let timedOut = false;
  let hwmKiB: number | undefined;
  let cpuS: number | undefined;
  const poll = useTime
    ? undefined
    : setInterval(() => {
        const hwm = readHwmKiB(pid);
        if (hwm !== undefined) hwmKiB = Math.max(hwmKiB ?? 0, hwm);
      }, 20);
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }, spec.timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, s) => resolve([c, s]));
  });
  const wallS = (performance.now() - start) / 1000;
  clearTimeout(timer);
  if (poll) clearInterval(poll);
  running.delete(pid);
  let exitCode = code;
  let sig: string | null = signal;
  if (useTime && existsSync(timeFile)) {
    const lines = readFileSync(timeFile, 'utf8').trim().split('\n');
    const last = lines.at(-1)?.trim().split(/\s+/) ?? [];
    const kib = Number(last[1]);
    if (Number.isFinite(kib)) hwmKiB = kib;
    const cpu = Number(last[2]) + Number(last[3]);
    if (Number.isFinite(cpu)) cpuS = cpu;
    for (const line of lines) {
      const status = /Command exited with non-zero status (\d+)/.exec(line);
      if (status) exitCode = Number(status[1]);
      const killed = /Command terminated by signal (\d+)/.exec(line);
      if (killed) {
        sig = `signal ${killed[1]}`;
        exitCode = null;
      }
    }
  }
  return {
    wallS,
    peakRssMiB: hwmKiB === undefined ? undefined : hwmKiB / 1024,
    cpuS,
    exitCode,
    signal: sig,
    timedOut,
  };
}

function readHwmKiB(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
