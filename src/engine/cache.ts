// The response cache: provider responses keyed by what was asked, kept in one SQLite file so a
// rerun (or a second assay process sharing the file) does not pay for the same call twice.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { isEmptyAnswer } from '../core/answer.js';
import { canonicalJson, sha256 } from '../core/hash.js';
import { Secrets } from '../core/secrets.js';
import type { Answer, TokenUsage } from '../core/types.js';
import { ensureDir } from '../runlog/dirs.js';

/** The part of a ProviderResponse worth keeping: a successful answer and what it cost. */
export interface CachedResponse {
  /** A structured answer (ProviderResponse.answer), kept whole. */
  answer?: Answer;
  /** A plain-text answer (the compatibility path; a grader's reply; embeddings as JSON). */
  output?: string | null;
  /** See ProviderResponse.nonText. */
  nonText?: string;
  finishReason?: string;
  usage?: TokenUsage;
  cost?: number;
  /** The latency of the original call, kept for information (a hit itself costs ~nothing). */
  latencyMs: number;
}

/** What `set` accepts: a CachedResponse, or a whole ProviderResponse (only the cached subset is kept). */
export type CacheableResponse = CachedResponse & { error?: string };

/** Options of `ResponseCache.open`. */
export interface ResponseCacheOptions {
  /** A hit older than this is a miss. Default 14 days (as promptfoo); 0 = never expires. */
  ttlSeconds?: number;
  /** Read hits but never write (`set` is a no-op; `clear`/`prune` throw). A missing file is an empty cache. */
  readonly?: boolean;
  /** The clock, in ms since the epoch (injectable so tests control expiry). */
  now?: () => number;
  /**
   * The run's secrets (API keys and the like): an answer holding one, in any spelling, is never
   * stored, so a key a prompt rendered and the model echoed does not reach the cache file.
   */
  secrets?: Secrets;
}

/** What `assay cache stats` shows. */
export interface CacheStats {
  entries: number;
  /** On-disk size: the database file plus its write-ahead log. */
  bytes: number;
  /** ISO time of the oldest / newest entry. */
  oldest?: string;
  newest?: string;
  /** Entries older than the TTL (what `prune` would remove). */
  expired: number;
  path: string;
}

/** The cache file is not an assay cache, is corrupt, or cannot be opened. The CLI reports it with exit 2. */
export class CacheFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CacheFileError';
  }
}

/** The default TTL: 14 days, as promptfoo. */
export const DEFAULT_CACHE_TTL_SECONDS = 14 * 24 * 60 * 60;

/** Buffered writes are flushed in one transaction when this many are waiting… */
const FLUSH_ENTRIES = 500;
/** …or when the oldest has waited this long. */
const FLUSH_DELAY_MS = 200;
/** How long a writer waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 5_000;
const SCHEMA_VERSION = '1';
const CACHE_KIND = 'assay-response-cache';

/** Where the cache lives unless told otherwise: `$ASSAY_CACHE_PATH`, else `.assay/cache.sqlite` under cwd. */
export function defaultCachePath(env: Record<string, string | undefined>, cwd: string): string {
  const fromEnv = env.ASSAY_CACHE_PATH;
  return fromEnv ? resolve(cwd, fromEnv) : join(cwd, '.assay', 'cache.sqlite');
}

/**
 * The cache key of one provider call. The trial is part of it on purpose: `--repeat N` samples N
 * times, and a rerun reuses all N samples instead of N copies of the first.
 */
export function cacheKey(
  providerIdentity: Record<string, unknown>,
  request: { messages: unknown; params: Record<string, unknown> },
  trial: number,
  repetition = 0,
): string {
  // A repetition of a conversation is another sample of the same request. The first keeps the key
  // it always had, so caches filled before repetitions existed still answer.
  return sha256(
    canonicalJson({
      v: 1,
      provider: providerIdentity,
      messages: request.messages,
      params: request.params,
      trial,
      ...(repetition > 0 ? { repetition } : {}),
    }),
  );
}

