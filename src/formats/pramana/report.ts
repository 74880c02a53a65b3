// pramana's results file (`--output-format pramana`): the JSON array of `EvalResults` run blocks
// that `pramana run --output` writes and `pramana submit` reads, one block per tier, model and
// trial, written as Python's `json.dumps(runs, indent=2)` writes it.

import { aFormat } from '../../core/printable.js';
import { pyFloat, pyJsonDumps } from '../../core/python/json-dumps.js';
import type { JobResult } from '../../core/types.js';
import { type FileSink, type OutputRun, type RunShape, registerOutputFormat } from '../../report/outputs.js';
import { pramanaResultHash } from './hash.js';
import { pramanaNative } from './native.js';

type RunManifest = OutputRun['manifest'];

interface Block {
  tier: string;
  modelId: string;
  results: Record<string, unknown>[];
  passed: number;
  skipped: number;
}

/** A timestamp as pydantic serialises a UTC datetime: microseconds and `Z`. */
export function pydanticTimestamp(iso: string): string {
  const d = new Date(iso);
  const ms = String(d.getUTCMilliseconds()).padStart(3, '0');
  return `${d.toISOString().slice(0, 19)}.${ms}000Z`;
}

/** The model id pramana would record: the provider's model name when it has one, else its id. */
function modelIdOf(manifest: RunManifest, providerKey: string): string {
  const p = manifest.providers.find((x) => x.key === providerKey);
  return typeof p?.model === 'string' ? p.model : providerKey;
}

/**
 * One result as pramana's `TestResult`. A job assay records as an error (where pramana would have
 * stopped the run, or the model call failed) keeps the shape pramana's tools parse: not passed,
 * score null, and details `{error, assay_status: "error"}`.
 */
function testResult(
  r: JobResult,
  testId: string,
  modelId: string,
): { entry: Record<string, unknown>; skipped: boolean } {
  const output = r.output ?? '';
  const verdict = r.verdicts[0];
  let passed = false;
  let score: unknown = null;
  let details: Record<string, unknown>;
  if (r.status === 'error') details = { error: r.error ?? r.reason, assay_status: 'error' };
  else if (r.status === 'skip') details = { skipped: true, reason: verdict?.reason ?? r.reason };
  else {
    passed = r.status === 'pass';
    score = pyFloat(passed ? 1 : 0);
    details = verdict?.details ?? {};
  }
  return {
    entry: {
      test_id: testId,
      output,
      assertion_result: { passed, details },
      latency_ms: Math.round(r.answer.latencyMs),
      result_hash: pramanaResultHash(modelId, testId, output),
      score,
    },
    skipped: r.status === 'skip',
  };
}

function checkPramanaRun(run: RunShape): string | undefined {
  if (!pramanaNative.maybe(run.native))
    return `--output-format pramana needs a pramana suite; this run is of ${aFormat(run.format)} suite`;
  return undefined;
}

async function writePramanaResults(run: OutputRun, out: FileSink): Promise<void> {
  const { manifest } = run;
  // The host checked the run's shape (checkPramanaRun) before calling the writer.
  const native = pramanaNative.read(manifest.suite.native).pramana;
  // Bounded by the suite: pramana tiers hold tens of tests, times models and trials.
  const blocks = new Map<string, Block>();
  for await (const r of run.results()) {
    const tier = String(r.case.metadata?.tier ?? native.tiers[0]?.name);
    const testId = String(r.case.metadata?.pramana_id ?? r.case.description ?? r.caseId);
    const modelId = modelIdOf(manifest, r.providerId);
    const key = `${tier}\u0000${r.providerId}\u0000${r.trial}`;
    let block = blocks.get(key);
    if (!block) {
      block = { tier, modelId, results: [], passed: 0, skipped: 0 };
      blocks.set(key, block);
    }
    const { entry, skipped } = testResult(r, testId, modelId);
    block.results.push(entry);
    if (r.status === 'pass') block.passed++;
    if (skipped) block.skipped++;
  }
  const runs = [...blocks.values()].map((b) => {
    const facts = native.tiers.find((t) => t.name === b.tier);
    const total = b.results.length;
    const scoreable = total - b.skipped;
    return {
      suite_version: facts?.suiteVersion ?? b.tier,
      suite_hash: facts?.suiteHash ?? '',
      run_metadata: {
        timestamp: pydanticTimestamp(manifest.startedAt),
        model_id: b.modelId,
        temperature: pyFloat(native.temperature),
        seed: native.seed,
        runner_version: `assay ${manifest.assayVersion}`,
        user_id: null,
        is_authenticated: false,
      },
      results: b.results,
      summary: {
        total,
        passed: b.passed,
        skipped: b.skipped,
        pass_rate: pyFloat(scoreable > 0 ? b.passed / scoreable : 0),
      },
    };
  });
  // pramana writes the file with Path.write_text(json.dumps(runs, indent=2)): no final newline.
  await out.write(pyJsonDumps(runs, { indent: 2 }));
}

registerOutputFormat({
  name: 'pramana',
  layout: 'file',
  extensions: [],
  check: checkPramanaRun,
  description: "pramana's results file: a JSON array of EvalResults blocks (one per tier, model and trial)",
  write: writePramanaResults,
});
