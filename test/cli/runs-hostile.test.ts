// `assay runs`, `view` and `compare` with no runs named, over runs folders a user really has: runs
// made in the same second (their ids sort at random), a run folder renamed by hand, a run folder
// that is a symbolic link, a merge under way (a hidden folder), a --runs-dir that is a file, a run
// folder whose name holds control characters, and a merged run next to the shards it was made from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { runDirsOldestFirst } from '../support/runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-runs-hostile-');
after(() => tmp.cleanup());

let n = 0;
function freshDir(): string {
  const dir = join(tmp.dir, `d${n++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A folder with the starter suite and one real run of it; returns the folder and that run. */
async function oneRun(): Promise<{ dir: string; runs: string; run: string }> {
  const dir = freshDir();
  assert.equal((await runCli(['init'], { cwd: dir, env: cleanEnv })).code, 0);
  const r = await runCli(['eval', '--no-progress'], { cwd: dir, env: cleanEnv });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const [run] = runDirsOldestFirst(dir);
  return { dir, runs: join(dir, '.assay', 'runs'), run };
}

/** Copies a run to `runs/name` as a run of its own, with the run id and start time given. */
function copyRun(from: string, runs: string, name: string, runId: string, startedAt: string): string {
  const to = join(runs, name);
  cpSync(from, to, { recursive: true });
  const file = join(to, 'manifest.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...manifest, runId, startedAt }));
  return to;
}

/** The run ids `assay runs` lists, in its order. */
async function listed(dir: string): Promise<string[]> {
  const r = await runCli(['runs'], { cwd: dir, env: cleanEnv });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/)[0]);
}

describe('runs folders as users have them', () => {
  let dir: string;
  let runs: string;
  let run: string;
  before(async () => {
    ({ dir, runs, run } = await oneRun());
  });

  it('runs of the same second are ordered by their start time, not their random id suffix; a renamed run folder by its own', async () => {
    // Made in 2030, the same second: -ffffff started first, -000000 a moment after it.
    copyRun(run, runs, '20300101T000000Z-ffffff', '20300101T000000Z-ffffff', '2030-01-01T00:00:00.100Z');
    copyRun(run, runs, '20300101T000000Z-000000', '20300101T000000Z-000000', '2030-01-01T00:00:00.900Z');
    // Renamed by hand: its name sorts after every run id, but it is the oldest run here.
    copyRun(run, runs, 'before-fix', '20200101T000000Z-abcdef', '2020-01-01T00:00:00.000Z');
    const order = await listed(dir);
    assert.deepEqual(order.slice(0, 2), ['20300101T000000Z-000000', '20300101T000000Z-ffffff']);
    assert.equal(order.at(-1), 'before-fix', order.join(' '));
    const view = await runCli(['view', '--no-open'], { cwd: dir, env: cleanEnv });
    assert.equal(view.code, 0, view.stderr);
    assert.match(view.stdout, /\/20300101T000000Z-000000\/report\.html$/m);
    const compare = await runCli(['compare'], { cwd: dir, env: cleanEnv });
    assert.match(
      compare.stderr,
      /: 20300101T000000Z-ffffff \(baseline\) and 20300101T000000Z-000000 \(candidate\)/,
    );
  });

  it('a run resumed later counts from its resumption: it is listed newest', async () => {
    const resumed = copyRun(
      run,
      runs,
      '20250101T000000Z-dddddd',
      '20250101T000000Z-dddddd',
      '2025-01-01T00:00:00.000Z',
    );
    const file = join(resumed, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), resumedAt: ['2035-01-01T00:00:00.000Z'] }),
    );
    assert.equal((await listed(dir))[0], '20250101T000000Z-dddddd');
  });

  it('a run folder that is a symbolic link is a run; a hidden folder (a merge under way) is not', async () => {
    const elsewhere = join(freshDir(), 'kept-elsewhere');
    copyRun(
      run,
      join(elsewhere, '..'),
      'kept-elsewhere',
      '20400101T000000Z-111111',
      '2040-01-01T00:00:00.000Z',
    );
    symlinkSync(elsewhere, join(runs, '20400101T000000Z-111111'));
    copyRun(
      run,
      runs,
      '.20500101T000000Z-222222.merging-1',
      '20500101T000000Z-222222',
      '2050-01-01T00:00:00.000Z',
    );
    const order = await listed(dir);
    assert.equal(order[0], '20400101T000000Z-111111', order.join(' '));
    assert.ok(!order.some((id) => id.startsWith('.')), order.join(' '));
    const view = await runCli(['view', '--no-open'], { cwd: dir, env: cleanEnv });
    assert.equal(view.code, 0, view.stderr);
    assert.match(view.stdout, /\/20400101T000000Z-111111\/report\.html$/m);
  });

  it('a run folder named with control characters reaches the terminal escaped', async () => {
    const name = '20600101T000000Z-\x1b]0;owned\x07';
    copyRun(run, runs, name, name, '2060-01-01T00:00:00.000Z');
    const compare = await runCli(['compare'], { cwd: dir, env: cleanEnv });
    assert.doesNotMatch(compare.stderr + compare.stdout, /\x1b|\x07/);
    assert.match(compare.stderr, /20600101T000000Z-\\x1b\]0;owned\\x07 \(candidate\)/);
  });

  it('a --runs-dir that is a file: exit 2 naming it, for runs, view and compare', async () => {
    writeFileSync(join(dir, 'not-a-folder'), 'x');
    for (const command of [['runs'], ['view', '--no-open'], ['compare'], ['report']]) {
      const r = await runCli([...command, '--runs-dir', 'not-a-folder'], { cwd: dir, env: cleanEnv });
      assert.equal(r.code, 2, `${command[0]}: ${r.stderr}`);
      assert.match(r.stderr, /^not-a-folder: expected the folder runs are kept in, found a file\n$/);
    }
  });
});

describe('compare with no runs named, after a run stopped half-way', () => {
  it('the baseline is the newest complete earlier run, not an interrupted one between', async () => {
    const { dir, runs, run } = await oneRun();
    copyRun(run, runs, '20300101T000000Z-aaaaaa', '20300101T000000Z-aaaaaa', '2030-01-01T00:00:00.000Z');
    const stopped = copyRun(
      run,
      runs,
      '20300101T000001Z-bbbbbb',
      '20300101T000001Z-bbbbbb',
      '2030-01-01T00:00:01.000Z',
    );
    const file = join(stopped, 'manifest.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), status: 'interrupted' }));
    writeFileSync(
      join(stopped, 'results.jsonl'),
      readFileSync(join(stopped, 'results.jsonl'), 'utf8').split('\n')[0] + '\n',
    );
    copyRun(run, runs, '20300101T000002Z-cccccc', '20300101T000002Z-cccccc', '2030-01-01T00:00:02.000Z');
    const r = await runCli(['compare'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /: 20300101T000000Z-aaaaaa \(baseline\) and 20300101T000002Z-cccccc \(candidate\)/,
    );
  });
});

describe('compare with no runs named, beside a copy of the newest run', () => {
  it('a copy of the newest run (a backup folder) is never its baseline', async () => {
    const { dir, runs, run } = await oneRun();
    const newest = copyRun(
      run,
      runs,
      '20300101T000000Z-eeeeee',
      '20300101T000000Z-eeeeee',
      '2030-01-01T00:00:00.000Z',
    );
    cpSync(newest, join(runs, 'backup-of-newest'), { recursive: true });
    const r = await runCli(['compare'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const first = run.split('/').at(-1)!;
    assert.match(r.stderr, new RegExp(`: ${first} \\(baseline\\) and \\S+ \\(candidate\\)`));
  });
});

describe('compare with no runs named, next to a sharded evaluation', () => {
  it('a merged run is compared with the earlier whole run, never with a shard it was merged from', async () => {
    const { dir, run: whole } = await oneRun();
    const shards: string[] = [];
    for (const shard of ['1/2', '2/2']) {
      const r = await runCli(['eval', '--no-progress', '--shard', shard], { cwd: dir, env: cleanEnv });
      assert.ok(r.code === 0, r.stdout + r.stderr);
      shards.push(runDirsOldestFirst(dir).at(-1)!);
    }
    const merged = await runCli(['merge', ...shards], { cwd: dir, env: cleanEnv });
    assert.equal(merged.code, 0, merged.stdout + merged.stderr);
    const r = await runCli(['compare'], { cwd: dir, env: cleanEnv });
    const list = await runCli(['runs', '--json'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stdout + r.stderr + list.stdout + merged.stdout);
    const wholeId = whole.split('/').at(-1)!;
    assert.match(r.stderr, new RegExp(`: ${wholeId} \\(baseline\\) and \\S+ \\(candidate\\)`));
    assert.doesNotMatch(r.stdout, /unpaired/);
  });
});

describe('assay init beside a suite already there', () => {
  it('a starter of another format is refused (exit 2, nothing written): assay eval would run the other suite, or no longer run it', async () => {
    const dir = freshDir();
    assert.equal((await runCli(['init'], { cwd: dir, env: cleanEnv })).code, 0);
    for (const format of ['ewebench', 'pramana', 'lve']) {
      const r = await runCli(['init', '--format', format], { cwd: dir, env: cleanEnv });
      assert.equal(r.code, 2, `${format}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /already holds a promptfoo suite.*nothing was written \(give another DIR\)/);
    }
    const pramana = freshDir();
    await runCli(['init', '--format', 'pramana'], { cwd: pramana, env: cleanEnv });
    const shadow = await runCli(['init'], { cwd: pramana, env: cleanEnv });
    assert.equal(shadow.code, 2, shadow.stdout + shadow.stderr);
    assert.match(shadow.stderr, /already holds a pramana suite/);
    // What is there still runs as it did: the promptfoo starter, the pramana starter.
    assert.deepEqual(readdirSync(dir).sort(), ['promptfooconfig.yaml']);
    assert.deepEqual(readdirSync(pramana).sort(), ['manifest.toml', 'starter.jsonl']);
  });
});

