// Issue 20, "Nothing is half-written, nothing is mixed": `assay baseline save` replaces a baseline
// whole or not at all, with real processes. A save killed at its last moment before the swap (the
// ASSAY_TEST_PAUSE hook says when, on stderr) leaves the old baseline whole; two saves of one name
// take turns (the second says it waits); many at once end with one run's files, never a mix.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-baseline-atomic-');
after(() => tmp.cleanup());

interface Child {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<unknown[]>;
}

function start(args: string[], env: Record<string, string | undefined> = {}): Child {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'assay.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: childEnv({ ...cleanEnv, ...env }),
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  return { child, stderr: () => err, exited: once(child, 'exit') };
}

/**
 * Waits until `done()` holds or the child has exited; true when `done()` held. Polled closely (a
 * file being written is a short moment), and bounded by the clock, generously: the child starts
 * Node and copies a 48 MB log first, which a slow, loaded machine can take seconds over (the
 * earlier bound, 200,000 turns, came to about 3 s).
 */
async function until(c: Child, done: () => boolean): Promise<boolean> {
  const end = Date.now() + 120_000;
  for (let i = 0; Date.now() < end; i++) {
    if (done()) return true;
    if (c.child.exitCode !== null || c.child.signalCode !== null) return done();
    await new Promise((r) => setImmediate(r));
    if (i % 100 === 99) await sleep(1);
  }
  return done();
}

function files(dir: string): { runId: string; results: string; scorecard: string } {
  return {
    runId: JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).runId,
    results: readFileSync(join(dir, 'results.jsonl'), 'utf8'),
    scorecard: readFileSync(join(dir, 'scorecard.json'), 'utf8'),
  };
}

describe('baseline save is whole or nothing', () => {
  let runA: string;
  let runB: string;
  before(async () => {
    const suite = join(tmp.dir, 'suite');
    mkdirSync(suite, { recursive: true });
    writeFileSync(
      join(suite, 'promptfooconfig.yaml'),
      "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n  - vars: {q: b}\n",
    );
    const runs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['eval', suite, '--no-progress', '--runs-dir', join(tmp.dir, 'runs')], {
        env: cleanEnv,
      });
      assert.equal(r.code, 0, r.stderr);
      runs.push(/Run written to (\S+)/.exec(r.stdout)![1]);
    }
    [runA, runB] = runs;
    // B's log is large (its own lines, repeated: a job logged twice counts once), so copying it
    // takes a while: a save killed mid-copy shows what the copy leaves.
    const line = readFileSync(join(runB, 'results.jsonl'), 'utf8').split('\n')[0];
    const block = `${line}\n`.repeat(Math.ceil((1 << 20) / (line.length + 1)));
    for (let i = 0; i < 48; i++) appendFileSync(join(runB, 'results.jsonl'), block);
  });

  it('a save killed just before its swap leaves the old baseline whole (and the next save cleans up)', async () => {
    const dir = join(tmp.dir, 'kill');
    const first = await runCli(['baseline', 'save', runA, '--name', 'main', '--dir', dir]);
    assert.equal(first.code, 0, first.stderr);
    const save = start(['baseline', 'save', runB, '--name', 'main', '--dir', dir], {
      ASSAY_TEST_PAUSE: 'baseline-save',
    });
    // Killed at the pause (or, were the files copied in place, as soon as one is being written).
    const caught = await until(
      save,
      () =>
        save.stderr().includes('test pause at baseline-save') ||
        (existsSync(join(dir, 'main')) && readdirSync(join(dir, 'main')).some((f) => /\.tmp-\d+$/.test(f))),
    );
    save.child.kill('SIGKILL');
    await save.exited;
    assert.ok(caught, `the save was never caught before it ended: ${save.stderr()}`);
    assert.deepEqual(files(join(dir, 'main')), files(runA), 'the old baseline, whole');
    const list = await runCli(['baseline', 'list', '--dir', dir]);
    assert.match(list.stdout, new RegExp(`^main {2}run ${files(runA).runId} `, 'm'));
    const cmp = await runCli(['compare', 'main', runA, '--baselines-dir', dir]);
    assert.equal(cmp.code, 0, cmp.stderr);
    // The next save replaces it whole and removes the copy the killed save left.
    const again = await runCli(['baseline', 'save', runB, '--name', 'main', '--dir', dir]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(files(join(dir, 'main')), files(runB));
    const copies = readdirSync(join(dir, '.store')).filter((f) => f.startsWith('main@'));
    assert.ok(copies.length <= 2, `the new copy and the one it replaced, no more: ${copies.join(', ')}`);
  });

  it('two saves of one name take turns: the second waits for the first, and the name is never half-there', async () => {
    const dir = join(tmp.dir, 'turns');
    const release = join(tmp.dir, 'release-turns');
    const a = start(['baseline', 'save', runA, '--name', 'shared', '--dir', dir], {
      ASSAY_TEST_PAUSE: 'baseline-save',
      ASSAY_TEST_RELEASE: release,
    });
    assert.ok(
      await until(a, () => a.stderr().includes('test pause at baseline-save')),
      `A never paused: ${a.stderr()}`,
    );
    const b = start(['baseline', 'save', runB, '--name', 'shared', '--dir', dir]);
    assert.ok(
      await until(b, () => b.stderr().includes(`is being saved by process ${a.child.pid}; waiting`)),
      `B did not wait for A: ${b.stderr()}`,
    );
    assert.equal(existsSync(join(dir, 'shared')), false, 'nothing under the name while A builds its copy');
    writeFileSync(release, '');
    const [codeA] = await a.exited;
    const [codeB] = await b.exited;
    assert.equal(codeA, 0, a.stderr());
    assert.equal(codeB, 0, b.stderr());
    assert.deepEqual(files(join(dir, 'shared')), files(runB), "B's run, whole");
  });

  it('six saves of one name at once end with one run whole', async () => {
    const dir = join(tmp.dir, 'race');
    const saves = Array.from({ length: 6 }, (_, i) =>
      start(['baseline', 'save', i % 2 === 0 ? runA : runB, '--name', 'race', '--dir', dir]),
    );
    for (const s of saves) {
      const [code] = await s.exited;
      assert.equal(code, 0, s.stderr());
    }
    const now = files(join(dir, 'race'));
    const expected = now.runId === files(runA).runId ? files(runA) : files(runB);
    assert.deepEqual(now, expected);
  });
});