/**
 * The cache key of a call whose provider says what it would send (Provider.requestKey: endpoint,
 * non-secret headers, final body). Trial and repetition as in {@link cacheKey}.
 */
export function requestCacheKey(request: unknown, trial: number, repetition = 0): string {
  // v 3: answers are kept structured (ProviderResponse.answer). An entry of v 2 held the answer as
  // text, which a provider on the structure would read differently: it is never found again.
  return sha256(canonicalJson({ v: 3, request, trial, ...(repetition > 0 ? { repetition } : {}) }));
}

type SqliteModule = typeof BetterSqlite3;
type Db = BetterSqlite3.Database;

interface Statements {
  /** Plucks the value of a key written at or after a time, so expiry costs nothing extra. */
  get: BetterSqlite3.Statement<[string, number], string>;
  put: BetterSqlite3.Statement<[string, string, number], unknown>;
  stats: BetterSqlite3.Statement<[], { n: number; oldest: number | null; newest: number | null }>;
  countBefore: BetterSqlite3.Statement<[number], { n: number }>;
  deleteBefore: BetterSqlite3.Statement<[number], unknown>;
  deleteAll: BetterSqlite3.Statement<[], unknown>;
}

interface Pending {
  value: string;
  createdAt: number;
}

// Caches still holding buffered writes when the process exits get a last synchronous flush.
const openCaches = new Set<ResponseCache>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const cache of [...openCaches]) {
      try {
        cache.close();
      } catch {
        // The process is ending; a write that cannot land now is a cache miss next time, nothing worse.
      }
    }
  });
}

/**
 * A response cache in one SQLite file, safe to share between processes (WAL: readers never block,
 * writers wait for each other). Writes are buffered and land in one transaction per ~500 entries
 * or ~200 ms, so filling the cache costs no disk sync per response. Responses with an `error` are
 * never stored: a failure must be retried on the next run, not replayed.
 */
export class ResponseCache {
  readonly path: string;
  readonly readonly: boolean;
  private readonly db: Db;
  private readonly stmts: Statements;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly pending = new Map<string, Pending>();
  private readonly writeBatch: (entries: Array<[string, Pending]>) => void;
  private timer: NodeJS.Timeout | undefined;
  private backingOff = false;
  private closed = false;
  /** See ResponseCacheOptions.secrets. */
  private secrets = new Secrets();

