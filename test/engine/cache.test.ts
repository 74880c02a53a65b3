import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import {
  type CachedResponse,
  CacheFileError,
  cacheKey,
  DEFAULT_CACHE_TTL_SECONDS,
  defaultCachePath,
  ResponseCache,
} from '../../src/engine/cache.js';
import type { ProviderResponse } from '../../src/providers/types.js';
import { runNode } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cache-');
after(tmp.cleanup);

let n = 0;
/** A fresh cache path in a not-yet-existing subfolder (open must create it). */
function freshPath(): string {
  return join(tmp.dir, `c${n++}`, 'sub', 'cache.sqlite');
}

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2025, 0, 1)): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

const response = (output: string): CachedResponse => ({
  output,
  finishReason: 'stop',
  usage: { prompt: 3, completion: 2, total: 5 },
  cost: 0.0001,
  latencyMs: 123.4,
});

const identity = {
  id: 'openai:chat:gpt-4o-mini',
  model: 'gpt-4o-mini',
  baseUrl: 'https://api.openai.com/v1',
};
const messages = [{ role: 'user', content: 'hello' }];

describe('cacheKey', () => {
  it('is a stable sha256 hex digest', () => {
    const a = cacheKey(identity, { messages, params: { temperature: 0 } }, 0);
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.equal(cacheKey(identity, { messages, params: { temperature: 0 } }, 0), a);
  });

  it('ignores the key order of params and provider identity', () => {
    const a = cacheKey(identity, { messages, params: { temperature: 0, max_tokens: 10 } }, 0);
    const b = cacheKey(
      { baseUrl: identity.baseUrl, model: identity.model, id: identity.id },
      { messages, params: { max_tokens: 10, temperature: 0 } },
      0,
    );
    assert.equal(a, b);
  });

  it('differs by provider identity, messages, params and trial', () => {
    const base = cacheKey(identity, { messages, params: {} }, 0);
    const variants = [
      cacheKey({ ...identity, model: 'gpt-4o' }, { messages, params: {} }, 0),
      cacheKey(identity, { messages: [{ role: 'user', content: 'hello!' }], params: {} }, 0),
      cacheKey(identity, { messages: [{ role: 'system', content: 'hello' }], params: {} }, 0),
      cacheKey(identity, { messages, params: { temperature: 0.5 } }, 0),
      cacheKey(identity, { messages, params: {} }, 1),
    ];
    assert.equal(new Set([base, ...variants]).size, variants.length + 1);
  });
});

describe('defaultCachePath', () => {
  it('is .assay/cache.sqlite under cwd, or ASSAY_CACHE_PATH resolved against cwd', () => {
    assert.equal(defaultCachePath({}, '/w'), join('/w', '.assay', 'cache.sqlite'));
    assert.equal(defaultCachePath({ ASSAY_CACHE_PATH: 'x/c.db' }, '/w'), join('/w', 'x', 'c.db'));
    assert.equal(defaultCachePath({ ASSAY_CACHE_PATH: '/abs/c.db' }, '/w'), '/abs/c.db');
    assert.equal(defaultCachePath({ ASSAY_CACHE_PATH: '' }, '/w'), join('/w', '.assay', 'cache.sqlite'));
  });
});

