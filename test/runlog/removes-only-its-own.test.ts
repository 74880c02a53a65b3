// Issue 30, "assay removes only what assay made": every place assay removes, renames over or writes
// a temporary file, attacked with real symbolic links and real folders of a user's. Each test failed
// before its fix (said beside it): a user's `main@notes` folder in a baseline store that is a link
// was removed by the second save; a user's folder at a baseline's name was moved into the store and
// removed by the next save; a lookalike of a merge's hidden folder, a lock file holding no pid, a
// folder or link named like a run's leftover temporary, and folders of a folder output were removed;
// temporary files, and an apastra baseline's archive, were written through a link planted at their name.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { outputTargets } from '../../src/cli/outputs.js';
import type { Scorecard } from '../../src/core/scorecard.js';
import { outputRun, writeOutput } from '../../src/report/output-host.js';
import type { OutputFormat } from '../../src/report/outputs.js';
import { saveBaseline } from '../../src/runlog/baselines.js';
import { tryLock } from '../../src/runlog/lock.js';
import { writeFileWhole } from '../../src/runlog/write-whole.js';
import { clearOutputsPending, RunWriter } from '../../src/runlog/writer.js';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { watchOutput } from '../support/processes.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-removes-own-');
after(() => tmp.cleanup());

/** pid 2^22 + 1 is beyond Linux's default pid_max: no process has it. */
const DEAD = 4_194_305;

