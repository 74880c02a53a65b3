// checkResumable: refuses to continue a run directory whose run was made from other inputs.
import { InputError } from '../core/errors.js';
import { readManifest } from '../runlog/reader.js';
import type { RunManifest } from '../runlog/types.js';

/** Refuses to resume a run made from other inputs: its results would not be the same experiment. */
export function checkResumable(runDir: string, next: RunManifest): RunManifest {
  let previous: RunManifest;
  try {
    previous = readManifest(runDir);
  } catch {
    throw new InputError({
      file: runDir,
      message: 'not a run directory (no readable manifest.json)',
      severity: 'error',
    });
  }
  const problems: string[] = [];
  if (previous.suite.contentHash !== next.suite.contentHash) {
    problems.push(
      `the suite changed since that run (content hash ${short(previous.suite.contentHash)} → ${short(next.suite.contentHash)})`,
    );
  }
  if (previous.options.repeat !== next.options.repeat) {
    problems.push(`--repeat differs (${previous.options.repeat} then, ${next.options.repeat} now)`);
  }
  const shardText = (m: RunManifest): string =>
    m.options.shard ? `${m.options.shard.index}/${m.options.shard.count}` : 'none';
  if (shardText(previous) !== shardText(next))
    problems.push(`--shard differs (${shardText(previous)} then, ${shardText(next)} now)`);
  const selectionText = (m: RunManifest): string => JSON.stringify(m.options.selection ?? {});
  if (selectionText(previous) !== selectionText(next))
    problems.push(
      `the filters or --var values differ (${selectionText(previous)} then, ${selectionText(next)} now)`,
    );
  const providerKeys = (m: RunManifest): string => JSON.stringify(m.providers);
  if (providerKeys(previous) !== providerKeys(next)) problems.push('the providers or their settings differ');
  if (problems.length > 0) {
    throw new InputError(
      problems.map((p) => ({
        file: runDir,
        message: `cannot resume: ${p}; start a new run instead`,
        severity: 'error' as const,
      })),
    );
  }
  return previous;
}

function short(hash: string): string {
  return hash.slice(0, 12);
}
