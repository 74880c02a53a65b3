import { resolve } from 'node:path';
import { ScorecardBuilder } from './analysis/scorecard.js';
import { InputError } from './core/errors.js';
import { redactObject, secretValues } from './core/redact.js';
import type { Scorecard } from './core/scorecard.js';
import type { JobResult, ProviderSpec, Suite } from './core/types.js';
import { countJobs, providerKey } from './engine/plan.js';
import { runSuite } from './engine/run.js';
import { loadSuite } from './formats/detect.js';
import { createProvider, isKnownProviderId, providerPatterns } from './providers/registry.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './providers/types.js';
import type { RunManifest } from './runlog/types.js';
import { newRunId, RunWriter } from './runlog/writer.js';
import { assayVersion } from './version.js';

export const DEFAULT_MAX_CONCURRENCY = 8;

export interface EvaluateOptions {
  /** A suite file or folder (ignored when `suite` is given). */
  suitePath?: string;
  suite?: Suite;
  /** Provider ids or labels replacing the suite's providers (`-p`). */
  providers?: string[];
  maxConcurrency?: number;
  repeat?: number;
  /** Where run directories go; default `.assay/runs` under the current folder. */
  runsDir?: string;
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** The command line, recorded in the manifest (secrets redacted). */
  command?: string[];
  /** Called after each result is logged, with the running counts. */
  onProgress?: (progress: Progress) => void;
  onResult?: (result: JobResult) => void;
  /** Abort to stop scheduling; jobs in flight finish and the run is marked interrupted. */
  signal?: AbortSignal;
}

export interface Progress {
  done: number;
  planned: number;
  pass: number;
  fail: number;
  error: number;
}

export interface EvaluateResult {
  runDir: string;
  manifest: RunManifest;
  scorecard: Scorecard;
  suite: Suite;
}

/**
 * Loads a suite, runs it, and writes the run directory (manifest.json, results.jsonl,
 * scorecard.json). The library entry point behind `assay eval`.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const env = options.env ?? process.env;
  const suite = options.suite ?? (await loadSuite(options.suitePath, { env }));
  const providers = selectProviders(suite, options.providers);
  const repeat = options.repeat ?? 1;
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const providerEnv = { ...env, ...(suite.env ?? {}) };
  const secrets = secretValues(providerEnv);
  const providerContext = { env: providerEnv, maxConcurrency, retry };
  const resolved = await Promise.all(
    providers.map(async (spec) => ({ spec, provider: await createProvider(spec, providerContext) })),
  );
  const described = resolved.map((r) => ({ key: providerKey(r.spec), ...r.provider.describe() }));
  const planned = countJobs(suite, providers, { repeat });
  const manifest: RunManifest = {
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
      cases: suite.cases.length,
      prompts: suite.prompts.map((p) => ({ id: p.id, label: p.label })),
    },
    providers: redactObject(described),
    options: { repeat, maxConcurrency },
    plannedJobs: planned,
    command: redactCommand(options.command ?? []),
    cwd: process.cwd(),
    startedAt: new Date().toISOString(),
  };
  const writer = RunWriter.create(resolve(options.runsDir ?? '.assay/runs'), manifest);
  const scorecard = new ScorecardBuilder();
  const progress: Progress = { done: 0, planned, pass: 0, fail: 0, error: 0 };
  let outcome: Awaited<ReturnType<typeof runSuite>>;
  try {
    outcome = await runSuite(suite, resolved, {
      repeat,
      maxConcurrency,
      env: providerEnv,
      secrets,
      signal: options.signal,
      onResult: (result) => {
        writer.append(result);
        scorecard.add(result);
        progress.done++;
        if (result.status === 'pass') progress.pass++;
        else if (result.status === 'fail') progress.fail++;
        else if (result.status === 'error') progress.error++;
        options.onResult?.(result);
        options.onProgress?.(progress);
      },
    });
  } finally {
    writer.close();
    for (const r of resolved) await r.provider.close?.();
  }
  const card = scorecard.build();
  writer.writeJson('scorecard.json', card);
  const status = outcome.stopReason ? (outcome.interrupted ? 'interrupted' : 'aborted') : 'complete';
  writer.updateManifest({
    status,
    stopReason: outcome.stopReason,
    endedAt: new Date().toISOString(),
    counts: card.counts,
  });
  const { readManifest } = await import('./runlog/reader.js');
  return { runDir: writer.dir, manifest: readManifest(writer.dir), scorecard: card, suite };
}

/**
 * The providers to run: the suite's, or those named with `-p`. A name matching a suite provider
 * (exact id, exact label, or id ending in `:name`) keeps that provider's config.
 */
export function selectProviders(suite: Suite, overrides: string[] | undefined): ProviderSpec[] {
  if (!overrides || overrides.length === 0) return suite.providers;
  const out: ProviderSpec[] = [];
  const problems: string[] = [];
  for (const name of overrides) {
    const match =
      suite.providers.find((p) => p.id === name) ??
      suite.providers.find((p) => p.label === name) ??
      suite.providers.find((p) => p.id.endsWith(`:${name}`));
    if (match) out.push(match);
    else if (isKnownProviderId(name)) out.push({ id: name });
    else
      problems.push(
        `--provider ${name}: unknown provider; expected one of: ${providerPatterns().join(', ')}`,
      );
  }
  if (problems.length > 0)
    throw new InputError(problems.map((message) => ({ file: '', message, severity: 'error' as const })));
  return out;
}

function redactCommand(argv: string[]): string[] {
  return argv.map((a) => a.replace(/((?:api[-_]?key|token|secret|password)[^=]*=)\S+/gi, '$1[redacted]'));
}