let n = 0;
/** A fresh folder under the test's temporary folder. */
function fresh(name: string): string {
  const dir = join(tmp.dir, `${name}-${n++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A user's folder with a file in it (what must survive). */
function userFolder(path: string): string {
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'notes.md'), 'my notes, not assay’s\n');
  return path;
}

function intact(path: string): void {
  assert.equal(
    readFileSync(join(path, 'notes.md'), 'utf8'),
    'my notes, not assay’s\n',
    `${path} was touched`,
  );
}

const suites = new Map<string, string>();
/** A complete echo run (the `passing` fixture) under `runsDir`; returns its directory. */
async function echoRun(runsDir: string, extra: string[] = []): Promise<string> {
  const suite = fresh('suite');
  cpSync(join(repoRoot, 'test', 'fixtures', 'cli', 'passing'), suite, { recursive: true });
  const r = await runCli(['eval', suite, '--no-progress', '--runs-dir', runsDir, ...extra], {
    env: cleanEnv,
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const m = /Run written to (\S+)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  suites.set(m[1], suite);
  return m[1];
}

/** `assay eval SUITE --resume ID` of a run echoRun made. */
function resume(runDir: string) {
  return runCli(
    [
      'eval',
      suites.get(runDir)!,
      '--resume',
      basename(runDir),
      '--runs-dir',
      dirname(runDir),
      '--no-progress',
    ],
    { env: cleanEnv },
  );
}

let run: string;
before(async () => {
  run = await echoRun(fresh('runs'));
});

describe('baseline save removes only copies it saved', () => {
  it('a store that is a link to another disk: the second save keeps a user’s main@notes there, and says where the copies are', async () => {
    const dir = fresh('baselines');
    const disk = fresh('bigger-disk');
    symlinkSync(disk, join(dir, '.store'));
    const notes = userFolder(join(disk, 'main@notes'));
    const saves: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await runCli(['baseline', 'save', run, '--name', 'main', '--dir', dir]);
      assert.equal(r.code, 0, r.stderr);
      // The link out of the baselines folder is followed, and said.
      assert.match(
        r.stderr,
        /assay: note: .*\.store is a link to .*bigger-disk.*: the copies are kept there/,
      );
      saves.push(readlinkSync(join(dir, 'main')));
      // Before: the second save removed main@notes, recursively.
      intact(notes);
    }
    // assay's own copies are still cleaned: the first one (nothing points at it) is gone, the
    // current and the previous ones stay.
    const copies = readdirSync(disk).filter((e) => e.startsWith('main@') && e !== 'main@notes');
    assert.deepEqual(
      copies.sort(),
      saves
        .slice(1)
        .map((s) => s.replace('.store/', ''))
        .sort(),
    );
    assert.equal(existsSync(join(disk, saves[0].replace('.store/', ''))), false);
  });

  it('a user’s folder, file or link at the baseline’s name is refused (exit 2), never moved or replaced', async () => {
    for (const kind of ['folder', 'file', 'link'] as const) {
      const dir = fresh('baselines');
      const name = join(dir, 'main');
      const elsewhere = userFolder(fresh('elsewhere'));
      if (kind === 'folder') userFolder(name);
      else if (kind === 'file') writeFileSync(name, 'a file of mine\n');
      else symlinkSync(elsewhere, name);
      // Before: a folder was moved into the store (and removed by the next save); a file or link replaced.
      const r = await runCli(['baseline', 'save', run, '--name', 'main', '--dir', dir]);
      assert.equal(r.code, 2, `${kind}: ${r.stdout}${r.stderr}`);
      assert.match(
        r.stderr,
        /main: is (a folder that is not a saved run|a file|a symbolic link to .*elsewhere.*), which assay did not make; nothing was saved/,
      );
      if (kind === 'folder') intact(name);
      if (kind === 'file') assert.equal(readFileSync(name, 'utf8'), 'a file of mine\n');
      if (kind === 'link') assert.equal(readlinkSync(name), elsewhere);
      intact(elsewhere);
      assert.equal(existsSync(join(dir, '.store')), false, 'nothing was written');
    }
  });

  it('a baseline an older assay saved as a plain run folder is moved into the store and kept, not removed later', async () => {
    const dir = fresh('baselines');
    cpSync(run, join(dir, 'main'), { recursive: true });
    writeFileSync(join(dir, 'main', 'notes.md'), 'my notes, not assay’s\n');
    const first = await runCli(['baseline', 'save', run, '--name', 'main', '--dir', dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /saved by an older assay, is kept whole as .*main@legacy-/);
    for (let i = 0; i < 2; i++)
      assert.equal((await runCli(['baseline', 'save', run, '--name', 'main', '--dir', dir])).code, 0);
    // Before: the save after next removed it.
    const legacy = readdirSync(join(dir, '.store')).find((e) => e.startsWith('main@legacy-'));
    assert.ok(legacy);
    intact(join(dir, '.store', legacy));
  });

  it('an entry of a user’s at the swap link’s name is refused, not removed (the library, this pid)', async () => {
    const dir = fresh('baselines');
    const inTheWay = join(dir, `.main.link-${process.pid}`);
    writeFileSync(inTheWay, 'mine\n');
    // Before: removed (rmSync … force) to make room for the link.
    await assert.rejects(
      saveBaseline(run, 'main', dir),
      /\.main\.link-\d+: is in the way of the swap, and assay did not make it/,
    );
    assert.equal(readFileSync(inTheWay, 'utf8'), 'mine\n');
    assert.deepEqual(
      readdirSync(join(dir, '.store')).filter((e) => e.startsWith('main@')),
      [],
      'no copy was made either',
    );
  });
});

describe('an apastra baseline archive is copied to a new file only', () => {
  it('a link planted at the archive’s name is left, its target untouched; the archive goes beside it', async () => {
    const ws = fresh('apastra');
    cpSync(join(repoRoot, 'test', 'fixtures', 'apastra', 'ws'), ws, { recursive: true });
    const r = await runCli(
      [
        'eval',
        ws,
        '--suite',
        'capitals-smoke',
        '-p',
        'echo',
        '--no-progress',
        '--runs-dir',
        join(ws, 'runs'),
      ],
      {
        env: cleanEnv,
      },
    );
    const runDir = /Run written to (\S+)/.exec(r.stdout)?.[1];
    assert.ok(runDir, r.stdout + r.stderr);
    // The workspace has an active baseline; the save archives it as capitals-smoke-<UTC second>.json.
    // Links at that name for every second of the next ten minutes, to a file of someone else's.
    const folder = join(ws, 'derived-index', 'baselines');
    const victim = join(fresh('elsewhere'), 'precious.json');
    writeFileSync(victim, 'precious\n');
    const now = Date.now();
    for (let s = -5; s < 600; s++) {
      const stamp = new Date(now + s * 1000)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
      symlinkSync(victim, join(folder, `capitals-smoke-${stamp}.json`));
    }
    const save = await runCli(['baseline', 'save', runDir, '--name', 'main', '--dir', join(ws, 'bl')]);
    assert.equal(save.code, 0, save.stdout + save.stderr);
    // Before: the previous baseline was copied through the link, over precious.json.
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    const archived = /Archived the previous apastra baseline: (\S+)/.exec(save.stdout)?.[1];
    assert.ok(archived && /capitals-smoke-\d{8}T\d{6}Z-2\.json$/.test(archived), save.stdout);
    assert.ok(lstatSync(archived).isFile());
  });
});

describe('merge removes only the hidden folder of a merge it can prove was killed', () => {
  it('a killed merge’s folder is removed by the next merge; a lookalike folder of a user’s is kept', async () => {
    const runsDir = fresh('shard-runs');
    const shards = [await echoRun(runsDir, ['--shard', '1/2']), await echoRun(runsDir, ['--shard', '2/2'])];
    const lookalike = userFolder(join(runsDir, `.20250101T000000Z-abcdef.merging-${DEAD}`));
    // A merge stopped for good (SIGKILL) while its hidden folder holds every result.
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'assay.js'), 'merge', ...shards, '--runs-dir', runsDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: childEnv({ ...cleanEnv, ASSAY_TEST_PAUSE: 'merge' }),
      },
    );
    const output = watchOutput(child);
    const exited = once(child, 'exit');
    await output.waitForText(/assay: test pause at merge/, 120_000);
    child.kill('SIGKILL');
    await exited;
    const killed = readdirSync(runsDir).filter((e) => e.endsWith(`.merging-${child.pid}`));
    assert.equal(killed.length, 1, readdirSync(runsDir).join(' '));
    const merged = await runCli(['merge', ...shards, '--runs-dir', runsDir]);
    assert.equal(merged.code, 0, merged.stdout + merged.stderr);
    assert.equal(existsSync(join(runsDir, killed[0])), false, 'the killed merge’s copy is removed');
    // Before: removed too (any `.X.merging-<dead pid>` folder was).
    intact(lookalike);
  });
});

describe('locks are taken over only from a dead assay', () => {
  it('a run.lock that holds no pid is not taken over (exit 2, kept); a folder named like it neither', async () => {
    for (const kind of ['notes', 'folder'] as const) {
      const runDir = await echoRun(fresh('runs'));
      const lock = join(runDir, 'run.lock');
      if (kind === 'notes') writeFileSync(lock, 'my notes\n');
      else userFolder(lock);
      const r = await resume(runDir);
      // Before: a lock that was not a live pid was stale, and removed (a folder: a crash, EISDIR).
      assert.equal(r.code, 2, `${kind}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /run\.lock: is not a lock assay wrote/);
      if (kind === 'notes') assert.equal(readFileSync(lock, 'utf8'), 'my notes\n');
      else intact(lock);
    }
  });

  it('the lock’s temporary file is never written through a link planted at its name (this pid)', () => {
    const dir = fresh('lock');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, `run.lock.tmp-${process.pid}`));
    // Before: the pid was written into victim.txt through the link.
    assert.throws(
      () => tryLock(join(dir, 'run.lock')),
      /run\.lock\.tmp-\d+ is in the way: a symbolic link assay did not make/,
    );
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    assert.equal(existsSync(join(dir, 'run.lock')), false);
  });
});

