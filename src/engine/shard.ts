import { InputError } from '../core/errors.js';
import type { Job } from '../core/types.js';

/** One share of a run's jobs: shard `index` (0-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/**
 * Whether a job belongs to a shard. Decided by a hash alone, so every machine of a sharded run
 * agrees without talking to the others, and each job lands in exactly one shard: the job key, or,
 * for a job judged together with others (cross-row assertions), its group key, so a shard always
 * holds whole groups.
 */
export function inShard(job: Pick<Job, 'key' | 'group'>, shard: Shard): boolean {
  const key = job.group ?? job.key;
  return Number.parseInt(key.slice(0, 8), 16) % shard.count === shard.index;
}

/**
 * Parses `--shard i/n` (1-based i, as CI matrices count) into a Shard. `i` may also come from the
 * environment: `--shard $JOB_COMPLETION_INDEX/n` with a 0-based Kubernetes index is written `k8s/n`.
 */
export function parseShard(text: string, env: Record<string, string | undefined> = process.env): Shard {
  const m = /^(\d+|k8s)\/(\d+)$/.exec(text.trim());
  if (!m) throw new InputError(`--shard ${text}: expected i/n with 1 ≤ i ≤ n (e.g. 2/4), or k8s/n`);
  const count = Number(m[2]);
  let index: number;
  if (m[1] === 'k8s') {
    const raw = env.JOB_COMPLETION_INDEX;
    if (raw === undefined || !/^\d+$/.test(raw)) {
      throw new InputError(
        `--shard ${text}: JOB_COMPLETION_INDEX is not set to a whole number (it is set by a Kubernetes Indexed Job)`,
      );
    }
    index = Number(raw);
  } else index = Number(m[1]) - 1;
  if (count < 1 || index < 0 || index >= count)
    throw new InputError(`--shard ${text}: expected i/n with 1 ≤ i ≤ n`);
  return { index, count };
}
