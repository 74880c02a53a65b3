import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cacheCommand } from '../../src/cli/cache.js';
import { ResponseCache } from '../../src/engine/cache.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cache-cli-');
after(tmp.cleanup);

let n = 0;
const freshPath = (): string => join(tmp.dir, `c${n++}`, 'cache.sqlite');

/** Runs `assay cache …` in-process, capturing what it prints. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = process.stdout.write;
  const err = process.stderr.write;
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await cacheCommand(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

/** A cache holding `count` entries written `ageMs` ago. */
function populate(path: string, count: number, ageMs = 0): void {
  const cache = ResponseCache.open(path, { now: () => Date.now() - ageMs });
  for (let i = 0; i < count; i++) cache.set(`k${i}-${ageMs}`, { output: `answer ${i}`, latencyMs: 1 });
  cache.close();
}

describe('assay cache', () => {
  it('stats and clear on a missing cache say there is none (exit 0) and create nothing', async () => {
    const path = freshPath();
    const stats = await run(['stats', '--cache-path', path]);
    assert.equal(stats.code, 0);
    assert.match(stats.stdout, /no response cache at .*cache\.sqlite/);
    const clear = await run(['clear', '--cache-path', path]);
    assert.equal(clear.code, 0);
    assert.match(clear.stdout, /nothing to clear/);
    assert.equal(existsSync(path), false);
  });

  it('stats prints entries, size, oldest/newest and the path; clear empties it', async () => {
    const path = freshPath();
    populate(path, 3);
    const stats = await run(['stats', '--cache-path', path]);
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /^entries: 3$/m);
    assert.match(stats.stdout, /^size: +\d+(\.\d)? (B|KiB|MiB)$/m);
    assert.match(stats.stdout, /^oldest: +\d{4}-\d\d-\d\dT/m);
    assert.match(stats.stdout, /^newest: +\d{4}-\d\d-\d\dT/m);
    assert.ok(stats.stdout.includes(path));

    const clear = await run(['clear', '--cache-path', path]);
    assert.equal(clear.code, 0, clear.stderr);
    assert.match(clear.stdout, /removed 3 entries from /);
    const after = await run(['stats', '--cache-path', path]);
    assert.match(after.stdout, /^entries: 0$/m);
    assert.doesNotMatch(after.stdout, /oldest/);
  });

  it('prune removes only entries older than --cache-ttl, and stats counts them first', async () => {
    const path = freshPath();
    populate(path, 2, 2 * 3600_000);
    populate(path, 1, 0);
    const stats = await run(['stats', '--cache-path', path, '--cache-ttl', '3600']);
    assert.match(stats.stdout, /^entries: 3 \(2 expired/m);
    const prune = await run(['prune', '--cache-path', path, '--cache-ttl', '3600']);
    assert.equal(prune.code, 0, prune.stderr);
    assert.match(prune.stdout, /removed 2 expired entries/);
    const again = await run(['prune', '--cache-path', path, '--cache-ttl', '3600']);
    assert.match(again.stdout, /removed 0 expired entries/);
    assert.match((await run(['stats', '--cache-path', path])).stdout, /^entries: 1$/m);
  });

  it('uses ASSAY_CACHE_PATH when no --cache-path is given', async () => {
    const path = freshPath();
    populate(path, 1);
    const saved = process.env.ASSAY_CACHE_PATH;
    process.env.ASSAY_CACHE_PATH = path;
    try {
      const stats = await run(['stats']);
      assert.equal(stats.code, 0, stats.stderr);
      assert.match(stats.stdout, /^entries: 1$/m);
      assert.ok(stats.stdout.includes(path));
    } finally {
      if (saved === undefined) delete process.env.ASSAY_CACHE_PATH;
      else process.env.ASSAY_CACHE_PATH = saved;
    }
  });

  it('a file that is not an assay cache is exit 2 with a one-line message naming it', async () => {
    const path = join(tmp.dir, 'not-a-cache.sqlite');
    writeFileSync(path, 'plain text, not SQLite at all; '.repeat(40));
    const stats = await run(['stats', '--cache-path', path]);
    assert.equal(stats.code, 2);
    assert.equal(stats.stderr.trim().split('\n').length, 1);
    assert.ok(stats.stderr.includes(path));
    assert.match(stats.stderr, /not an assay response cache/);
  });

  it('command-line mistakes are exit 2 with a one-line message', async () => {
    for (const args of [
      ['frobnicate'],
      ['stats', 'extra'],
      ['stats', '--bogus'],
      ['prune', '--cache-ttl', 'soon'],
      ['prune', '--cache-ttl=-5'],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
    }
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage: assay cache/);
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: assay cache/);
  });
});
