import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

// Each CLI run gets a response cache of its own unless a test says otherwise, so no run is
// answered from another's cache by accident (and the developer's .assay/ stays untouched).
const cacheDir = mkdtempSync(join(tmpdir(), 'assay-test-caches-'));
process.on('exit', () => rmSync(cacheDir, { recursive: true, force: true }));
let cacheCount = 0;

/** An environment for a child assay: no inherited OpenAI settings, no colour, a private cache. */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    ASSAY_CACHE_PATH: join(cacheDir, `cache-${cacheCount++}.sqlite`),
    // A test run inside GitHub Actions must not turn on the GitHub reporter of every child.
    GITHUB_ACTIONS: undefined,
    GITHUB_STEP_SUMMARY: undefined,
    ...extra,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env as NodeJS.ProcessEnv;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node` with arguments as a child process, collecting its output (asynchronously). */
export function runNode(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * Runs the real `assay` executable as a child process. Asynchronous, so a mock server in the
 * test's own process keeps answering while the CLI runs.
 */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliRun> {
  return runNode([join(repoRoot, 'bin', 'assay.js'), ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: childEnv(opts.env),
  });
}

/** An environment with no OpenAI settings inherited from the developer's shell. */
export const cleanEnv = {
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  OPENAI_API_BASE_URL: undefined,
};

/** Where `script` (util-linux) is, to run the CLI on a pseudo-terminal; undefined where there is none. */
export const SCRIPT = ['/usr/bin/script', '/bin/script'].find((f) => existsSync(f));

/**
 * Runs the real `assay` on a pseudo-terminal `columns` wide (through `script`), as a person at a
 * terminal sees it: stdout and stderr interleaved in `raw`, and `screen`, the lines left on the
 * screen once every line redrawn in place (`\r`) shows its last state.
 */
export function runCliInTerminal(
  args: string[],
  opts: { cwd: string; columns: number; env?: Record<string, string | undefined> },
): Promise<{ code: number; raw: string; screen: string[] }> {
  if (!SCRIPT) throw new Error('no `script` command (util-linux) for a pseudo-terminal');
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols ${opts.columns} rows 60 2>/dev/null; exec ${[process.execPath, join(repoRoot, 'bin', 'assay.js'), ...args].map(quote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
      cwd: opts.cwd,
      env: childEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let raw = '';
    child.stdout.on('data', (d) => {
      raw += d;
    });
    child.stderr.on('data', (d) => {
      raw += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const screen = raw
        .replace(/\r\n/g, '\n')
        .split('\n')
        .map((line) => (line.split('\r').pop() ?? '').replace(/\u001b\[2K/g, ''));
      resolve({ code: code ?? -1, raw, screen });
    });
  });
}
