// Issue 20, "Nothing is half-written, nothing is mixed": every file assay writes goes through one
// temp-and-rename path (runlog/write-whole.ts), compare -o included: a kill mid-write (the
// ASSAY_TEST_PAUSE hook says when) leaves the old file whole, and a reader holding the old file
// keeps it. No output is ever written over the log of a run the command reads, or a suite file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-outputs-whole-');
after(() => tmp.cleanup());

let suite: string;
let runA: string;
let runB: string;
before(async () => {
  suite = join(tmp.dir, 'suite');
  mkdirSync(suite, { recursive: true });
  writeFileSync(join(suite, 'tests.csv'), 'q\na\nb\n');
  writeFileSync(
    join(suite, 'promptfooconfig.yaml'),
    "prompts: ['{{q}}']\nproviders: [echo]\ntests: file://tests.csv\n",
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
});

/** The whole content of an open file descriptor. */
function readFd(fd: number): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  let pos = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
    pos += n;
  }
  return Buffer.concat(chunks).toString('utf8');
}

describe('compare -o is written whole', () => {
  it('is written beside and renamed: a reader holding the old file keeps it whole', async () => {
    const out = join(tmp.dir, 'cmp.json');
    const old = `${JSON.stringify({ previous: 'report', padding: 'x'.repeat(10_000) })}\n`;
    writeFileSync(out, old);
    const fd = openSync(out, 'r');
    try {
      const r = await runCli(['compare', runA, runB, '-o', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFd(fd), old, 'the old file, untouched, for whoever had it open');
    } finally {
      closeSync(fd);
    }
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).verdict, 'unchanged');
  });

  it('a kill mid-write leaves the previous file whole; the next write removes the dead temporary', async () => {
    const dir = join(tmp.dir, 'kill');
    mkdirSync(dir, { recursive: true });
    const out = join(dir, 'cmp.json');
    const old = '{"previous": "report"}\n';
    writeFileSync(out, old);
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'assay.js'), 'compare', runA, runB, '-o', out],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: childEnv({ ASSAY_TEST_PAUSE: 'write-whole' }),
      },
    );
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    const exited = once(child, 'exit');
    for (let i = 0; i < 3000 && !err.includes('test pause at write-whole') && child.exitCode === null; i++)
      await sleep(10);
    assert.match(err, /test pause at write-whole/, 'the write never paused before its rename');
    child.kill('SIGKILL');
    await exited;
    assert.equal(readFileSync(out, 'utf8'), old);
    const leftover = `.cmp.json.tmp-${child.pid}`;
    assert.ok(existsSync(join(dir, leftover)), 'the new content was whole beside it');
    const again = await runCli(['compare', runA, runB, '-o', out]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).verdict, 'unchanged');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('.tmp-')),
      [],
    );
  });
});

describe('no output over a run log or a suite', () => {
  it('report, compare and rescore refuse -o onto a file of a run they read, or of its suite (exit 2)', async () => {
    const baselines = join(tmp.dir, 'baselines');
    const saved = await runCli(['baseline', 'save', runA, '--name', 'main', '--dir', baselines]);
    assert.equal(saved.code, 0, saved.stderr);
    const snapshot = (dir: string) =>
      Object.fromEntries(
        ['manifest.json', 'results.jsonl', 'scorecard.json'].map((f) => [
          f,
          readFileSync(join(dir, f), 'utf8'),
        ]),
      );
    const beforeA = snapshot(runA);
    const beforeB = snapshot(runB);
    const beforeMain = snapshot(join(baselines, 'main'));
    const tests = readFileSync(join(suite, 'tests.csv'), 'utf8');
    const cases: [string[], RegExp][] = [
      [['report', runA, '-o', join(runA, 'manifest.json')], /is the manifest\.json of the run/],
      [['report', runA, '-o', join(runA, 'scorecard.json')], /is the scorecard\.json of the run/],
      [['compare', runA, runB, '-o', join(runA, 'results.jsonl')], /is the results\.jsonl of the run/],
      [['compare', runA, runB, '-o', join(runB, 'manifest.json')], /is the manifest\.json of the run/],
      [
        [
          'compare',
          'main',
          runB,
          '--baselines-dir',
          baselines,
          '-o',
          join(baselines, 'main', 'results.jsonl'),
        ],
        /is the results\.jsonl of the run/,
      ],
      [
        ['compare', runA, runB, '-o', join(runA, 'run.lock')],
        /cannot tell the output format|is the run\.lock/,
      ],
      [['compare', runA, runB, '-o', runB], /is the run directory/],
      [['report', runA, '-o', join(suite, 'tests.csv')], /is one of the files of the suite/],
      [
        ['rescore', runA, '--runs-dir', join(tmp.dir, 'rescored'), '-o', join(runA, 'results.jsonl')],
        /is the results\.jsonl of the run/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { env: cleanEnv });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
    assert.deepEqual(snapshot(runA), beforeA);
    assert.deepEqual(snapshot(runB), beforeB);
    assert.deepEqual(snapshot(join(baselines, 'main')), beforeMain);
    assert.equal(readFileSync(join(suite, 'tests.csv'), 'utf8'), tests);
  });
});