  private constructor(path: string, db: Db, readonly: boolean, ttlMs: number, now: () => number) {
    this.path = path;
    this.db = db;
    this.readonly = readonly;
    this.ttlMs = ttlMs;
    this.now = now;
    this.stmts = {
      get: db
        .prepare<[string, number], string>('SELECT value FROM responses WHERE key = ? AND created_at >= ?')
        .pluck(),
      put: db.prepare<[string, string, number]>(
        'INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)',
      ),
      stats: db.prepare<[], { n: number; oldest: number | null; newest: number | null }>(
        'SELECT count(*) AS n, min(created_at) AS oldest, max(created_at) AS newest FROM responses',
      ),
      countBefore: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM responses WHERE created_at < ?',
      ),
      deleteBefore: db.prepare<[number]>('DELETE FROM responses WHERE created_at < ?'),
      deleteAll: db.prepare<[]>('DELETE FROM responses'),
    };
    const tx = db.transaction((entries: Array<[string, Pending]>) => {
      for (const [key, p] of entries) this.stmts.put.run(key, p.value, p.createdAt);
    });
    // IMMEDIATE takes the write lock up front, so a concurrent writer waits (busy_timeout)
    // instead of failing when a read lock cannot be upgraded.
    this.writeBatch = (entries) => tx.immediate(entries);
  }

  /** Opens (creating if needed) the cache at `path`; throws CacheFileError for a file that is not an assay cache. */
  static open(path: string, options: ResponseCacheOptions = {}): ResponseCache {
    const ttlSeconds = options.ttlSeconds ?? DEFAULT_CACHE_TTL_SECONDS;
    if (!Number.isFinite(ttlSeconds) || ttlSeconds < 0)
      throw new RangeError(`cache TTL ${ttlSeconds}: expected a number of seconds ≥ 0`);
    const now = options.now ?? Date.now;
    const readonly = options.readonly === true;
    const absolute = resolve(path);
    // Loaded here, not at import, so commands that never touch the cache never load the native module.
    const Database = createRequire(import.meta.url)('better-sqlite3') as SqliteModule;

    let db: Db;
    if (readonly && fileSize(absolute) === 0) {
      // Nothing to read (no file, or an empty one): an empty in-memory cache keeps every code path the same.
      db = new Database(':memory:');
      initSchema(db, absolute, false);
    } else {
      if (!readonly) ensureDir(dirname(absolute));
      try {
        db = new Database(absolute, { readonly, fileMustExist: readonly, timeout: BUSY_TIMEOUT_MS });
      } catch (err) {
        throw new CacheFileError(`cannot open response cache ${absolute}: ${errorMessage(err)}`);
      }
      try {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        if (!readonly) {
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = NORMAL');
        }
        initSchema(db, absolute, readonly);
      } catch (err) {
        db.close();
        throw toCacheFileError(err, absolute);
      }
    }
    const cache = new ResponseCache(absolute, db, readonly, ttlSeconds * 1000, now);
    // The caller's list itself: credentials of providers built later in the run count too.
    if (options.secrets) cache.secrets = options.secrets;
    openCaches.add(cache);
    installExitHook();
    return cache;
  }

  /** The cached response for `key`, or undefined on a miss (absent, or older than the TTL). */
  get(key: string): CachedResponse | undefined {
    this.assertOpen();
    // The write buffer first: an entry set moments ago must be a hit before it is flushed.
    const pending = this.pending.get(key);
    if (pending) return pending.createdAt >= this.freshSince() ? parseValue(pending.value) : undefined;
    const value = this.stmts.get.get(key, this.freshSince());
    return value === undefined ? undefined : parseValue(value);
  }

  /**
   * Stores a response (buffered; see the class comment). A response carrying `error` is refused
   * (a no-op): failures are transient and must be retried next run. In read-only mode also a no-op.
   */
  set(key: string, response: CacheableResponse): void {
    this.assertOpen();
    // An answer with nothing in it (no text, no tool call) is more likely a passing fault than the
    // model's considered reply: it is scored as the empty text it is, but not kept to be replayed.
    if (this.readonly || response.error !== undefined || response.nonText === 'nothing') return;
    if (response.answer !== undefined && isEmptyAnswer(response.answer)) return;
    const kept: CachedResponse = {
      answer: response.answer,
      output: response.output,
      nonText: response.nonText,
      finishReason: response.finishReason,
      usage: response.usage,
      cost: response.cost,
      latencyMs: response.latencyMs,
    };
    const value = JSON.stringify(kept);
    // (The answer's text is in its JSON too, in every spelling the boundary knows.)
    if (!this.secrets.empty && this.secrets.foundIn(value)) return;
    this.pending.set(key, { value, createdAt: this.now() });
    // After a failed write, wait for the retry timer instead of stalling on the lock at every set.
    if (this.pending.size >= FLUSH_ENTRIES && !this.backingOff) this.tryFlush();
    else this.schedule();
  }

  /** Writes every buffered entry now, in one transaction. */
  flush(): void {
    this.assertOpen();
    this.cancelTimer();
    if (this.pending.size === 0) return;
    this.writeBatch([...this.pending]);
    // Cleared only after the commit: a failed write keeps the entries buffered for the next attempt.
    this.pending.clear();
    this.backingOff = false;
  }

  /** Flushes and closes the file. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      openCaches.delete(this);
      this.db.close();
    }
  }

  /** Entry count, size on disk, oldest/newest entry times, expired count and the path. */
  stats(): CacheStats {
    this.assertOpen();
    this.flush();
    const row = this.stmts.stats.get()!;
    const expired = this.ttlMs > 0 ? this.stmts.countBefore.get(this.now() - this.ttlMs)!.n : 0;
    return {
      entries: row.n,
      bytes: fileSize(this.path) + fileSize(`${this.path}-wal`),
      oldest: row.oldest === null ? undefined : new Date(row.oldest).toISOString(),
      newest: row.newest === null ? undefined : new Date(row.newest).toISOString(),
      expired,
      path: this.path,
    };
  }

  /** Removes every entry; returns how many were removed. */
  clear(): number {
    this.assertWritable('clear');
    this.pending.clear();
    this.cancelTimer();
    const removed = Number(this.stmts.deleteAll.run().changes ?? 0);
    if (removed > 0) this.compact();
    return removed;
  }

  /** Removes the entries older than the TTL (none when the TTL is 0); returns how many. */
  prune(): number {
    this.assertWritable('prune');
    this.flush();
    if (this.ttlMs === 0) return 0;
    const removed = Number(this.stmts.deleteBefore.run(this.now() - this.ttlMs).changes ?? 0);
    if (removed > 0) this.compact();
    return removed;
  }

  /** Entries written before this time are expired. */
  private freshSince(): number {
    return this.ttlMs === 0 ? Number.MIN_SAFE_INTEGER : this.now() - this.ttlMs;
  }

  /** Flushes, but never throws: a run must not fail over a cache write. */
  private tryFlush(): void {
    try {
      this.flush();
    } catch {
      // Another process held the write lock past busy_timeout. The entries stay buffered and are
      // retried by the timer.
      this.backingOff = true;
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) this.tryFlush();
    }, FLUSH_DELAY_MS);
    // A pending flush must not keep the process alive; close() and the exit hook write the rest.
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Gives freed pages back to the file system after a large delete; skipped if another process holds the file. */
  private compact(): void {
    try {
      this.db.exec('VACUUM');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Best effort: the entries are gone either way; SQLite reuses the free pages.
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`response cache ${this.path} is closed`);
  }

  private assertWritable(what: string): void {
    this.assertOpen();
    if (this.readonly) throw new Error(`cannot ${what} response cache ${this.path}: opened read-only`);
  }
}

