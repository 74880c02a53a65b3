// `--output-format promptfoo`: promptfoo's results JSON (its `-o results.json`), written from the
// run directory so tools built on promptfoo's output keep working. Results stream from the run log;
// only per-column totals are held in memory.
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { ColumnNamedScores } from '../analysis/derived.js';
import { type AssertionSpec, type JobResult, SELF_GRADER, type Verdict } from '../core/types.js';
import { readManifest, resultLinesInPlanOrder } from '../runlog/reader.js';
import type { RunManifest } from '../runlog/types.js';
import { assayVersion } from '../version.js';
import { registerOutputFormat } from './outputs.js';

/** promptfoo's ResultFailureReason. */
const FAILURE = { NONE: 0, ASSERT: 1, ERROR: 2 } as const;

interface TokenTotals {
  total: number;
  prompt: number;
  completion: number;
  cached: number;
  numRequests: number;
  /** The graders' share, as promptfoo reports it beside the answers' tokens. */
  assertions?: TokenTotals;
}

/** promptfoo's PromptMetrics for one provider × prompt column. */
interface ColumnMetrics {
  score: number;
  testPassCount: number;
  testFailCount: number;
  testErrorCount: number;
  assertPassCount: number;
  assertFailCount: number;
  totalLatencyMs: number;
  tokenUsage: TokenTotals;
  namedScores: Record<string, number>;
  namedScoresCount: Record<string, number>;
  namedScoreWeights: Record<string, number>;
  cost: number;
}

function emptyTokens(): TokenTotals {
  return { total: 0, prompt: 0, completion: 0, cached: 0, numRequests: 0 };
}

function emptyMetrics(named: ColumnNamedScores): ColumnMetrics {
  return {
    score: 0,
    testPassCount: 0,
    testFailCount: 0,
    testErrorCount: 0,
    assertPassCount: 0,
    assertFailCount: 0,
    totalLatencyMs: 0,
    tokenUsage: emptyTokens(),
    // Filled by the column's ColumnNamedScores (promptfoo's weighted totals plus derived metrics).
    namedScores: named.namedScores,
    namedScoresCount: named.namedScoresCount,
    namedScoreWeights: named.namedScoreWeights,
    cost: 0,
  };
}

/** A result's token usage in promptfoo's shape (a cached answer counts its tokens as cached). */
function tokensOf(r: JobResult): TokenTotals {
  const prompt = r.usage?.prompt ?? 0;
  const completion = r.usage?.completion ?? 0;
  const total = r.usage?.total ?? prompt + completion;
  return { total, prompt, completion, cached: r.cached ? total : 0, numRequests: r.cached ? 0 : 1 };
}

/** A result's grader tokens in promptfoo's shape (`gradingResult.tokensUsed`), or undefined. */
function gradingTokensOf(r: JobResult): TokenTotals | undefined {
  const g = r.grading;
  if (!g) return undefined;
  return {
    total: g.total,
    prompt: g.prompt,
    completion: g.completion,
    cached: g.cachedTokens,
    numRequests: g.calls - g.cached,
  };
}

/** Adds a result's grader tokens to a total's `assertions` part. */
function addGradingTokens(into: TokenTotals, r: JobResult): void {
  const t = gradingTokensOf(r);
  if (!t) return;
  into.assertions ??= emptyTokens();
  addTokens(into.assertions, t);
}

function addTokens(into: TokenTotals, t: TokenTotals): void {
  into.total += t.total;
  into.prompt += t.prompt;
  into.completion += t.completion;
  into.cached += t.cached;
  into.numRequests += t.numRequests;
}

/** An assertion as promptfoo writes it: `not-` folded into the type, the grader as `provider`. */
function promptfooAssertion(v: Verdict): Record<string, unknown> {
  const spec: AssertionSpec | undefined = v.assertion;
  if (!spec) return { type: v.type };
  const out: Record<string, unknown> = { type: spec.negate ? `not-${spec.type}` : spec.type };
  if (spec.value !== undefined) out.value = spec.value;
  if (spec.threshold !== undefined) out.threshold = spec.threshold;
  if (spec.weight !== undefined) out.weight = spec.weight;
  if (spec.metric !== undefined) out.metric = spec.metric;
  if (spec.grader && spec.grader.id !== SELF_GRADER)
    out.provider = spec.grader.config ? { id: spec.grader.id, config: spec.grader.config } : spec.grader.id;
  return out;
}

