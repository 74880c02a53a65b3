// Test helpers for suites written to a folder and the run directories `assay eval` leaves there.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JobResult } from '../../src/core/types.js';
import type { RunManifest } from '../../src/runlog/types.js';
import { childEnv, cleanEnv, runCli } from './cli.js';
import type { MockServer } from './mock-openai.js';
import { repoRoot } from './paths.js';
import { waitFor, watchOutput } from './processes.js';

/** Writes files (names relative to `dir`, folders made as needed) into `dir`; returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** Writes `promptfooconfig.yaml` (and any other files given) into a new folder `dir`. */
export function writeSuiteDir(dir: string, config: string, files: Record<string, string> = {}): string {
  return writeFiles(dir, { 'promptfooconfig.yaml': config, ...files });
}

/**
 * Runs `assay eval ARGS` in `dir` (a clean environment plus `env`): the CLI's answer and the newest
 * run under `dir/.assay/runs` (its manifest undefined when there is none).
 */
export async function evalIn(dir: string, args: string[] = [], env: Record<string, string | undefined> = {}) {
  const run = await runCli(['eval', '--no-progress', ...args], { cwd: dir, env: { ...cleanEnv, ...env } });
  const latest = runDirsOldestFirst(dir).at(-1);
  return { ...run, ...(latest ? readRun(latest) : { manifest: undefined, results: [], runDir: '' }) };
}

/** The run directories under `dir/.assay/runs`, oldest first (run ids made in the same second sort at random). */
export function runDirsOldestFirst(dir: string): string[] {
  const root = join(dir, '.assay', 'runs');
  if (!existsSync(root)) return [];
  const started = (run: string): string =>
    JSON.parse(readFileSync(join(root, run, 'manifest.json'), 'utf8')).startedAt;
  return readdirSync(root)
    .sort((a, b) => started(a).localeCompare(started(b)))
    .map((r) => join(root, r));
}

/** A run directory's manifest and results. */
export function readRun(runDir: string): { manifest: RunManifest; results: JobResult[]; runDir: string } {
  const text = readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim();
  return {
    runDir,
    manifest: JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')),
    results: text === '' ? [] : text.split('\n').map((l) => JSON.parse(l)),
  };
}

/** A run's results in case order, without what differs between two makings of it (startedAt, latencyMs). */
export function resultsInCaseOrder(runDir: string): Record<string, unknown>[] {
  return readRun(runDir)
    .results.map((r) => {
      const { startedAt: _s, latencyMs: _l, ...rest } = r as JobResult & { latencyMs?: unknown };
      return rest as Record<string, unknown>;
    })
    .sort((x, y) => (x.caseIndex as number) - (y.caseIndex as number));
}

/** Result lines in a run's log so far (0 before the log exists). */
function resultLines(runDir: string): number {
  const path = join(runDir, 'results.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0;
}

/**
 * Runs `assay eval ARGS` (one job at a time against a slow mock) and stops it with SIGINT once its
 * log holds four results: a real interrupted run. Returns its directory. From that look until assay
 * says it is stopping, `mock` (the server the suite calls) holds every request, so however slow the
 * machine, the run cannot finish before the signal is handled.
 */
export async function interruptedRun(
  args: string[],
  runsDir: string,
  env: Record<string, string | undefined>,
  mock: MockServer,
): Promise<string> {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'assay.js'), 'eval', ...args, '-j', '1', '--no-progress', '--runs-dir', runsDir],
    { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) },
  );
  const output = watchOutput(child);
  const exited = once(child, 'exit');
  const runDir = await waitFor(() => {
    const [id] = existsSync(runsDir) ? readdirSync(runsDir) : [];
    return id && resultLines(join(runsDir, id)) >= 4 ? join(runsDir, id) : undefined;
  }, 120_000);
  assert.ok(runDir, `no run reached 4 results: ${output.text()}`);
  const release = mock.hold();
  try {
    child.kill('SIGINT');
    await output.waitForText(/stopping: letting the jobs in flight finish/, 120_000);
  } finally {
    release();
  }
  const [code] = await exited;
  assert.equal(code, 3, output.text());
  assert.equal(readRun(runDir).manifest.status, 'interrupted');
  return runDir;
}
