// A run written by run-log version 1 (the flat result layout, test/fixtures/runlog-v1) is read by
// today's assay as it reads a run of today's layout: report, rescore, compare and merge give the
// same answers on the old run as on the same run made again now.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RUNLOG_VERSION } from '../../src/runlog/version.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'runlog-v1');
/** Where the fixture was when it was written: its manifests hold that absolute path, kept as written. */
const RECORDED = (
  JSON.parse(readFileSync(join(FIXTURE, 'runs', 'full', 'manifest.json'), 'utf8')) as { cwd: string }
).cwd;
const tmp = tempDir('assay-old-layout-');
const root = tmp.dir;
/** The run directories: the fixture's (version 1) and the same runs made now. */
const old = {
  full: join(root, 'runs', 'full'),
  shard0: join(root, 'runs', 'shard0'),
  shard1: join(root, 'runs', 'shard1'),
};
const now = { full: '', shard0: '', shard1: '' };

async function assay(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(args, { cwd: root, env: cleanEnv });
}

/** The one run directory under `dir`. */
function onlyRun(dir: string): string {
  const runs = readdirSync(dir);
  assert.equal(runs.length, 1, `${dir}: ${runs.join(', ')}`);
  return join(dir, runs[0]);
}

/** Text with what differs between two makings of one run (ids, times, paths, latencies) blanked. */
function normalized(text: string): string {
  const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (
    text
      .replace(new RegExp(esc(FIXTURE), 'g'), 'ROOT')
      .replace(new RegExp(esc(RECORDED), 'g'), 'ROOT')
      .replace(new RegExp(esc(root), 'g'), 'ROOT')
      .replace(/\d{8}T\d{6}Z-[0-9a-f]{6}/g, 'RUN')
      .replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z?( UTC)?/g, 'TIME')
      .replace(/ROOT\/(runs|now)\/(full|shard0|shard1)/g, 'RUNDIR')
      .replace(/ROOT\/(merged|rescored)-(old|now)\//g, 'ROOT/$1/')
      .replace(/"schemaVersion": ?\d+/g, '"schemaVersion":0')
      .replace(/"(latencyMs|latencyMsMean|durationMs)": ?[\d.]+/g, '"$1":0')
      .replace(/time="[\d.]+"/g, 'time="T"')
      // Version 3 records the answer's wire dialect (the echo provider's answers are structured); the
      // version-1 fixture's answers, plain text then, have none: the rest must be the same.
      .replace(/"api": ?"echo",?/g, '')
      .replace(/<dt>took<\/dt><dd>[^<]*<\/dd>/g, '<dt>took</dt><dd>T</dd>')
  );
}

/**
 * The same text but for ids, times and paths, line for line in any order: jobs that run at once
 * finish (and are listed) in an order of their own.
 */
function sameText(a: string, b: string, what: string): void {
  const x = normalized(a).split('\n').sort();
  const y = normalized(b).split('\n').sort();
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    assert.equal(x[i], y[i], `${what}: line ${i + 1} differs`);
}

/**
 * The same JSON but for ids, times and paths; lists of failures in any order (they are in log
 * order); sums of fractions to 12 significant digits (they are added in log order, and jobs run at
 * once finish in an order of their own: 0.5952380952380951 and …52 are the same mean).
 */
function sameJson(a: string, b: string, what: string): void {
  const canonical = (text: string): unknown =>
    JSON.parse(normalized(text), (key, value: unknown) =>
      key === 'failures' && Array.isArray(value)
        ? [...value].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))
        : typeof value === 'number' && !Number.isInteger(value)
          ? Number(value.toPrecision(12))
          : value,
    );
  assert.deepEqual(canonical(a), canonical(b), what);
}

/** A run's results by key, with its times blanked. */
function resultsByKey(runDir: string): Map<string, unknown> {
  const lines = readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim().split('\n');
  return new Map(
    lines.map((l) => {
      const r = JSON.parse(normalized(l)) as { key: string };
      return [r.key, r];
    }),
  );
}