/** promptfoo's failure reason and error text for a result's status. */
function outcomeOf(r: JobResult): { success: boolean; failureReason: number; error: string | null } {
  if (r.status === 'pass') return { success: true, failureReason: FAILURE.NONE, error: null };
  if (r.status === 'error')
    return { success: false, failureReason: FAILURE.ERROR, error: r.error ?? r.reason };
  // promptfoo counts a missing output as a failure with no failure reason (§6.1).
  if (r.output === null)
    return { success: false, failureReason: FAILURE.NONE, error: r.error ?? 'No output' };
  // promptfoo has no "skipped" row: a case no assertion could judge did not pass, but nothing failed.
  if (r.status === 'skip') return { success: false, failureReason: FAILURE.NONE, error: r.reason };
  return { success: false, failureReason: FAILURE.ASSERT, error: r.reason };
}

/** One EvaluateResult (a row of promptfoo's `results.results`). */
export function promptfooResult(
  r: JobResult,
  ctx: { promptIdx: number; repeat: number; provider: { id: string; label?: string } },
): Record<string, unknown> {
  const { success, failureReason, error } = outcomeOf(r);
  const tokens = tokensOf(r);
  const assertions = r.verdicts.map(promptfooAssertion);
  const graded = r.verdicts.length > 0 || r.status === 'pass';
  const testCase: Record<string, unknown> = { vars: r.vars };
  if (r.description !== undefined) testCase.description = r.description;
  if (assertions.length > 0) testCase.assert = assertions;
  if (r.metadata) testCase.metadata = r.metadata;
  const response: Record<string, unknown> = { output: r.output };
  if (r.status === 'error' && r.error !== undefined) response.error = r.error;
  response.tokenUsage = tokens;
  if (r.cached) response.cached = true;
  if (r.cost !== undefined) response.cost = r.cost;
  if (r.finishReason !== undefined) response.finishReason = r.finishReason;
  response.latencyMs = r.latencyMs;
  return {
    id: r.key,
    ...(r.description !== undefined ? { description: r.description } : {}),
    promptIdx: ctx.promptIdx,
    testIdx: r.caseIndex * ctx.repeat + r.trial,
    testCase,
    promptId: r.promptId,
    provider: ctx.provider,
    prompt: { raw: r.prompt.text, label: r.promptLabel, id: r.promptId },
    vars: r.vars,
    response,
    error,
    failureReason,
    success,
    score: r.score,
    latencyMs: r.latencyMs,
    gradingResult: graded
      ? {
          pass: success,
          score: r.score,
          reason: r.reason,
          namedScores: r.namedScores ?? {},
          ...(r.namedScoreWeights ? { namedScoreWeights: r.namedScoreWeights } : {}),
          ...(r.grading ? { tokensUsed: gradingTokensOf(r) } : {}),
          componentResults: r.verdicts.map((v, i) => ({
            pass: v.pass,
            score: v.score,
            reason: v.error ?? v.reason,
            assertion: assertions[i],
            ...(v.namedScores ? { namedScores: v.namedScores } : {}),
          })),
        }
      : null,
    namedScores: r.namedScores ?? {},
    ...(r.cost !== undefined ? { cost: r.cost } : {}),
    metadata: r.metadata ?? {},
    tokenUsage: tokens,
  };
}

function addToColumn(column: Column, r: JobResult): void {
  const m = column.metrics;
  m.score += r.score;
  if (r.status === 'pass') m.testPassCount++;
  else if (r.status === 'error') m.testErrorCount++;
  else if (r.status === 'fail') m.testFailCount++;
  for (const v of r.verdicts) {
    if (v.skipped) continue;
    if (v.pass) m.assertPassCount++;
    else m.assertFailCount++;
  }
  m.totalLatencyMs += r.latencyMs;
  addTokens(m.tokenUsage, tokensOf(r));
  addGradingTokens(m.tokenUsage, r);
  column.named.add(r);
  m.cost += r.cost ?? 0;
}

interface Column {
  providerKey: string;
  promptId: string;
  named: ColumnNamedScores;
  metrics: ColumnMetrics;
}

function newColumn(providerKey: string, promptId: string, manifest: RunManifest): Column {
  const named = new ColumnNamedScores(manifest.suite.scoring?.derivedMetrics);
  return { providerKey, promptId, named, metrics: emptyMetrics(named) };
}

