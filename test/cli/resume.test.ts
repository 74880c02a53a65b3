import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import type { RunManifest } from '../../src/runlog/types.js';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';
import { waitFor } from '../support/processes.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-resume-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

let counter = 0;

/** A suite of `n` tests against the mock (with a fault/latency prefix); every fifth test fails by design. */
function writeSuite(n: number, faults: string): string {
  const baseUrl = faults ? `${mock.url}/_/${faults}/v1` : mock.baseUrl;
  return writeWordSuite(join(tmp.dir, `suite-${counter++}`), {
    tests: n,
    baseUrl,
    prompt: 'Repeat',
    fails: (i) => i % 5 === 0,
  });
}

function runs(runsDir: string): string[] {
  return existsSync(runsDir) ? readdirSync(runsDir).map((id) => join(runsDir, id)) : [];
}

function readLog(runDir: string): JobResult[] {
  const text = readFileSync(join(runDir, 'results.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as JobResult];
      } catch {
        return []; // a torn last line
      }
    });
}

function manifestOf(runDir: string): RunManifest {
  return JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
}

function lines(runDir: string | undefined): number {
  if (!runDir || !existsSync(join(runDir, 'results.jsonl'))) return 0;
  return readFileSync(join(runDir, 'results.jsonl'), 'utf8').split('\n').length - 1;
}

function startEval(args: string[]): ChildProcess {
  return spawn(process.execPath, [join(repoRoot, 'bin', 'assay.js'), 'eval', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: childEnv(cleanEnv),
  });
}

/** Waits (bounded, generously: a loaded machine is slow) until the only run under runsDir has at least `n` result lines. */
async function waitForLines(runsDir: string, n: number): Promise<string> {
  const dir = await waitFor(() => {
    const [d] = runs(runsDir);
    return d && lines(d) >= n ? d : undefined;
  }, 120_000);
  if (!dir) throw new Error(`no run reached ${n} results in ${runsDir}`);
  return dir;
}

/**
 * Once the run under runsDir has `n` results, the mock holds every request that comes after and
 * `child` is sent `signal`, in the same turn: however slow the machine, the run cannot have
 * finished between the look and the signal, and at most its jobs in flight (answered already, or
 * held) can still end. Returns the run's directory and the function that answers the held requests.
 */
async function signalAtLines(
  child: ChildProcess,
  runsDir: string,
  n: number,
  signal: NodeJS.Signals,
): Promise<{ runDir: string; atSignal: number; release: () => void }> {
  const runDir = await waitForLines(runsDir, n);
  const release = mock.hold();
  const atSignal = lines(runDir);
  child.kill(signal);
  return { runDir, atSignal, release };
}

function verdictsByKey(results: JobResult[]): Map<string, string> {
  return new Map(results.map((r) => [r.key, `${r.status}|${r.score}|${r.output}`]));
}

