// Breakdowns of a run by its cases' metadata when its suite declares none (a promptfoo suite whose
// tests carry `metadata: {category: …}`): every key that splits the results into a few groups,
// each group with its pass rate and interval, computed by the scorecard's own code from the log.
import type { Breakdown } from '../core/scorecard.js';
import { readManifest, readResults } from '../runlog/reader.js';
import {
  computeScorecard,
  groupValue,
  MAX_METADATA_GROUPS,
  noMetadataBreakdowns,
  planPositions,
} from './scorecard.js';

export { MAX_METADATA_GROUPS };

/** At most this many keys are broken down. */
const MAX_KEYS = 6;

/**
 * The run's breakdowns by each metadata key whose values form 2 to MAX_METADATA_GROUPS groups
 * (cases without the key are the `(none)` group), in the order keys first appear; trials are
 * reduced per case as in the scorecard. Two passes over the log; memory holds the distinct values.
 */
export async function metadataBreakdowns(runDir: string): Promise<Breakdown[]> {
  // A run this process made and logged: its live card already knows there is nothing to break down.
  if (noMetadataBreakdowns(runDir)) return [];
  const values = new Map<string, Set<string> | null>();
  for await (const r of readResults(runDir)) {
    for (const key of Object.keys(r.case.metadata ?? {})) {
      if (values.get(key) === null) continue;
      const seen = values.get(key) ?? new Set<string>();
      seen.add(groupValue(r, key));
      values.set(key, seen.size > MAX_METADATA_GROUPS ? null : seen);
    }
  }
  // A key some cases lack also has the `(none)` group, which the first pass could not see.
  const keys = [...values.entries()]
    .filter((e): e is [string, Set<string>] => e[1] !== null)
    .map(([key]) => key)
    .slice(0, MAX_KEYS);
  if (keys.length === 0) return [];
  const manifest = readManifest(runDir);
  const card = await computeScorecard(
    readResults(runDir),
    { breakdowns: keys },
    [],
    manifest.options.repeat > 1,
    planPositions(
      manifest.providers.map((p) => String(p.key ?? p.id)),
      manifest.suite.prompts.map((p) => p.id),
      manifest.options.repeat,
    ),
  );
  return (card.breakdowns ?? []).filter(
    (b) => b.groups.length >= 2 && b.groups.length <= MAX_METADATA_GROUPS,
  );
}