describe('ResponseCache', () => {
  it('creates the file and its folder, misses, then hits what was set', () => {
    const path = freshPath();
    const cache = ResponseCache.open(path);
    try {
      assert.ok(existsSync(path));
      assert.equal(cache.get('k'), undefined);
      cache.set('k', response('hi'));
      assert.deepEqual(cache.get('k'), response('hi'));
      assert.equal(cache.get('other'), undefined);
      // An answer without text keeps saying so when it comes from the cache.
      cache.set('calls', { ...response('[{"id":"c"}]'), nonText: 'tool calls' });
      assert.equal(cache.get('calls')?.nonText, 'tool calls');
    } finally {
      cache.close();
    }
  });

  it('sees entries still in the write buffer, and keeps them after flush', () => {
    const path = freshPath();
    const cache = ResponseCache.open(path);
    const peek = new BetterSqlite3(path, { readonly: true });
    try {
      const count = () => (peek.prepare('SELECT count(*) AS n FROM responses').get() as { n: number }).n;
      cache.set('k', response('buffered'));
      assert.equal(count(), 0, 'not on disk yet');
      assert.deepEqual(cache.get('k'), response('buffered'));
      cache.flush();
      assert.equal(count(), 1);
      assert.deepEqual(cache.get('k'), response('buffered'));
    } finally {
      peek.close();
      cache.close();
    }
  });

  it('flushes on its own once ~500 entries are buffered', () => {
    const path = freshPath();
    const cache = ResponseCache.open(path);
    const peek = new BetterSqlite3(path, { readonly: true });
    try {
      for (let i = 0; i < 500; i++) cache.set(`k${i}`, response(String(i)));
      const n = (peek.prepare('SELECT count(*) AS n FROM responses').get() as { n: number }).n;
      assert.equal(n, 500);
    } finally {
      peek.close();
      cache.close();
    }
  });

  it('flushes on its own after a short delay', async () => {
    const path = freshPath();
    const cache = ResponseCache.open(path);
    const peek = new BetterSqlite3(path, { readonly: true });
    try {
      cache.set('k', response('later'));
      const count = () => (peek.prepare('SELECT count(*) AS n FROM responses').get() as { n: number }).n;
      // Poll rather than sleep-and-assert: the timer's exact moment is not the point.
      for (let i = 0; i < 100 && count() === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(count(), 1);
    } finally {
      peek.close();
      cache.close();
    }
  });

  it('keeps only the cached subset of a provider response', () => {
    const cache = ResponseCache.open(freshPath());
    try {
      const full: ProviderResponse = { ...response('x'), attempts: 3, cached: false };
      cache.set('k', full);
      assert.deepEqual(cache.get('k'), response('x'));
      cache.set('null-output', { output: null, latencyMs: 5 });
      assert.deepEqual(cache.get('null-output'), { output: null, latencyMs: 5 });
    } finally {
      cache.close();
    }
  });

  it('never stores a response with an error', () => {
    const path = freshPath();
    const cache = ResponseCache.open(path);
    try {
      const failed: ProviderResponse = { output: null, error: 'HTTP 500', latencyMs: 10 };
      cache.set('k', failed);
      cache.set('empty-error', { output: 'partial', error: '', latencyMs: 1 });
      assert.equal(cache.get('k'), undefined);
      assert.equal(cache.get('empty-error'), undefined);
      assert.equal(cache.stats().entries, 0);
    } finally {
      cache.close();
    }
  });

  it('persists across close and reopen', () => {
    const path = freshPath();
    const first = ResponseCache.open(path);
    first.set('a', response('A'));
    first.set('b', response('B'));
    first.close();
    first.close(); // twice is harmless
    const second = ResponseCache.open(path);
    try {
      assert.deepEqual(second.get('a'), response('A'));
      assert.deepEqual(second.get('b'), response('B'));
      assert.equal(second.stats().entries, 2);
    } finally {
      second.close();
    }
    assert.throws(() => first.get('a'), /closed/);
  });

  it('treats a hit older than the TTL as a miss (injected clock)', () => {
    const clock = manualClock();
    const path = freshPath();
    const cache = ResponseCache.open(path, { ttlSeconds: 60, now: clock.now });
    try {
      cache.set('buffered', response('b'));
      cache.set('flushed', response('f'));
      cache.flush();
      cache.set('buffered', response('b'));
      clock.advance(60_000);
      assert.deepEqual(cache.get('buffered'), response('b'), 'exactly the TTL is still fresh');
      assert.deepEqual(cache.get('flushed'), response('f'));
      clock.advance(1);
      assert.equal(cache.get('buffered'), undefined, 'expired while buffered');
      assert.equal(cache.get('flushed'), undefined, 'expired on disk');
      cache.set('flushed', response('again'));
      assert.deepEqual(cache.get('flushed'), response('again'), 'a new set refreshes the entry');
    } finally {
      cache.close();
    }
  });

  it('defaults to a 14-day TTL, and a TTL of 0 never expires', () => {
    assert.equal(DEFAULT_CACHE_TTL_SECONDS, 14 * 24 * 3600);
    const path = freshPath();
    const clock = manualClock();
    const writer = ResponseCache.open(path, { now: clock.now });
    writer.set('k', response('old'));
    writer.close();
    clock.advance(DEFAULT_CACHE_TTL_SECONDS * 1000 + 1);
    const byDefault = ResponseCache.open(path, { now: clock.now });
    assert.equal(byDefault.get('k'), undefined);
    byDefault.close();
    clock.advance(10 * 365 * 24 * 3600 * 1000);
    const forever = ResponseCache.open(path, { ttlSeconds: 0, now: clock.now });
    try {
      assert.deepEqual(forever.get('k'), response('old'));
      assert.equal(forever.prune(), 0);
      assert.equal(forever.stats().expired, 0);
    } finally {
      forever.close();
    }
  });

  it('rejects a negative or non-numeric TTL', () => {
    assert.throws(() => ResponseCache.open(freshPath(), { ttlSeconds: -1 }), RangeError);
    assert.throws(() => ResponseCache.open(freshPath(), { ttlSeconds: Number.NaN }), RangeError);
  });

  it('prunes only expired entries, clears all, and reports stats', () => {
    const clock = manualClock(Date.UTC(2025, 0, 1));
    const path = freshPath();
    const cache = ResponseCache.open(path, { ttlSeconds: 3600, now: clock.now });
    try {
      const empty = cache.stats();
      assert.equal(empty.entries, 0);
      assert.equal(empty.oldest, undefined);
      assert.equal(empty.path, path);
      cache.set('old1', response('1'));
      cache.set('old2', response('2'));
      clock.advance(2 * 3600_000);
      cache.set('new', response('3'));
      const s = cache.stats();
      assert.equal(s.entries, 3);
      assert.equal(s.expired, 2);
      assert.equal(s.oldest, '2025-01-01T00:00:00.000Z');
      assert.equal(s.newest, '2025-01-01T02:00:00.000Z');
      assert.ok(s.bytes > 0);
      assert.equal(cache.prune(), 2);
      assert.equal(cache.get('old1'), undefined);
      assert.deepEqual(cache.get('new'), response('3'));
      assert.equal(cache.stats().entries, 1);
      cache.set('buffered', response('4'));
      assert.equal(cache.clear(), 1, 'buffered entries are dropped, not counted');
      assert.equal(cache.get('buffered'), undefined);
      assert.equal(cache.stats().entries, 0);
    } finally {
      cache.close();
    }
  });

  it('read-only: reads hits, ignores set, refuses clear; a missing file is an empty cache', () => {
    const path = freshPath();
    const writer = ResponseCache.open(path);
    writer.set('k', response('v'));
    writer.close();
    const ro = ResponseCache.open(path, { readonly: true });
    try {
      assert.deepEqual(ro.get('k'), response('v'));
      ro.set('new', response('x'));
      assert.equal(ro.get('new'), undefined);
      assert.throws(() => ro.clear(), /read-only/);
      assert.throws(() => ro.prune(), /read-only/);
      assert.equal(ro.stats().entries, 1);
    } finally {
      ro.close();
    }
    const missing = join(tmp.dir, 'missing', 'cache.sqlite');
    const none = ResponseCache.open(missing, { readonly: true });
    try {
      assert.equal(none.get('k'), undefined);
      assert.equal(none.stats().entries, 0);
    } finally {
      none.close();
    }
    assert.equal(existsSync(missing), false, 'read-only never creates the file');
  });

  it('a file that is not an assay cache gives a clear error naming it', () => {
    const text = join(tmp.dir, 'notes.sqlite');
    writeFileSync(
      text,
      'this is not a database, just some text that is long enough to be a header '.repeat(20),
    );
    assert.throws(
      () => ResponseCache.open(text),
      (err: unknown) =>
        err instanceof CacheFileError &&
        err.message.includes(text) &&
        /not an assay response cache/.test(err.message),
    );

    const other = join(tmp.dir, 'other.sqlite');
    const db = new BetterSqlite3(other);
    db.exec('CREATE TABLE people (name TEXT)');
    db.close();
    assert.throws(
      () => ResponseCache.open(other),
      (err: unknown) => err instanceof CacheFileError && err.message.includes(other),
    );
    assert.throws(() => ResponseCache.open(other, { readonly: true }), CacheFileError);

    const future = freshPath();
    ResponseCache.open(future).close();
    const fdb = new BetterSqlite3(future);
    fdb.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    fdb.close();
    assert.throws(
      () => ResponseCache.open(future),
      (err: unknown) => err instanceof CacheFileError && /schema version 99/.test(err.message),
    );
  });

  it('opens an empty (0-byte) file as a new cache', () => {
    const path = join(tmp.dir, 'empty.sqlite');
    writeFileSync(path, '');
    const cache = ResponseCache.open(path);
    try {
      cache.set('k', response('v'));
      assert.deepEqual(cache.get('k'), response('v'));
    } finally {
      cache.close();
    }
  });

  it('flushes buffered writes when the process exits without close()', async () => {
    const path = freshPath();
    const script = join(tmp.dir, `exit-${n++}.mjs`);
    writeFileSync(
      script,
      `import { ResponseCache } from ${JSON.stringify(moduleUrl)};\n` +
        `const c = ResponseCache.open(process.argv[2]);\n` +
        `c.set('k', { output: 'kept', latencyMs: 1 });\n` +
        `process.exit(0);\n`,
    );
    const run = await runNode([script, path]);
    assert.equal(run.code, 0, run.stderr);
    const cache = ResponseCache.open(path);
    try {
      assert.deepEqual(cache.get('k'), { output: 'kept', latencyMs: 1 });
    } finally {
      cache.close();
    }
  });

  it('does not load better-sqlite3 until a cache is opened', async () => {
    const script = join(tmp.dir, `lazy-${n++}.mjs`);
    writeFileSync(
      script,
      `import { createRequire } from 'node:module';\n` +
        `const { ResponseCache } = await import(${JSON.stringify(moduleUrl)});\n` +
        `const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('better-sqlite3'));\n` +
        `const before = loaded();\n` +
        `ResponseCache.open(process.argv[2]).close();\n` +
        `console.log(JSON.stringify({ before, after: loaded() }));\n`,
    );
    const run = await runNode([script, freshPath()]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { before: false, after: true });
  });
});

// The compiled module, wherever this compiled test lives (dist/ or another --outDir).
const moduleUrl = new URL('../../src/engine/cache.js', import.meta.url).href;

describe('two processes sharing one cache', () => {
  it('both write concurrently (distinct and overlapping keys); every entry lands and reads back', async () => {
    const path = freshPath();
    const script = join(tmp.dir, 'writer.mjs');
    // Each writer interleaves small batches, explicit flushes, reads of the other's keys and
    // timer-driven flushes, so the two really contend for the write lock.
    writeFileSync(
      script,
      `import { ResponseCache } from ${JSON.stringify(moduleUrl)};
const [path, id, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 2));
const cache = ResponseCache.open(path);
const other = id === 'a' ? 'b' : 'a';
let seen = 0;
for (let i = 0; i < 2000; i++) {
  cache.set(\`\${id}-\${i}\`, { output: \`\${id} answer \${i}\`, usage: { total: i }, latencyMs: i });
  if (i < 500) cache.set(\`shared-\${i}\`, { output: \`shared \${i} from \${id}\`, latencyMs: 0 });
  if (i % 50 === 49) {
    if (i % 100 === 99) cache.flush();
    if (cache.get(\`\${other}-\${i - 49}\`)) seen++;
    await new Promise((r) => setTimeout(r, 1));
  }
}
cache.close();
console.log(JSON.stringify({ id, seen }));
`,
    );
    const startAt = String(Date.now() + 400);
    const [a, b] = await Promise.all([
      runNode([script, path, 'a', startAt]),
      runNode([script, path, 'b', startAt]),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(a.stderr, '');
    assert.equal(b.stderr, '');

    const cache = ResponseCache.open(path, { readonly: true });
    try {
      assert.equal(cache.stats().entries, 2000 + 2000 + 500);
      for (const id of ['a', 'b'])
        for (let i = 0; i < 2000; i++)
          assert.deepEqual(cache.get(`${id}-${i}`), {
            output: `${id} answer ${i}`,
            usage: { total: i },
            latencyMs: i,
          });
      for (let i = 0; i < 500; i++) {
        const hit = cache.get(`shared-${i}`);
        assert.ok(hit, `shared-${i} missing`);
        assert.match(String(hit.output), new RegExp(`^shared ${i} from [ab]$`));
      }
    } finally {
      cache.close();
    }
  });
});
