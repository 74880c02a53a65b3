// `-o DIR/ --output-format lve` of a resumed run appends each TestInstance once: what earlier writes of the run
// appended is not appended again, and resuming a finished run appends nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { instance, writeLve } from '../formats/lve/helpers.js';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { waitFor, watchOutput } from '../support/processes.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cli-lve-record-resume-');
after(() => tmp.cleanup());

describe('LVE -o DIR/ and --resume', () => {
  it('appends only the results not yet recorded, exactly once', async () => {
    const repo = join(tmp.dir, 'repo');
    const rel = 'dummy/sleep/gate/dummy--dummy';
    const gate = join(tmp.dir, 'gate');
    writeFileSync(gate, '');
    // The second instance hangs (and so errors at the time limit) while the gate file exists.
    const func = `lambda r, n: (__import__("time").sleep(100) if n == "2" and __import__("os").path.exists(${JSON.stringify(gate)}) else True)`;
    writeLve(
      repo,
      rel,
      {
        description: 'record and resume',
        model: 'dummy/dummy',
        checker_args: { checker_name: 'LambdaChecker', func },
        prompt: [{ content: 'Say {n}', role: 'user' }],
        prompt_parameters: ['n'],
      },
      { instances: ['1', '2', '3'].map((n) => instance({ n }, 'x')).join('') },
    );
    const runs = join(tmp.dir, 'runs');
    const out = join(tmp.dir, 'out');
    // The limit must leave the quick instances (1 and 3) ample time on a loaded machine: 500 ms did
    // not. Only instance 2 (asleep for 100 s while the gate exists) meets it.
    const env = { ...cleanEnv, ASSAY_PYTHON_TIMEOUT_MS: '5000' };
    const base = [
      'eval',
      repo,
      '--no-progress',
      '--runs-dir',
      runs,
      '-j',
      '1',
      '-o',
      `${out}/`,
      '--output-format',
      'lve',
    ];
    const first = await runCli([...base, '--max-errors', '0'], { env });
    assert.equal(first.code, 3, first.stdout + first.stderr);
    const args = () =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).args.n);
    const [runId] = readdirSync(runs);
    const file = join(out, 'repository', rel, 'instances', `assay-${runId}.jsonl`);
    assert.deepEqual(args(), ['1']);
    rmSync(gate);
    const second = await runCli([...base, '--resume', runId, '--retry-errors'], { env });
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(args().sort(), ['1', '2', '3']);
    const third = await runCli([...base, '--resume', runId], { env });
    assert.ok(existsSync(file), third.stdout + third.stderr);
    assert.deepEqual(args().sort(), ['1', '2', '3']);
  });

  it('--args with --record: the printed resume command, pasted, records the rest once', async () => {
    const repo = join(tmp.dir, 'repo-args');
    const rel = 'dummy/sleep/gate_args/dummy--dummy';
    const gate = join(tmp.dir, 'gate-args');
    writeFileSync(gate, '');
    const func = `lambda r, n: (__import__("time").sleep(100) if n == "2" and __import__("os").path.exists(${JSON.stringify(gate)}) else True)`;
    writeLve(repo, rel, {
      description: 'record and resume with --args',
      model: 'dummy/dummy',
      checker_args: { checker_name: 'LambdaChecker', func },
      prompt: [{ content: 'Say {n}', role: 'user' }],
      prompt_parameters: ['n'],
    });
    const argsFile = join(tmp.dir, 'new args.jsonl');
    writeFileSync(argsFile, ['1', '2', '3'].map((n) => `${JSON.stringify({ n })}\n`).join(''));
    const runs = join(tmp.dir, 'runs-args');
    // The limit must leave the quick instances (1 and 3) ample time on a loaded machine: 500 ms did
    // not. Only instance 2 (asleep for 100 s while the gate exists) meets it.
    const env = { ...cleanEnv, ASSAY_PYTHON_TIMEOUT_MS: '5000' };
    const first = await runCli(
      [
        'eval',
        repo,
        '--args',
        argsFile,
        '--no-progress',
        '--runs-dir',
        runs,
        '-j',
        '1',
        '--record',
        'new.jsonl',
        '--max-errors',
        '0',
      ],
      { env },
    );
    assert.equal(first.code, 3, first.stdout + first.stderr);
    const file = join(repo, 'repository', rel, 'instances', 'new.jsonl');
    const args = () =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).args.n);
    assert.deepEqual(args(), ['1']);
    const hint = /To finish it: assay (.*)/.exec(first.stdout)?.[1];
    assert.ok(hint, first.stdout);
    assert.match(hint, /--args '[^']*new args\.jsonl'/);
    assert.match(hint, /--record new\.jsonl/);
    // The hint as a shell reads it (its only quoting: the path with a space).
    const words = [...hint.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
    rmSync(gate);
    const second = await runCli([...words, '--no-progress'], { env });
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(args().sort(), ['1', '2', '3']);
  });
  it('--record, interrupted by Ctrl-C: the printed resume command, run as printed, finishes the run and records each instance once', async () => {
    const repo = join(tmp.dir, 'repo-ctrl-c');
    const rel = 'dummy/sleep/ctrl_c/dummy--dummy';
    const gate = join(tmp.dir, 'gate-ctrl-c');
    const started = join(tmp.dir, 'started-ctrl-c');
    writeFileSync(gate, '');
    // Instance 2 says it started (a file), then waits (bounded) while the gate file exists.
    const func = `lambda r, n: (open(${JSON.stringify(started)}, "w").close(), [__import__("time").sleep(0.05) for _ in range(2000) if __import__("os").path.exists(${JSON.stringify(gate)})], True)[2] if n == "2" else True`;
    writeLve(
      repo,
      rel,
      {
        description: 'record, interrupt, resume',
        model: 'dummy/dummy',
        checker_args: { checker_name: 'LambdaChecker', func },
        prompt: [{ content: 'Say {n}', role: 'user' }],
        prompt_parameters: ['n'],
      },
      { instances: ['1', '2', '3'].map((n) => instance({ n }, 'x')).join('') },
    );
    const runs = join(tmp.dir, 'runs-ctrl-c');
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'assay.js'),
        'eval',
        repo,
        '--no-progress',
        '--runs-dir',
        runs,
        '-j',
        '1',
        '--record',
        'new.jsonl',
      ],
      { cwd: tmp.dir, env: childEnv({ ...cleanEnv }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = watchOutput(child);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      // Instance 2 is being checked (so instance 3 has not started): stop the run there.
      assert.ok(await waitFor(() => existsSync(started)), `instance 2 never started: ${output.text()}`);
      child.kill('SIGINT');
      await output.waitForText(/stopping/);
      rmSync(gate);
      assert.equal(await exited, 3, output.text());
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const file = join(repo, 'repository', rel, 'instances', 'new.jsonl');
    const recorded = () =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).args.n);
    assert.deepEqual(recorded().sort(), ['1', '2']);
    const hint = /To finish it: assay (.*)/.exec(output.text())?.[1];
    assert.ok(hint, output.text());
    const words = [...hint.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
    const second = await runCli(words, { cwd: tmp.dir, env: cleanEnv });
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.match(second.stdout, /Resumed run/);
    assert.deepEqual(recorded().sort(), ['1', '2', '3']);
  });
});