describe('the command assay init prints', () => {
  it('is read back by a shell as the words that run the starter: a DIR with a newline or a quote, or beginning with -', async () => {
    for (const name of ['two\nlines', "it's here", '-dashed']) {
      const cwd = freshDir();
      const init = await runCli(['init', '--', name], { cwd, env: cleanEnv });
      assert.equal(init.code, 0, init.stdout + init.stderr);
      const printed = init.stdout.trim().split('\n').at(-1)!.trim();
      assert.doesNotMatch(printed, /[\n\x1b]/);
      // The words a shell makes of it, NUL-separated.
      const shell = spawnSync(
        'bash',
        ['-c', `set -- ${printed.replace(/^assay /, '')}; printf '%s\\0' "$@"`],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(shell.status, 0, shell.stderr);
      const argv = shell.stdout.split('\0').slice(0, -1);
      assert.equal(argv[0], 'eval');
      const dir = argv[1];
      assert.ok(!dir.startsWith('-'), `${JSON.stringify(dir)} would be read as an option`);
      assert.equal(resolve(cwd, dir), join(cwd, name));
      const run = await runCli([...argv, '--no-progress'], { cwd, env: cleanEnv });
      assert.equal(run.code, 0, run.stdout + run.stderr);
    }
  });
});

describe('assay init where a starter file cannot be written', () => {
  it('a folder where the starter puts a file: exit 2 naming it, even with --force, nothing written', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'manifest.toml'));
    const refused = await runCli(['init', '--format', 'pramana'], { cwd: dir, env: cleanEnv });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /manifest\.toml already exists; nothing was written/);
    const forced = await runCli(['init', '--format', 'pramana', '--force'], { cwd: dir, env: cleanEnv });
    assert.equal(forced.code, 2, forced.stdout + forced.stderr);
    assert.match(
      forced.stderr,
      /^manifest\.toml: is not a file, so the starter cannot be written there; nothing was written\n$/,
    );
    assert.deepEqual(readdirSync(dir), ['manifest.toml']);
  });
});
