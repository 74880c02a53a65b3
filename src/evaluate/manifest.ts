// The manifest a new run starts with: what is run (suite, providers, options) and how many jobs.
import { caseCount } from '../core/cases.js';
import { redactObject } from '../core/redact.js';
import type { ProviderSpec, Suite } from '../core/types.js';
import { countJobs, type PlanOptions, planJobs, providerKey } from '../engine/plan.js';
import type { ResolvedProvider } from '../engine/run.js';
import { inShard, type Shard } from '../engine/shard.js';
import type { RunManifest, Selection } from '../runlog/types.js';
import { RUNLOG_VERSION } from '../runlog/version.js';
import { newRunId } from '../runlog/writer.js';
import { assayVersion } from '../version.js';

/** The run settings a manifest records (undefined or 0 ones are left out). */
export interface ManifestSettings {
  repeat: number;
  maxConcurrency: number;
  shard?: Shard;
  selection: Selection;
  delayMs?: number;
  jobTimeoutMs?: number;
  maxRunMs?: number;
  passAt?: number[];
}

/** A `running` manifest for a new run (secrets in configs, selection and command redacted). */
export function newManifest(
  suite: Suite,
  resolved: ResolvedProvider[],
  settings: ManifestSettings,
  planned: number,
  command: string[],
): RunManifest {
  const { repeat, maxConcurrency, shard, selection, delayMs, jobTimeoutMs, maxRunMs, passAt } = settings;
  const described = redactObject(
    resolved.map((r) => ({
      key: providerKey(r.spec),
      ...r.provider.describe(),
      // A provider running under a name of its own is listed by that name, with what it is.
      ...(r.spec.kind !== undefined ? { id: r.spec.id, kind: r.spec.kind } : {}),
    })),
  );
  return {
    schemaVersion: RUNLOG_VERSION,
    runId: newRunId(),
    assayVersion: assayVersion(),
    status: 'running',
    suite: {
      id: suite.id,
      name: suite.name,
      format: suite.format,
      path: suite.source.path,
      contentHash: suite.source.contentHash,
      nativeHash: suite.source.nativeHash,
      files: suite.source.files,
      ...(suite.source.outside ? { outsideFiles: suite.source.outside } : {}),
      cases: caseCount(suite),
      prompts: suite.prompts.map((p) => ({
        id: p.id,
        label: p.label,
        raw: p.raw,
        ...(p.config && Object.keys(p.config).length > 0 ? { config: redactObject(p.config) } : {}),
        ...(p.threadVar !== undefined ? { threadVar: p.threadVar } : {}),
      })),
      scoring: suite.scoring,
      ...(suite.native ? { native: suite.native } : {}),
    },
    providers: described,
    options: {
      repeat,
      maxConcurrency,
      ...(shard ? { shard } : {}),
      ...(Object.keys(selection).length > 0 ? { selection: redactObject(selection) } : {}),
      ...(delayMs ? { delayMs } : {}),
      ...(jobTimeoutMs ? { jobTimeoutMs } : {}),
      ...(maxRunMs ? { maxRunMs } : {}),
      ...(passAt && passAt.length > 0 ? { passAt } : {}),
    },
    plannedJobs: planned,
    command: redactCommand(command),
    cwd: process.cwd(),
    startedAt: new Date().toISOString(),
  };
}

/** Jobs a plan will run (in one shard, when sharded), without materialising them. */
export function countPlanned(
  suite: Suite,
  providers: ProviderSpec[],
  plan: PlanOptions,
  shard: Shard | undefined,
): number {
  if (!shard) return countJobs(suite, providers, plan);
  let n = 0;
  for (const job of planJobs(suite, providers, plan)) if (inShard(job, shard)) n++;
  return n;
}

/** The command line with the values of secret-looking flags (`--api-key=…`) redacted. */
function redactCommand(argv: string[]): string[] {
  return argv.map((a) => a.replace(/((?:api[-_]?key|token|secret|password)[^=]*=)\S+/gi, '$1[redacted]'));
}
