/** Starts the OpenAI-compatible mock server from test/ as a child process on 127.0.0.1. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** The part of the mock's `GET /stats` the bench reports. */
export interface MockStats {
  requests: number;
  byStatus: Record<string, number>;
  resets: number;
  maxInFlight: number;
}

/** A running mock server. */
export interface MockHandle {
  /** `http://127.0.0.1:PORT` */
  url: string;
  pid: number;
  /** The statistics since the last reset; `reset` zeroes them afterwards. */
  stats(reset?: boolean): Promise<MockStats>;
  /** Stops the server (SIGTERM by PID, then SIGKILL after 2 s). */
  stop(): Promise<void>;
}

/** Spawns `node mock-openai.js --port 0` and resolves once it prints `listening <url>`. */
export async function startMock(mockJs: string, logFile: string): Promise<MockHandle> {
  // The idle exit is only a safety net should the bench itself be killed before it stops the mock.
  const child = spawn(process.execPath, [mockJs, '--port', '0', '--idle-exit-s', '7200'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile);
  child.stderr?.pipe(log);
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error('the mock did not start within 10 s')), 10_000);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the mock exited with code ${code}; see ${logFile}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(m[1]);
      }
    });
  });
  child.stdout?.pipe(log);
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    async stats(reset = false): Promise<MockStats> {
      const res = await fetch(`${url}/stats${reset ? '?reset=1' : ''}`);
      return (await res.json()) as MockStats;
    },
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }, 2000);
  await exited;
  clearTimeout(timer);
}

/** A one-line summary of mock statistics for the notes column (in-flight peaks are summarised apart). */
export function describeStats(s: MockStats): string {
  const statuses = Object.entries(s.byStatus)
    .filter(([status]) => status !== '200')
    .map(([status, n]) => `${n}×${status}`);
  const faults = [...statuses, ...(s.resets > 0 ? [`${s.resets} resets`] : [])];
  return `mock: ${s.requests} req${faults.length ? ` (${faults.join(', ')})` : ''}`;
}
