// From a finished run to its report (issue 24): `assay init` writes a starter of each format that
// runs offline at once; `assay runs` lists past runs newest first; `assay view` writes a run's HTML
// report when it has none (or an older one) and opens it where there is a display, else prints its
// link; `assay compare` with no runs named compares the last two runs of the same suite.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { waitFor } from '../support/processes.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-runs-view-init-');
after(() => tmp.cleanup());

let n = 0;
function freshDir(): string {
  const dir = join(tmp.dir, `d${n++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The `assay eval …` command `assay init` printed last, as arguments after `assay`. */
function printedCommand(stdout: string): string[] {
  const last = stdout.trim().split('\n').at(-1)!.trim();
  assert.match(last, /^assay eval\b/, stdout);
  return last.split(/\s+/).slice(1);
}

describe('assay init', () => {
  for (const format of ['promptfoo', 'pramana', 'ewebench', 'apastra', 'lve']) {
    it(`--format ${format}: the starter runs offline at once and every test passes`, async () => {
      const dir = freshDir();
      const init = await runCli(['init', '--format', format], { cwd: dir, env: cleanEnv });
      assert.equal(init.code, 0, init.stdout + init.stderr);
      const run = await runCli([...printedCommand(init.stdout), '--no-progress'], {
        cwd: dir,
        env: cleanEnv,
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const headline = /(\d+) jobs: (\d+) passed · 0 failed · 0 errors/.exec(run.stdout);
      assert.ok(headline, run.stdout);
      assert.equal(headline[1], headline[2]);
      assert.ok(Number(headline[1]) >= 2, 'a starter has more than one test');
    });
  }

  it('writes into DIR, and the printed command names it', async () => {
    const dir = freshDir();
    const init = await runCli(['init', 'my-suite'], { cwd: dir, env: cleanEnv });
    assert.equal(init.code, 0, init.stderr);
    assert.ok(existsSync(join(dir, 'my-suite', 'promptfooconfig.yaml')));
    assert.deepEqual(printedCommand(init.stdout), ['eval', 'my-suite']);
  });

  it('never overwrites: an existing file stops it before anything is written (exit 2); --force overwrites', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'tests'));
    writeFileSync(join(dir, 'tests', 'translation.json'), 'mine');
    const refused = await runCli(['init', '--format', 'ewebench'], { cwd: dir, env: cleanEnv });
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /tests\/translation\.json already exists; nothing was written \(--force overwrites\)/,
    );
    assert.equal(readFileSync(join(dir, 'tests', 'translation.json'), 'utf8'), 'mine');
    const forced = await runCli(['init', '--format', 'ewebench', '--force'], { cwd: dir, env: cleanEnv });
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(readFileSync(join(dir, 'tests', 'translation.json'), 'utf8'), 'mine');
  });

  it('an unknown --format is refused with a suggestion', async () => {
    const r = await runCli(['init', '--format', 'pramanna'], { cwd: freshDir(), env: cleanEnv });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--format pramanna: expected one of .*promptfoo.*\(did you mean pramana\?\)/);
  });
});

describe('assay runs, view and compare with no runs named', () => {
  const dir = freshDir();
  const runIds: string[] = [];
  const evalOnce = async (args: string[] = []) => {
    const r = await runCli(['eval', '--no-progress', ...args], { cwd: dir, env: cleanEnv });
    assert.ok(r.code === 0 || r.code === 1, r.stdout + r.stderr);
    runIds.push(/run (\d{8}T\d{6}Z-[0-9a-f]+)/.exec(r.stdout)![1]);
  };

  it('lists the runs newest first with suite, status, counts, pass rate and age', async () => {
    assert.equal((await runCli(['init'], { cwd: dir, env: cleanEnv })).code, 0);
    const empty = await runCli(['runs'], { cwd: dir, env: cleanEnv });
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /No runs in \.assay\/runs/);
    await evalOnce();
    // A second suite in the same folder, and a second run of the first one after it.
    await runCli(['init', 'other', '--format', 'pramana'], { cwd: dir, env: cleanEnv });
    await evalOnce(['other', '--provider', 'echo']);
    await evalOnce();
    const r = await runCli(['runs'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /^run\s+suite\s+status\s+pass\/fail\/error\s+pass rate\s+age$/);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/\s+/)[0]),
      [...runIds].reverse(),
      'newest first',
    );
    assert.match(lines[1], /My first assay suite \(promptfoo\)\s+complete\s+3\/0\/0\s+100\.0%\s+\d+ s$/);
    assert.match(lines[2], /\(pramana\)\s+complete\s+3\/0\/0/);
    const json = JSON.parse(
      (await runCli(['runs', '--json', '-n', '1'], { cwd: dir, env: cleanEnv })).stdout,
    );
    assert.equal(json.length, 1);
    assert.equal(json[0].runId, runIds[2]);
    assert.deepEqual(json[0].counts, { total: 3, pass: 3, fail: 0, error: 0, skip: 0 });
    assert.equal(json[0].passRate, 1);
  });

  it('a run whose manifest is damaged is listed as unreadable, the others still listed', async () => {
    const damaged = join(dir, '.assay', 'runs', '20000101T000000Z-000000');
    mkdirSync(damaged, { recursive: true });
    writeFileSync(join(damaged, 'manifest.json'), '{"runId": ');
    const r = await runCli(['runs'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /20000101T000000Z-000000\s+unreadable: /);
    assert.equal(r.stdout.trim().split('\n').length, 5);
  });

  it('compare with no runs named: the newest run against the one of the same suite before it', async () => {
    const r = await runCli(['compare'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // runIds[1] is the other suite's run, between the two: it is skipped.
    assert.match(
      r.stderr,
      new RegExp(
        `Comparing the last two runs of .*: ${runIds[0]} \\(baseline\\) and ${runIds[2]} \\(candidate\\)`,
      ),
    );
    assert.match(r.stdout, /unchanged|inconclusive/);
  });

  it("compare with no runs named, when the newest run is its suite's only one: exit 2, saying so", async () => {
    await evalOnce(['other', '--provider', 'echo', '--tier', 'starter']);
    const lone = freshDir();
    await runCli(['init'], { cwd: lone, env: cleanEnv });
    await runCli(['eval', '--no-progress'], { cwd: lone, env: cleanEnv });
    const r = await runCli(['compare'], { cwd: lone, env: cleanEnv });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /is the only run of its suite in \.assay\/runs; run it again, or give BASELINE and CANDIDATE/,
    );
    // One line, named once: not "assay: assay compare: …".
    assert.match(r.stderr, /^assay: compare: the newest run /);
  });

  it("view with no display writes the newest run's report and prints its link; a fresh report is not rewritten", async () => {
    const newest = runIds.at(-1)!;
    const report = join(dir, '.assay', 'runs', newest, 'report.html');
    const r = await runCli(['view'], {
      cwd: dir,
      env: { ...cleanEnv, DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Report: file://.*/${newest}/report\\.html$`, 'm'));
    assert.match(readFileSync(report, 'utf8'), /<html/i);
    const made = statSync(report).mtimeMs;
    const again = await runCli(['view', newest, '--no-open'], { cwd: dir, env: cleanEnv });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(statSync(report).mtimeMs, made, 'an up-to-date report is opened as it is');
  });

  it('view with a display opens the report with the desktop opener (xdg-open)', async () => {
    const bin = freshDir();
    const seen = join(bin, 'opened.txt');
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s' "$1" > '${seen}.tmp' && mv '${seen}.tmp' '${seen}'\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const r = await runCli(['view', runIds[0]], {
      cwd: dir,
      env: { ...cleanEnv, DISPLAY: ':0', PATH: `${bin}:${process.env.PATH}` },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Opened file:\/\/.*report\.html$/m);
    // The opener runs detached: wait (bounded) for what it wrote.
    await waitFor(() => existsSync(seen));
    assert.match(readFileSync(seen, 'utf8'), new RegExp(`^file://.*/${runIds[0]}/report\\.html$`));
  });

  it('view of no run at all: exit 2 naming the folder', async () => {
    const r = await runCli(['view'], { cwd: freshDir(), env: cleanEnv });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /assay view: no run in \.assay\/runs; give a run directory or id/);
  });
});
