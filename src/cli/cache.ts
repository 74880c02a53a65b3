import { existsSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { CacheFileError, type CacheStats, defaultCachePath, ResponseCache } from '../engine/cache.js';
import { parseCommand, usage } from './args.js';
import { guard, intFlag } from './common.js';

const SUBCOMMANDS = ['stats', 'clear', 'prune'];

/** `assay cache stats|clear|prune`: inspect or empty the response cache. */
export async function cacheCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('cache', args);
    if (values.help) {
      process.stdout.write(usage('cache', []));
      return 0;
    }
    const [sub, ...extra] = positionals;
    if (sub === undefined) {
      process.stderr.write(usage('cache', []));
      return 2;
    }
    if (!SUBCOMMANDS.includes(sub))
      throw new InputError(`unknown cache command "${sub}"; expected stats, clear or prune`);
    if (extra.length > 0) throw new InputError(`assay cache ${sub}: unexpected argument "${extra[0]}"`);
    const ttlSeconds = intFlag('cache-ttl', values['cache-ttl'], 0);
    const path = values['cache-path'] ?? defaultCachePath(process.env, process.cwd());

    if (!existsSync(path)) {
      process.stdout.write(
        sub === 'stats'
          ? `no response cache at ${path}\n`
          : `nothing to ${sub}: no response cache at ${path}\n`,
      );
      return 0;
    }
    const cache = openForCli(path, ttlSeconds);
    try {
      if (sub === 'stats') process.stdout.write(formatStats(cache.stats()));
      else if (sub === 'clear') process.stdout.write(`removed ${plural(cache.clear())} from ${cache.path}\n`);
      else process.stdout.write(`removed ${plural(cache.prune(), 'expired entry')} from ${cache.path}\n`);
    } finally {
      cache.close();
    }
    return 0;
  });
}

/** Opens the cache; a file that is not an assay cache is a user mistake (exit 2), not a crash. */
function openForCli(path: string, ttlSeconds: number | undefined): ResponseCache {
  try {
    return ResponseCache.open(path, { ttlSeconds });
  } catch (err) {
    if (err instanceof CacheFileError) throw new InputError(err.message);
    throw err;
  }
}

function formatStats(s: CacheStats): string {
  const lines = [
    `cache:   ${s.path}`,
    `entries: ${s.entries}${s.expired > 0 ? ` (${s.expired} expired; assay cache prune removes them)` : ''}`,
    `size:    ${formatBytes(s.bytes)}`,
  ];
  if (s.oldest) lines.push(`oldest:  ${s.oldest}`);
  if (s.newest) lines.push(`newest:  ${s.newest}`);
  return `${lines.join('\n')}\n`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function plural(n: number, noun = 'entry'): string {
  return `${n} ${n === 1 ? noun : noun.replace(/y$/, 'ies')}`;
}