describe('resume', () => {
  it('after SIGKILL at random points, resuming gives the results of an uninterrupted run, and no completed job runs again', async () => {
    const suite = writeSuite(300, 'latency_ms=8');
    const reference = join(tmp.dir, 'ref-runs');
    const ref = await runCli(['eval', suite, '-j', '8', '--no-progress', '--runs-dir', reference], {
      env: cleanEnv,
    });
    assert.equal(ref.code, 1, ref.stderr);
    const expected = verdictsByKey(readLog(runs(reference)[0]));
    assert.equal(expected.size, 300);

    const runsDir = join(tmp.dir, 'killed-runs');
    // Two kills at random points, then a resume that completes.
    const killPoints = [10 + Math.floor(Math.random() * 100), 150 + Math.floor(Math.random() * 100)];
    for (const [k, point] of killPoints.entries()) {
      const args = [suite, '-j', '8', '--no-progress', '--runs-dir', runsDir];
      const child = startEval(k === 0 ? args : [...args, '--resume']);
      const exited = once(child, 'exit');
      const { runDir, release } = await signalAtLines(child, runsDir, point, 'SIGKILL');
      await exited;
      release();
      assert.equal(manifestOf(runDir).status, 'running');
    }
    const runDir = runs(runsDir)[0];
    const before = readLog(runDir);
    const completedWords = new Set(before.map((r) => String(r.case.vars.word)));
    mock.resetStats();
    const resumed = await runCli(
      ['eval', suite, '-j', '8', '--no-progress', '--runs-dir', runsDir, '--resume'],
      { env: cleanEnv },
    );
    assert.equal(resumed.code, 1, resumed.stderr);
    assert.match(resumed.stdout, new RegExp(`Resumed run .*: ${before.length} jobs were already done`));
    assert.equal(runs(runsDir).length, 1, 'the same run was completed, no new one made');

    const final = readLog(runDir);
    assert.equal(final.length, 300, 'every job exactly once');
    assert.deepEqual(verdictsByKey(final), expected);
    const manifest = manifestOf(runDir);
    assert.equal(manifest.status, 'complete');
    assert.equal(manifest.resumedAt?.length, 2);
    const scorecard = JSON.parse(readFileSync(join(runDir, 'scorecard.json'), 'utf8'));
    assert.deepEqual(scorecard.counts, { total: 300, pass: 240, fail: 60, error: 0, skip: 0 });

    const askedAgain = mock.requests
      .map((r) =>
        (r.body as { messages: { content: string }[] }).messages.at(-1)!.content.replace('Repeat ', ''),
      )
      .filter((w) => completedWords.has(w));
    assert.deepEqual(askedAgain, [], 'no job that had completed was sent again');
    assert.equal(mock.stats().requests, 300 - before.length);
  });

  it('SIGINT lets jobs in flight finish, writes the scorecard, marks the run interrupted and prints the resume command', async () => {
    const suite = writeSuite(60, 'latency_ms=150');
    const runsDir = join(tmp.dir, 'sigint-runs');
    const child = startEval([suite, '-j', '4', '--no-progress', '--runs-dir', runsDir]);
    let stdout = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const exited = once(child, 'exit');
    const { runDir, atSignal, release } = await signalAtLines(child, runsDir, 8, 'SIGINT');
    // The requests held since the signal are answered once assay has stopped starting jobs: the
    // jobs in flight then finish, and no new one can start however late the signal is handled.
    const stopping = await waitFor(
      () => stderr.includes('stopping: letting the jobs in flight finish'),
      120_000,
    );
    release();
    assert.ok(stopping, `assay never said it was stopping: ${stderr}`);
    const [code] = await exited;
    assert.equal(code, 3);
    const manifest = manifestOf(runDir);
    assert.equal(manifest.status, 'interrupted');
    const done = readLog(runDir).length;
    assert.ok(
      done >= atSignal && done <= atSignal + 4 + 4,
      `${done} results after the signal (had ${atSignal})`,
    );
    assert.ok(done < 60);
    const scorecard = JSON.parse(readFileSync(join(runDir, 'scorecard.json'), 'utf8'));
    assert.equal(scorecard.counts.total, done);
    assert.match(
      stdout,
      new RegExp(
        `To finish it: assay eval ${suite.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --runs-dir .* --resume ${manifest.runId}`,
      ),
    );

    const resumed = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', runsDir, '--resume', manifest.runId],
      { env: cleanEnv },
    );
    assert.equal(resumed.code, 1, resumed.stderr);
    assert.equal(readLog(runDir).length, 60);
    assert.equal(manifestOf(runDir).status, 'complete');
  });

  it('a stop while every job is in flight is an interrupted run (exit 3), never a complete one', async () => {
    const suite = writeSuite(3, 'latency_ms=20000');
    const runsDir = join(tmp.dir, 'sigint-inflight-runs');
    mock.resetStats();
    const child = startEval([
      suite,
      '-j',
      '8',
      '--no-progress',
      '--runs-dir',
      runsDir,
      '--grace-period',
      '0',
    ]);
    let stdout = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    const exited = once(child, 'exit');
    await waitFor(() => mock.stats().inFlight >= 3, 120_000);
    assert.equal(mock.stats().inFlight, 3, 'all three jobs are in flight');
    child.kill('SIGINT');
    const [code] = await exited;
    assert.equal(code, 3);
    const [runDir] = runs(runsDir);
    const manifest = manifestOf(runDir);
    assert.equal(manifest.status, 'interrupted');
    assert.equal(readLog(runDir).length, 0);
    assert.match(stdout, /To finish it: assay eval .* --resume /);
  });

  it('after errors, the printed resume command runs them again (--retry-errors)', async () => {
    // Every request fails (no retries): the run stops on its error budget with errors in the log.
    const suite = writeSuite(10, 'fail_500=1');
    const runsDir = join(tmp.dir, 'outage-runs');
    const r = await runCli(
      [
        'eval',
        suite,
        '--no-progress',
        '--runs-dir',
        runsDir,
        '--max-retries',
        '0',
        '-j',
        '1',
        '--max-errors',
        '2',
      ],
      { env: cleanEnv },
    );
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /To finish it: assay eval .* --resume \S+ --retry-errors\n/);
  });

  it('two --resume of one run at once: one runs it, the other is refused (exit 2); no job runs twice', async () => {
    const suite = writeSuite(40, 'latency_ms=100');
    const runsDir = join(tmp.dir, 'lock-runs');
    const child = startEval([suite, '-j', '2', '--no-progress', '--runs-dir', runsDir]);
    const exited = once(child, 'exit');
    const killed = await signalAtLines(child, runsDir, 4, 'SIGKILL');
    await exited;
    killed.release();
    const { runDir } = killed;
    // The killed owner's lock is stale: a resume takes it over.
    const args = [
      'eval',
      suite,
      '-j',
      '2',
      '--no-progress',
      '--runs-dir',
      runsDir,
      '--resume',
      manifestOf(runDir).runId,
    ];
    // Both start at once while the server holds every request, so whichever takes the lock is
    // still running when the other looks: the loser must be refused however late it starts.
    const release = mock.hold();
    const both = [runCli(args, { env: cleanEnv }), runCli(args, { env: cleanEnv })];
    let loser: Awaited<(typeof both)[0]>;
    let winner: (typeof both)[0];
    try {
      const first = await Promise.race(both.map((p, i) => p.then((r) => ({ r, i }))));
      loser = first.r;
      winner = both[1 - first.i];
    } finally {
      release();
    }
    assert.equal(loser.code, 2, loser.stderr);
    assert.match(loser.stderr, /this run is in use by process \d+/);
    const won = await winner;
    assert.equal(won.code, 1, won.stderr);
    const keys = readLog(runDir).map((r) => r.key);
    assert.equal(keys.length, 40);
    assert.equal(new Set(keys).size, 40, 'no job ran twice');
    assert.equal(existsSync(join(runDir, 'run.lock')), false, 'the lock is released');
  });

  it('a resume cleans the temporary files a killed process left in the run directory', async () => {
    const suite = writeSuite(12, 'latency_ms=100');
    const runsDir = join(tmp.dir, 'leftover-runs');
    const child = startEval([suite, '-j', '2', '--no-progress', '--runs-dir', runsDir]);
    const exited = once(child, 'exit');
    const { runDir, release } = await signalAtLines(child, runsDir, 2, 'SIGKILL');
    await exited;
    release();
    // What a process killed mid-write leaves (pid 2^22 + 1 is beyond Linux's default pid_max).
    const dead = 4_194_305;
    for (const name of [`manifest.json.tmp-${dead}`, `results.jsonl.compact-${dead}`])
      writeFileSync(join(runDir, name), 'half written');
    const resumed = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', runsDir, '--resume', manifestOf(runDir).runId],
      {
        env: cleanEnv,
      },
    );
    assert.equal(resumed.code, 1, resumed.stderr);
    assert.deepEqual(
      readdirSync(runDir).filter((f) => /\.(tmp|compact)-\d+$/.test(f)),
      [],
    );
    assert.equal(readLog(runDir).length, 12);
  });

  it('SIGINT also stops a run whose jobs finish without I/O (echo), instead of being starved', async () => {
    const runsDir = join(tmp.dir, 'sigint-echo-runs');
    const suite = join(repoRoot, 'test', 'fixtures', 'cli', 'passing');
    const child = startEval([suite, '--repeat', '100000', '--no-progress', '--runs-dir', runsDir]);
    const exited = once(child, 'exit');
    const runDir = await waitForLines(runsDir, 2000);
    child.kill('SIGINT');
    const [code] = await exited;
    assert.equal(code, 3);
    const manifest = manifestOf(runDir);
    assert.equal(manifest.status, 'interrupted');
    const done = readLog(runDir).length;
    assert.ok(done < 300_000, `stopped early (${done} of 300000)`);
    assert.equal(JSON.parse(readFileSync(join(runDir, 'scorecard.json'), 'utf8')).counts.total, done);
  });

  it('--retry-errors runs the jobs that ended in error again', async () => {
    // Each distinct request fails its first attempt only; without retries the first run is all errors.
    const suite = writeSuite(20, 'fail_500=1&fault_attempts=1');
    const runsDir = join(tmp.dir, 'retry-runs');
    mock.resetStats();
    const first = await runCli(
      ['eval', suite, '--max-retries', '0', '--no-progress', '--runs-dir', runsDir],
      { env: cleanEnv },
    );
    assert.equal(first.code, 3);
    assert.match(first.stdout, /20 jobs: 0 passed · 0 failed · 20 errors/);
    const plain = await runCli(
      ['eval', suite, '--max-retries', '0', '--no-progress', '--runs-dir', runsDir, '--resume'],
      { env: cleanEnv },
    );
    assert.match(
      plain.stderr,
      /no unfinished run of this suite/,
      'a run whose jobs all ended is complete, errors included',
    );
    const runDir = runs(runsDir).sort()[0];
    const again = await runCli(
      [
        'eval',
        suite,
        '--max-retries',
        '0',
        '--no-progress',
        '--runs-dir',
        runsDir,
        '--resume',
        runDir,
        '--retry-errors',
      ],
      { env: cleanEnv },
    );
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stdout, /20 jobs: 16 passed · 4 failed · 0 errors/);
    assert.equal(readLog(runDir).length, 20);
  });

  it('--resume with a run id that does not exist says so (exit 2), whichever side of it the suite is', async () => {
    const suite = writeSuite(2, '');
    const runsDir = join(tmp.dir, 'nosuch-runs');
    for (const args of [
      [suite, '--resume', 'nosuchrun'],
      ['--resume', 'nosuchrun', suite],
    ]) {
      const r = await runCli(['eval', ...args, '--no-progress', '--runs-dir', runsDir], { env: cleanEnv });
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, /--resume nosuchrun: no such run in /);
    }
  });

  it('refuses to resume a run of a suite that has changed (exit 2)', async () => {
    const suite = writeSuite(5, '');
    const runsDir = join(tmp.dir, 'changed-runs');
    await runCli(['eval', suite, '--no-progress', '--runs-dir', runsDir], { env: cleanEnv });
    const [runDir] = runs(runsDir);
    writeFileSync(join(suite, 'tests.csv'), 'word,__expected\nx,contains:x\n');
    const res = await runCli(['eval', suite, '--no-progress', '--runs-dir', runsDir, '--resume', runDir], {
      env: cleanEnv,
    });
    assert.equal(res.code, 2);
    assert.match(res.stderr, /cannot resume: the suite changed since that run/);
  });
});

