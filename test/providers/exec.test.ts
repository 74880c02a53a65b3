import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { commandWords } from '../../src/providers/exec.js';
import { createProvider, isKnownProviderId } from '../../src/providers/registry.js';
import type { Provider, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { runCli } from '../support/cli.js';
import { isRunning, waitFor, waitUntilGone } from '../support/processes.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-exec-');
/** Processes the stubborn script started (killed after the tests if a test left them running). */
const started: number[] = [];
after(() => {
  for (const pid of started) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  tmp.cleanup();
});
const RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 10_000 };
// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };

/** A node script in the temp folder; `node` is found on PATH as the test's own node. */
function script(name: string, body: string): string {
  writeFileSync(join(tmp.dir, name), body);
  return name;
}

function exec(command: string, env: Record<string, string> = {}): Promise<Provider> {
  return createProvider(
    { id: `exec:${command}`, config: { greeting: 'hi' } },
    { env: { PATH: process.env.PATH ?? '', ...env }, maxConcurrency: 2, retry: RETRY, basePath: tmp.dir },
  );
}

function ask(prompt: string, vars: Record<string, unknown> = {}): ProviderRequest {
  return { prompt, messages: [{ role: 'user', content: prompt }], params: {}, vars };
}

describe('exec provider', () => {
  it('splits the command line as promptfoo does', () => {
    assert.deepEqual(commandWords(`python3 "my script.py" --flag 'a b' c`), [
      'python3',
      'my script.py',
      '--flag',
      'a b',
      'c',
    ]);
    assert.ok(isKnownProviderId('exec:python3 x.py'));
    assert.equal(isKnownProviderId('exec:'), false);
  });

  it(
    'runs the program in the suite folder with the prompt, options and context; the trimmed stdout is the answer',
    TIMEOUT,
    async () => {
      const name = script(
        'answer.mjs',
        `const [extra, prompt, options, context] = process.argv.slice(2);
       const o = JSON.parse(options), c = JSON.parse(context);
       console.log('\\u001b[31m' + [extra, prompt, o.id, o.config.greeting, c.vars.city, process.cwd() === ${JSON.stringify(tmp.dir)}].join('|') + '\\u001b[0m  ');`,
      );
      const p = await exec(`${process.execPath} ${name} "first arg"`);
      const res = await p.call(ask('Say hello', { city: 'Lima' }));
      assert.equal(res.error, undefined);
      assert.equal(
        res.output,
        `first arg|Say hello|exec:${process.execPath} ${name} "first arg"|hi|Lima|true`,
      );
      assert.equal(res.attempts, 1);
    },
  );

  it('a non-zero exit is an error carrying the program message, not retried', TIMEOUT, async () => {
    const name = script('fail.mjs', `console.error('model file missing'); process.exit(3);`);
    const p = await exec(`${process.execPath} ${name}`);
    const res = await p.call(ask('x'));
    assert.equal(res.output, null);
    assert.match(res.error ?? '', /the command failed with exit code 3: model file missing/);
    assert.equal(res.attempts, 1);
  });

  it('standard error with no output is an error; with output, the output stands', TIMEOUT, async () => {
    const quiet = await exec(`${process.execPath} ${script('warn.mjs', `console.error('only a warning');`)}`);
    assert.match((await quiet.call(ask('x'))).error ?? '', /only a warning/);
    const both = await exec(
      `${process.execPath} ${script('both.mjs', `console.error('a warning'); console.log('the answer');`)}`,
    );
    const res = await both.call(ask('x'));
    assert.equal(res.error, undefined);
    assert.equal(res.output, 'the answer');
  });

  it('a program that does not exist is a clear error', TIMEOUT, async () => {
    const p = await exec('no-such-program-assay-test arg');
    assert.match((await p.call(ask('x'))).error ?? '', /command not found: no-such-program-assay-test/);
  });

  it('keys the cache on the script contents: editing the script is a new entry', async () => {
    const name = script('versioned.mjs', `console.log('v1');`);
    const p = await exec(`${process.execPath} ${name}`);
    const before = JSON.stringify(p.requestKey?.(ask('x')));
    script('versioned.mjs', `console.log('v2');`);
    assert.notEqual(JSON.stringify(p.requestKey?.(ask('x'))), before);
    assert.notEqual(
      JSON.stringify(p.requestKey?.(ask('x', { a: 1 }))),
      JSON.stringify(p.requestKey?.(ask('x'))),
    );
  });

  it('runs from a promptfoo config, concurrently, with secrets kept out of its errors', TIMEOUT, async () => {
    const name = script(
      'upper.mjs',
      `const p = process.argv[2]; if (p.includes('boom')) { console.error('failed with ' + process.env.EXEC_TEST_API_KEY); process.exit(1); } console.log(p.toUpperCase());`,
    );
    writeFileSync(
      join(tmp.dir, 'promptfooconfig.yaml'),
      `prompts: ['say {{word}}']
providers: ['exec:node ${name}']
tests:
${['alpha', 'beta', 'gamma', 'delta'].map((w) => `  - vars: {word: ${w}}\n    assert: [{type: equals, value: SAY ${w.toUpperCase()}}]`).join('\n')}
  - vars: {word: boom}
`,
    );
    const run = await runCli(
      [
        'eval',
        join(tmp.dir, 'promptfooconfig.yaml'),
        '--no-progress',
        '--runs-dir',
        join(tmp.dir, 'runs'),
        '-j',
        '4',
      ],
      {
        env: { EXEC_TEST_API_KEY: 'secret-value-123456' },
      },
    );
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stdout, /4 passed/);
    assert.match(run.stdout + run.stderr, /1 error/);
    assert.ok(!(run.stdout + run.stderr).includes('secret-value-123456'));
  });
  /**
   * A shell script that ignores SIGTERM: given "slow" it starts `sleep 120` (which ignores TERM
   * too), writes both pids to the file named first, and waits for it; otherwise it answers.
   */
  function stubborn(): string {
    const name = script(
      'stubborn.sh',
      `#!/bin/sh\ntrap '' TERM\nif [ "$2" = slow ]; then\n  sleep 120 &\n  echo "$$ $!" > "$1"\n  wait\nfi\necho "answer $2"\n`,
    );
    chmodSync(join(tmp.dir, name), 0o755);
    return name;
  }

  /** The pids the stubborn script wrote, once it has written them. */
  async function pidsIn(file: string): Promise<number[]> {
    const text = await waitFor(
      () => existsSync(file) && readFileSync(file, 'utf8').includes('\n') && readFileSync(file, 'utf8'),
    );
    assert.ok(text, 'the script started');
    const pids = text.trim().split(' ').map(Number);
    started.push(...pids);
    return pids;
  }

  it(
    'a command that ignores SIGTERM is killed with its process group when its job times out; assay exits',
    TIMEOUT,
    async () => {
      const name = stubborn();
      const pidFile = join(tmp.dir, 'job-timeout.pids');
      writeFileSync(
        join(tmp.dir, 'stubborn.yaml'),
        `prompts: ['{{word}}']\nproviders: ['exec:./${name} ${pidFile}']\nevaluateOptions:\n  timeoutMs: 4000\ntests:\n  - vars: {word: slow}\n  - vars: {word: fast}\n    assert: [{type: equals, value: answer fast}]\n`,
      );
      const run = await runCli([
        'eval',
        join(tmp.dir, 'stubborn.yaml'),
        '--no-progress',
        '--no-cache',
        '--runs-dir',
        join(tmp.dir, 'stubborn-runs'),
      ]);
      // assay has exited (runCli waits for it), and neither the script nor its child is left.
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.match(run.stdout, /2 jobs: 1 passed · 0 failed · 1 error/);
      assert.match(run.stdout, /Evaluation timed out after 4000 ms/);
      for (const pid of await pidsIn(pidFile))
        assert.ok(await waitUntilGone(pid), `process ${pid} outlived the run`);
    },
  );

  it(
    'a command that exits leaving a child in the background holding its output answers at once; the child is killed',
    TIMEOUT,
    async () => {
      const pidFile = join(tmp.dir, 'background.pid');
      const name = script('background.sh', `#!/bin/sh\nsleep 300 &\necho "$!" > "$1"\necho "answer $2"\n`);
      chmodSync(join(tmp.dir, name), 0o755);
      const p = await exec(`./${name} ${pidFile}`);
      // Before: the call waited for the child to close the pipe, i.e. for its 10 s time limit, and failed.
      const res = await p.call(ask('now'));
      assert.equal(res.error, undefined);
      assert.equal(res.output, 'answer now');
      const child = Number(readFileSync(pidFile, 'utf8'));
      started.push(child);
      assert.ok(await waitUntilGone(child), 'the background child was killed');
    },
  );

  it(
    'a call given up (its signal aborted) ends at once, and the whole group is killed after a grace',
    TIMEOUT,
    async () => {
      const name = stubborn();
      const pidFile = join(tmp.dir, 'abort.pids');
      const p = await exec(`./${name} ${pidFile}`);
      const caller = new AbortController();
      const call = p.call({ ...ask('slow'), signal: caller.signal });
      const pids = await pidsIn(pidFile);
      caller.abort();
      const res = await call;
      assert.equal(res.output, null);
      assert.match(res.error ?? '', /aborted/);
      for (const pid of pids) assert.ok(await waitUntilGone(pid), `process ${pid} survived`);
    },
  );
});