/**
 * Creates the schema in a new file, or checks that an existing one is an assay cache of this
 * schema version. Runs in one IMMEDIATE transaction so two processes creating the same new file
 * do not race.
 */
function initSchema(db: Db, path: string, readonly: boolean): void {
  const check = (): void => {
    const tables = new Set(
      (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
      ).map((t) => t.name),
    );
    if (tables.size === 0 && !readonly) {
      db.exec(
        'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);' +
          'CREATE TABLE responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL);',
      );
      const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
      put.run('kind', CACHE_KIND);
      put.run('schema_version', SCHEMA_VERSION);
      return;
    }
    if (!tables.has('meta') || !tables.has('responses'))
      throw new CacheFileError(
        `${path} is not an assay response cache (it is a SQLite file with other tables)`,
      );
    const meta = new Map(
      (db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [
        r.key,
        r.value,
      ]),
    );
    if (meta.get('kind') !== CACHE_KIND)
      throw new CacheFileError(`${path} is not an assay response cache (its meta table is not assay's)`);
    const version = meta.get('schema_version');
    if (version !== SCHEMA_VERSION)
      throw new CacheFileError(
        `${path}: response cache schema version ${version ?? '(none)'}, this assay reads version ${SCHEMA_VERSION}; ` +
          'delete the file or use another --cache-path',
      );
  };
  if (readonly) check();
  else db.transaction(check).immediate();
}

function toCacheFileError(err: unknown, path: string): Error {
  if (err instanceof CacheFileError) return err;
  const code = (err as { code?: unknown })?.code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return new CacheFileError(`${path} is not an assay response cache (${errorMessage(err)})`);
  return new CacheFileError(`cannot open response cache ${path}: ${errorMessage(err)}`);
}

function parseValue(value: string): CachedResponse {
  return JSON.parse(value) as CachedResponse;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