describe('error budget', () => {
  it('--max-errors stops the run once exceeded (exit 3, run aborted, reason recorded)', async () => {
    const suite = writeSuite(100, 'status=503');
    const runsDir = join(tmp.dir, 'budget-runs');
    const res = await runCli(
      [
        'eval',
        suite,
        '-j',
        '1',
        '--max-retries',
        '0',
        '--max-errors',
        '5',
        '--no-progress',
        '--runs-dir',
        runsDir,
      ],
      {
        env: cleanEnv,
      },
    );
    assert.equal(res.code, 3);
    const [runDir] = runs(runsDir);
    const manifest = manifestOf(runDir);
    assert.equal(manifest.status, 'aborted');
    assert.match(manifest.stopReason ?? '', /error budget exceeded: 6 errors, at most 5 allowed/);
    assert.equal(readLog(runDir).length, 6);
  });
});

describe('sharding and merge', () => {
  it('shards partition the jobs exactly once; merge reproduces the single-run scorecard', async () => {
    const suite = writeSuite(200, '');
    const single = join(tmp.dir, 'single-runs');
    await runCli(['eval', suite, '--no-progress', '--runs-dir', single], { env: cleanEnv });
    const singleDir = runs(single)[0];
    const singleKeys = new Set(readLog(singleDir).map((r) => r.key));

    const shardRuns = join(tmp.dir, 'shard-runs');
    const shardDirs: string[] = [];
    const seen = new Set<string>();
    for (let i = 1; i <= 4; i++) {
      const before = new Set(runs(shardRuns));
      const res = await runCli(
        ['eval', suite, '--shard', `${i}/4`, '--no-progress', '--runs-dir', shardRuns],
        { env: cleanEnv },
      );
      assert.ok(res.code === 0 || res.code === 1, res.stderr);
      const dir = runs(shardRuns).find((d) => !before.has(d))!;
      shardDirs.push(dir);
      const keys = readLog(dir).map((r) => r.key);
      assert.ok(keys.length > 20, `shard ${i} has a fair share (${keys.length})`);
      for (const k of keys) {
        assert.ok(!seen.has(k), 'a job in two shards');
        seen.add(k);
      }
      assert.equal(manifestOf(dir).plannedJobs, keys.length);
    }
    assert.deepEqual([...seen].sort(), [...singleKeys].sort(), 'the shards cover every job');

    const mergedRuns = join(tmp.dir, 'merged-runs');
    const merged = await runCli(['merge', ...shardDirs, '--runs-dir', mergedRuns], { env: cleanEnv });
    assert.equal(merged.code, 1, merged.stderr);
    const mergedDir = runs(mergedRuns)[0];
    const a = JSON.parse(readFileSync(join(singleDir, 'scorecard.json'), 'utf8'));
    const b = JSON.parse(readFileSync(join(mergedDir, 'scorecard.json'), 'utf8'));
    assert.deepEqual(b.counts, a.counts);
    assert.deepEqual(b.passRate, a.passRate);
    assert.equal(b.meanScore, a.meanScore);
    assert.deepEqual(
      b.cells.map((c: { pass: number; fail: number; error: number }) => [c.pass, c.fail, c.error]),
      a.cells.map((c: { pass: number; fail: number; error: number }) => [c.pass, c.fail, c.error]),
    );
    const manifest = manifestOf(mergedDir);
    assert.equal(manifest.status, 'complete');
    assert.equal(manifest.plannedJobs, 200);
    assert.equal(manifest.mergedFrom?.length, 4);

    const partial = await runCli(['merge', shardDirs[0], shardDirs[1], '--runs-dir', mergedRuns], {
      env: cleanEnv,
    });
    assert.equal(partial.code, 3, 'a merge missing shards is not a complete run');
    assert.match(partial.stdout, /shards 3, 4 of 4 are missing/);
  });

  it('merge refuses different suites and a shard given twice (exit 2)', async () => {
    const s1 = writeSuite(10, '');
    const s2 = writeSuite(11, '');
    const runsDir = join(tmp.dir, 'refuse-runs');
    await runCli(['eval', s1, '--shard', '1/2', '--no-progress', '--runs-dir', runsDir], { env: cleanEnv });
    await runCli(['eval', s2, '--shard', '2/2', '--no-progress', '--runs-dir', runsDir], { env: cleanEnv });
    const [d1, d2] = runs(runsDir).sort();
    const different = await runCli(['merge', d1, d2, '--runs-dir', join(tmp.dir, 'm')], { env: cleanEnv });
    assert.equal(different.code, 2);
    assert.match(different.stderr, /a different suite/);
    const twice = await runCli(['merge', d1, d1, '--runs-dir', join(tmp.dir, 'm')], { env: cleanEnv });
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /shard [12] is given twice/);
  });

  it('--shard takes i/n or k8s/n with JOB_COMPLETION_INDEX, and refuses nonsense', async () => {
    const suite = writeSuite(30, '');
    const runsDir = join(tmp.dir, 'k8s-runs');
    const ok = await runCli(['eval', suite, '--shard', 'k8s/3', '--no-progress', '--runs-dir', runsDir], {
      env: { ...cleanEnv, JOB_COMPLETION_INDEX: '2' },
    });
    assert.ok(ok.code === 0 || ok.code === 1, ok.stderr);
    assert.deepEqual(manifestOf(runs(runsDir)[0]).options.shard, { index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', 'x/3', '1/0']) {
      const res = await runCli(['eval', suite, '--shard', bad], { env: cleanEnv });
      assert.equal(res.code, 2, bad);
      assert.match(res.stderr, /--shard/);
    }
    const noIndex = await runCli(['eval', suite, '--shard', 'k8s/3'], {
      env: { ...cleanEnv, JOB_COMPLETION_INDEX: undefined },
    });
    assert.equal(noIndex.code, 2);
    assert.match(noIndex.stderr, /JOB_COMPLETION_INDEX/);
  });
});