before(async () => {
  cpSync(FIXTURE, root, { recursive: true });
  // The commands that wrote the fixture (test/fixtures/runlog-v1/README.md), each run moved aside.
  const made = async (name: string, extra: string[]): Promise<string> => {
    const r = await assay([
      'eval',
      '-c',
      'suite/promptfooconfig.yaml',
      '--repeat',
      '2',
      '--no-cache',
      ...extra,
    ]);
    // The suite has unrunnable jobs on purpose: exit 3 (errors), as when the fixture was written.
    assert.equal(r.code, 3, r.stderr);
    const dir = join(root, 'now', name);
    renameSync(onlyRun(join(root, '.assay', 'runs')), dir);
    return dir;
  };
  mkdirSync(join(root, 'now'));
  now.full = await made('full', []);
  now.shard0 = await made('shard0', ['--shard', '1/2']);
  now.shard1 = await made('shard1', ['--shard', '2/2']);
});
after(() => tmp.cleanup());

describe('a run written by run-log version 1', () => {
  it('is the old layout, and today writes the new one with the same jobs, case ids and keys', () => {
    const oldLine = JSON.parse(readFileSync(join(old.full, 'results.jsonl'), 'utf8').split('\n')[0]);
    assert.equal(oldLine.v, 1);
    assert.ok('vars' in oldLine && 'latencyMs' in oldLine && !('case' in oldLine));
    const newLine = JSON.parse(readFileSync(join(now.full, 'results.jsonl'), 'utf8').split('\n')[0]);
    assert.equal(newLine.v, RUNLOG_VERSION);
    assert.ok('case' in newLine && 'answer' in newLine && !('vars' in newLine));
    const a = resultsByKey(old.full);
    const b = resultsByKey(now.full);
    assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort());
  });

  it('assay report gives the same summary, scorecard and every output file', async () => {
    for (const args of [[], ['--json'], ['--format', 'markdown'], ['--format', 'junit']]) {
      const a = await assay(['report', old.full, ...args]);
      const b = await assay(['report', now.full, ...args]);
      assert.equal(a.code, b.code, a.stderr);
      (args[0] === '--json' ? sameJson : sameText)(a.stdout, b.stdout, `report ${args.join(' ')}`);
    }
    for (const ext of ['json', 'jsonl', 'csv', 'xml', 'md', 'html']) {
      const a = join(root, `old.${ext}`);
      const b = join(root, `now.${ext}`);
      assert.equal((await assay(['report', old.full, '-o', a])).code, 0);
      assert.equal((await assay(['report', now.full, '-o', b])).code, 0);
      (ext === 'json' ? sameJson : sameText)(
        readFileSync(a, 'utf8'),
        readFileSync(b, 'utf8'),
        `report -o .${ext}`,
      );
    }
    // The JSONL written from the old run is in today's layout.
    const first = JSON.parse(readFileSync(join(root, 'old.jsonl'), 'utf8').split('\n')[0]);
    assert.equal(first.v, RUNLOG_VERSION);
    assert.equal(first.case.ref, 'h:7c692bde68af');
  });

  it('assay rescore scores its recorded answers as it scores a new run’s', async () => {
    const a = await assay([
      'rescore',
      old.full,
      'suite/promptfooconfig.yaml',
      '--no-progress',
      '--runs-dir',
      'rescored-old',
    ]);
    const b = await assay([
      'rescore',
      now.full,
      'suite/promptfooconfig.yaml',
      '--no-progress',
      '--runs-dir',
      'rescored-now',
    ]);
    assert.equal(a.code, b.code, a.stderr);
    const ra = onlyRun(join(root, 'rescored-old'));
    const rb = onlyRun(join(root, 'rescored-now'));
    const x = resultsByKey(ra);
    const y = resultsByKey(rb);
    assert.equal(x.size, 28);
    for (const [key, r] of x) assert.deepEqual(r, y.get(key), key);
    sameJson(
      readFileSync(join(ra, 'scorecard.json'), 'utf8'),
      readFileSync(join(rb, 'scorecard.json'), 'utf8'),
      'scorecard',
    );
  });

  it('assay compare pairs it with another run as it pairs the new one', async () => {
    // A candidate that differs: the suite with one assertion fixed, run now.
    cpSync(join(root, 'suite'), join(root, 'edited'), { recursive: true });
    const config = join(root, 'edited', 'promptfooconfig.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('value: PARIS', 'value: Ada'));
    const e = await assay([
      'eval',
      '-c',
      'edited/promptfooconfig.yaml',
      '--repeat',
      '2',
      '--no-cache',
      '--no-progress',
      '--runs-dir',
      'edited-runs',
    ]);
    assert.equal(e.code, 3, e.stderr);
    const candidate = onlyRun(join(root, 'edited-runs'));
    for (const flip of [false, true]) {
      const pair = (base: string): string[] => (flip ? [candidate, base] : [base, candidate]);
      const a = await assay(['compare', ...pair(old.full)]);
      const b = await assay(['compare', ...pair(now.full)]);
      assert.equal(a.code, b.code, a.stderr);
      // (The fix is too small for a verdict here, but the pass rates moved.)
      assert.match(a.stdout, /42\.9% → 57\.1%|57\.1% → 42\.9%/);
      sameText(a.stdout, b.stdout, `compare${flip ? ' (flipped)' : ''}`);
    }
  });

  it('assay merge combines its shards into the run the new shards make', async () => {
    const a = await assay(['merge', old.shard0, old.shard1, '--runs-dir', 'merged-old']);
    const b = await assay(['merge', now.shard0, now.shard1, '--runs-dir', 'merged-now']);
    assert.equal(a.code, b.code, a.stderr);
    sameText(a.stdout, b.stdout, 'merge summary');
    const ma = onlyRun(join(root, 'merged-old'));
    const mb = onlyRun(join(root, 'merged-now'));
    const x = resultsByKey(ma);
    const y = resultsByKey(mb);
    assert.equal(x.size, 28);
    for (const [key, r] of x) assert.deepEqual(r, y.get(key), key);
    // The merged run is written in today's layout.
    assert.ok(readFileSync(join(ma, 'results.jsonl'), 'utf8').startsWith(`{"v":${RUNLOG_VERSION},`));
    sameJson(
      readFileSync(join(ma, 'scorecard.json'), 'utf8'),
      readFileSync(join(mb, 'scorecard.json'), 'utf8'),
      'merged scorecard',
    );
  });
  it('assay runs lists it and --filter-failing RUN selects from it as from the new run', async () => {
    const listed = await assay(['runs', '--runs-dir', 'runs', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const full = (
      JSON.parse(listed.stdout) as {
        dir: string;
        status: string;
        counts: { total: number };
        passRate: number;
      }[]
    ).find((r) => r.dir === old.full);
    assert.equal(full?.counts.total, 28);
    assert.ok(Math.abs((full?.passRate ?? 0) - 18 / 28) < 1e-9);
    assert.equal(full?.status, 'complete');
    const picked = async (from: string, out: string) => {
      const r = await assay([
        'eval',
        '-c',
        'suite/promptfooconfig.yaml',
        '--repeat',
        '2',
        '--no-cache',
        '--filter-failing',
        from,
        '--runs-dir',
        out,
      ]);
      assert.equal(r.code, 3, r.stderr);
      return [...resultsByKey(onlyRun(join(root, out))).keys()].sort();
    };
    const fromOld = await picked(old.full, 'failing-old');
    assert.ok(fromOld.length > 0 && fromOld.length < 28, `${fromOld.length}`);
    assert.deepEqual(fromOld, await picked(now.full, 'failing-now'));
  });

  it('assay eval --resume continues a cut log of it to the run made now', async () => {
    const cut = join(root, 'runs', 'cut');
    cpSync(old.full, cut, { recursive: true });
    const lines = readFileSync(join(cut, 'results.jsonl'), 'utf8').split('\n');
    writeFileSync(join(cut, 'results.jsonl'), `${lines.slice(0, 10).join('\n')}\n`);
    const manifest = JSON.parse(readFileSync(join(cut, 'manifest.json'), 'utf8'));
    writeFileSync(
      join(cut, 'manifest.json'),
      JSON.stringify({ ...manifest, status: 'interrupted', endedAt: undefined, counts: undefined }),
    );
    const r = await assay([
      'eval',
      '-c',
      'suite/promptfooconfig.yaml',
      '--repeat',
      '2',
      '--no-cache',
      '--resume',
      cut,
    ]);
    assert.equal(r.code, 3, r.stderr);
    const x = resultsByKey(cut);
    const y = resultsByKey(now.full);
    assert.equal(x.size, 28);
    assert.deepEqual([...x.keys()].sort(), [...y.keys()].sort());
    sameJson(
      readFileSync(join(cut, 'scorecard.json'), 'utf8'),
      readFileSync(join(now.full, 'scorecard.json'), 'utf8'),
      'resumed scorecard',
    );
  });
});