describe('temporaries: only assay’s leftovers are removed, and none is written through a link', () => {
  it('a resume keeps a folder and a link named like a dead process’s leftovers, and a file of another name', async () => {
    const runDir = await echoRun(fresh('runs'));
    const folder = userFolder(join(runDir, `manifest.json.tmp-${DEAD}`));
    const target = join(fresh('elsewhere'), 'kept.txt');
    writeFileSync(target, 'kept\n');
    symlinkSync(target, join(runDir, `results.jsonl.compact-${DEAD}`));
    writeFileSync(join(runDir, `draft.tmp-${DEAD}`), 'my draft\n');
    // What assay itself leaves when killed is still cleaned.
    writeFileSync(join(runDir, `scorecard.json.tmp-${DEAD}`), 'half written');
    const r = await resume(runDir);
    // Before: rmSync of the folder threw (EISDIR) and the resume failed; the link and draft were removed.
    assert.equal(r.code, 0, r.stdout + r.stderr);
    intact(folder);
    assert.ok(lstatSync(join(runDir, `results.jsonl.compact-${DEAD}`)).isSymbolicLink());
    assert.equal(readFileSync(join(runDir, `draft.tmp-${DEAD}`), 'utf8'), 'my draft\n');
    assert.equal(existsSync(join(runDir, `scorecard.json.tmp-${DEAD}`)), false);
  });

  it('-o keeps a folder and a link named like a dead process’s temporary of the target', async () => {
    const dir = fresh('out');
    const folder = userFolder(join(dir, `.out.json.tmp-${DEAD}`));
    const target = join(fresh('elsewhere'), 'kept.txt');
    writeFileSync(target, 'kept\n');
    symlinkSync(target, join(dir, `.out.json.tmp-${DEAD + 1}`));
    const r = await runCli(['report', run, '-o', join(dir, 'out.json')]);
    // Before: the folder made the write fail (EISDIR); the link was removed.
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(existsSync(join(dir, 'out.json')));
    intact(folder);
    assert.ok(lstatSync(join(dir, `.out.json.tmp-${DEAD + 1}`)).isSymbolicLink());
  });

  it('no temporary file is written through a link planted at its name (this pid): -o files, run files, the probe', async () => {
    const dir = fresh('planted');
    const victim = join(dir, 'victim.txt');
    const plant = (at: string): void => {
      writeFileSync(victim, 'precious\n');
      symlinkSync(victim, at);
    };
    // writeFileWhole (every -o file, comparison, init's starter).
    plant(join(dir, `.out.json.tmp-${process.pid}`));
    assert.throws(() => writeFileWhole(join(dir, 'out.json'), '{}'), /is in the way: a symbolic link/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n', 'before: overwritten through the link');
    assert.equal(existsSync(join(dir, 'out.json')), false);
    // A run's JSON files (the manifest, the scorecard) and clearing outputsPending.
    const runsDir = fresh('runs');
    const manifest = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8'));
    const writer = RunWriter.create(runsDir, { ...manifest, runId: 'planted-run' });
    writer.close();
    const runDir = join(runsDir, 'planted-run');
    plant(join(runDir, `scorecard.json.tmp-${process.pid}`));
    assert.throws(() => writer.writeJson('scorecard.json', {}), /is in the way: a symbolic link/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    writeFileSync(
      join(runDir, 'manifest.json'),
      JSON.stringify({ ...manifest, runId: 'planted-run', outputsPending: ['x'] }),
    );
    plant(join(runDir, `manifest.json.tmp-${process.pid}`));
    assert.throws(() => clearOutputsPending(runDir), /is in the way: a symbolic link/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  });

  it('the -o probe of a folder is made new, never written through a link at its name (this pid)', () => {
    const dir = fresh('probe');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, `.assay-probe-${process.pid}`));
    // Before: victim.txt was emptied through the link, and the link removed.
    assert.throws(() => outputTargets([join(dir, 'out.json')], undefined), /cannot write there/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  });
});

describe('a folder output replaces only a folder its format proves it wrote', () => {
  it('a folder of a user’s at the name (or at the temporary name) is kept: the output goes beside it', async () => {
    // A folder format that says nothing of what it may replace (a plugin's, say).
    const format: OutputFormat = {
      name: 'test-folder',
      layout: 'folder',
      extensions: [],
      description: 'a folder of one file',
      fileName: () => 'results',
      async write(_run, sink) {
        sink.folder().file('result.txt', 'written by the output\n');
      },
    };
    const out = fresh('folder-out');
    const taken = userFolder(join(out, 'results'));
    const tmpName = userFolder(join(out, `results.tmp-${process.pid}`));
    const scorecard = JSON.parse(readFileSync(join(run, 'scorecard.json'), 'utf8')) as Scorecard;
    const written = await writeOutput(outputRun(run, scorecard), { path: out, format, folder: true });
    // Before: results/ and results.tmp-<pid>/ were removed, recursively, and results/ replaced.
    intact(taken);
    intact(tmpName);
    assert.deepEqual(written, [join(out, 'results-2')]);
    assert.equal(readFileSync(join(out, 'results-2', 'result.txt'), 'utf8'), 'written by the output\n');
  });
});
