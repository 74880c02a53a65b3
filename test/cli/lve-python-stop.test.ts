// A Python check that never returns must neither block a run forever nor survive a hard stop.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { instance, writeLve } from '../formats/lve/helpers.js';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { waitFor, watchOutput } from '../support/processes.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cli-lve-python-stop-');
after(() => tmp.cleanup());

/** An LVE whose lambda never returns; it creates the file `started` (if given) when it begins. */
function hangingLve(name: string, started?: string): string {
  const repo = join(tmp.dir, name);
  const mark = started ? `open(${JSON.stringify(started)}, "w").close() or ` : '';
  writeLve(
    repo,
    'dummy/hang/sleep/openai--gpt-35-turbo',
    {
      description: 'a lambda that never returns',
      model: 'openai/gpt-3.5-turbo',
      checker_args: {
        checker_name: 'LambdaChecker',
        func: `lambda r, a: ${mark}__import__("time").sleep(1000)`,
      },
      prompt: [{ content: 'Say {a}', role: 'user' }],
      prompt_parameters: ['a'],
    },
    { instances: instance({ a: '1' }, 'one') + instance({ a: '2' }, 'two', false) },
  );
  return repo;
}

function results(runs: string): Record<string, unknown>[] {
  const [id] = readdirSync(runs);
  return readFileSync(join(runs, id, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('LVE: a Python check that hangs', () => {
  it('is an error naming the time limit, and the run ends', async () => {
    const repo = hangingLve('limit');
    const runs = join(tmp.dir, 'runs-limit');
    // The run ends at all (each lambda sleeps 1000 s): how long a loaded machine takes is not the point.
    const r = await runCli(['eval', repo, '--replay', '--no-progress', '--runs-dir', runs], {
      env: { ...cleanEnv, ASSAY_PYTHON_TIMEOUT_MS: '500' },
    });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const rows = results(runs);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.status, 'error');
      assert.match(String(row.error), /did not return within 500 ms/);
    }
  });

  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    it(`a second ${sig} kills the worker and assay exits`, async () => {
      const started = join(tmp.dir, `started-${sig}`);
      const repo = hangingLve(`stop-${sig}`, started);
      const runs = join(tmp.dir, `runs-${sig}`);
      const child = spawn(
        process.execPath,
        [
          join(repoRoot, 'bin', 'assay.js'),
          'eval',
          repo,
          '--replay',
          '--no-progress',
          '--runs-dir',
          runs,
          '--verbose',
          // Only the second signal can end this run within the test's bound: the grace would not.
          '--grace-period',
          '600',
        ],
        { cwd: repoRoot, env: childEnv({ ...cleanEnv }), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const output = watchOutput(child);
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      try {
        // The run has reached the hanging Python call (it made its file): the first signal asks for
        // a graceful stop, and once assay says so, the second one stops it now.
        assert.ok(await waitFor(() => existsSync(started)), `the check never started: ${output.text()}`);
        child.kill(sig);
        await output.waitForText(/stopping: letting the jobs in flight finish/);
        child.kill(sig);
        // Bounded far beyond a loaded machine's exit, and far within the check's 1000 s and the 600 s grace.
        let bound: NodeJS.Timeout | undefined;
        const code = await Promise.race([
          exited,
          new Promise<'hung'>((r) => {
            bound = setTimeout(() => r('hung'), 120_000);
          }),
        ]);
        clearTimeout(bound);
        assert.notEqual(code, 'hung', `assay did not exit after a second ${sig}: ${output.text()}`);
        assert.match(output.text(), /stopping now/);
        assert.match(output.text(), /To finish it: assay eval/);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });
  }
});