/** The provider × prompt columns present in the run, in plan order (provider, then prompt). */
async function columnsOf(runDir: string, manifest: RunManifest): Promise<Map<string, Column>> {
  const seen = new Set<string>();
  for await (const line of resultLinesInPlanOrder(runDir)) {
    const r = JSON.parse(line) as JobResult;
    seen.add(`${r.providerId}\u0000${r.promptId}`);
  }
  const columns = new Map<string, Column>();
  const keys = manifest.providers.map((p) => String(p.key ?? p.id));
  for (const key of keys) {
    for (const prompt of manifest.suite.prompts) {
      const id = `${key}\u0000${prompt.id}`;
      if (seen.delete(id)) columns.set(id, newColumn(key, prompt.id, manifest));
    }
  }
  // Results of providers or prompts the manifest does not list (a merged run) go last.
  for (const id of seen) {
    const [providerKey, promptId] = id.split('\u0000');
    columns.set(id, newColumn(providerKey, promptId, manifest));
  }
  return columns;
}

async function put(out: WriteStream, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Indents a JSON text (all but its first line) to sit at `depth` levels. */
function nested(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

/** Writes promptfoo's results JSON for a run directory. */
export async function writePromptfooJson(runDir: string, out: WriteStream): Promise<void> {
  const manifest = readManifest(runDir);
  const columns = await columnsOf(runDir, manifest);
  const columnIndex = new Map([...columns.keys()].map((k, i) => [k, i]));
  const providers = new Map(
    manifest.providers.map((p) => {
      const key = String(p.key ?? p.id);
      const id = String(p.id ?? key);
      return [key, id === key ? { id } : { id, label: key }];
    }),
  );
  const stats = { successes: 0, failures: 0, errors: 0, tokenUsage: emptyTokens() };
  await put(
    out,
    `{\n  "evalId": ${JSON.stringify(manifest.runId)},\n  "results": {\n    "version": 3,\n    "timestamp": ${JSON.stringify(manifest.startedAt)},\n    "results": [`,
  );
  let first = true;
  for await (const line of resultLinesInPlanOrder(runDir)) {
    const r = JSON.parse(line) as JobResult;
    const id = `${r.providerId}\u0000${r.promptId}`;
    const row = promptfooResult(r, {
      promptIdx: columnIndex.get(id) ?? 0,
      repeat: manifest.options.repeat,
      provider: providers.get(r.providerId) ?? { id: r.providerId },
    });
    const column = columns.get(id);
    if (column) addToColumn(column, r);
    if (r.status === 'pass') stats.successes++;
    else if (r.status === 'error') stats.errors++;
    else if (r.status === 'fail') stats.failures++;
    addTokens(stats.tokenUsage, row.tokenUsage as TokenTotals);
    addGradingTokens(stats.tokenUsage, r);
    await put(out, `${first ? '\n' : ',\n'}      ${nested(row, 3)}`);
    first = false;
  }
  const prompts = manifest.suite.prompts;
  const completed = [...columns.values()].map((c) => {
    const prompt = prompts.find((p) => p.id === c.promptId);
    return {
      raw: prompt?.raw ?? prompt?.label ?? c.promptId,
      label: prompt?.label ?? c.promptId,
      id: c.promptId,
      provider: c.providerKey,
      metrics: c.metrics,
    };
  });
  const durationMs =
    manifest.endedAt !== undefined
      ? Date.parse(manifest.endedAt) - Date.parse(manifest.startedAt)
      : undefined;
  const config = {
    description: manifest.suite.name,
    prompts: prompts.map((p) => p.raw ?? p.label),
    providers: [...providers.values()],
  };
  await put(
    out,
    `${first ? '' : '\n    '}],\n    "prompts": ${nested(completed, 2)},\n    "stats": ${nested({ ...stats, ...(durationMs !== undefined ? { durationMs } : {}) }, 2)}\n  },\n` +
      `  "config": ${nested(config, 1)},\n  "shareableUrl": null,\n` +
      `  "metadata": ${nested({ assayVersion: assayVersion(), evaluationCreatedAt: manifest.startedAt, exportedAt: new Date().toISOString(), author: null }, 1)}\n}\n`,
  );
}

registerOutputFormat({
  name: 'promptfoo',
  // Only by name: `.json` stays assay's own format.
  extensions: [],
  description: "promptfoo's results JSON: evalId, results.results[] (EvaluateResult rows), results.stats",
  async write(runDir, _scorecard, out) {
    await writePromptfooJson(runDir, out);
  },
});
