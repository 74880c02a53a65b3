// `--output-format promptfoo`: promptfoo's results JSON (its `-o results.json`), written from the
// run directory so tools built on promptfoo's output keep working. Results stream from the run log;
// only per-column totals are held in memory.
import { ColumnNamedScores } from '../../analysis/derived.js';
import type { JobResult } from '../../core/types.js';
import { type FileSink, type OutputRun, registerOutputFormat } from '../../report/outputs.js';
import { assayVersion } from '../../version.js';
import {
  addGradingTokens,
  addTokens,
  countsAsAssertion,
  emptyTokens,
  FAILURE,
  promptfooResult,
  type TokenTotals,
  tokensOf,
  writtenTokens,
} from './report-rows.js';

type RunManifest = OutputRun['manifest'];

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

/** Adds a row to its column's metrics, as promptfoo tallies its rows (from the row as written). */
function addToColumn(column: Column, r: JobResult, row: Record<string, unknown>): void {
  const m = column.metrics;
  m.score += r.score;
  if (row.success === true) m.testPassCount++;
  else if (row.failureReason === FAILURE.ERROR) m.testErrorCount++;
  else m.testFailCount++;
  const grading = row.gradingResult as {
    componentResults?: Record<string, unknown>[];
    namedScoreWeights?: Record<string, number>;
  } | null;
  for (const c of grading?.componentResults ?? []) {
    if (!countsAsAssertion(c)) continue;
    if (c.pass === true) m.assertPassCount++;
    else m.assertFailCount++;
  }
  m.totalLatencyMs += r.answer.latencyMs;
  addTokens(m.tokenUsage, tokensOf(r));
  addGradingTokens(m.tokenUsage, r);
  column.named.add({
    namedScores: row.namedScores as Record<string, number>,
    namedScoreWeights: grading?.namedScoreWeights,
    verdicts: r.verdicts,
  });
  m.cost += r.answer.cost ?? 0;
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
async function columnsOf(run: OutputRun): Promise<Map<string, Column>> {
  const { manifest } = run;
  const seen = new Set<string>();
  for await (const r of run.results()) {
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

/** Indents a JSON text (all but its first line) to sit at `depth` levels. */
function nested(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

/** Writes promptfoo's results JSON for a run directory. */
export async function writePromptfooJson(run: OutputRun, out: FileSink): Promise<void> {
  const { manifest } = run;
  const columns = await columnsOf(run);
  const columnIndex = new Map([...columns.keys()].map((k, i) => [k, i]));
  // promptfoo gives a provider without a label the empty label (its UI then shows the id).
  const providers = new Map(
    manifest.providers.map((p) => {
      const key = String(p.key ?? p.id);
      const id = String(p.id ?? key);
      return [key, { id, label: id === key ? '' : key }];
    }),
  );
  const promptConfigs = new Map(manifest.suite.prompts.map((p) => [p.id, p.config]));
  const threadVars = new Map(manifest.suite.prompts.map((p) => [p.id, p.threadVar]));
  const stats = { successes: 0, failures: 0, errors: 0, tokenUsage: emptyTokens() };
  await out.write(
    `{\n  "evalId": ${JSON.stringify(manifest.runId)},\n  "results": {\n    "version": 3,\n    "timestamp": ${JSON.stringify(manifest.startedAt)},\n    "results": [`,
  );
  let first = true;
  for await (const r of run.results()) {
    const id = `${r.providerId}\u0000${r.promptId}`;
    const row = promptfooResult(r, {
      promptIdx: columnIndex.get(id) ?? 0,
      repeat: manifest.options.repeat,
      provider: providers.get(r.providerId) ?? { id: r.providerId, label: '' },
      promptConfig: promptConfigs.get(r.promptId),
      threadVar: threadVars.get(r.promptId),
    });
    const column = columns.get(id);
    if (column) addToColumn(column, r, row);
    if (row.success === true) stats.successes++;
    else if (row.failureReason === FAILURE.ERROR) stats.errors++;
    else stats.failures++;
    addTokens(stats.tokenUsage, tokensOf(r));
    addGradingTokens(stats.tokenUsage, r);
    await out.write(`${first ? '\n' : ',\n'}      ${nested(row, 3)}`);
    first = false;
  }
  const prompts = manifest.suite.prompts;
  const completed = [...columns.values()].map((c) => {
    const prompt = prompts.find((p) => p.id === c.promptId);
    return {
      raw: prompt?.raw ?? prompt?.label ?? c.promptId,
      label: prompt?.label ?? c.promptId,
      id: c.promptId,
      ...(prompt?.config ? { config: prompt.config } : {}),
      provider: c.providerKey,
      metrics: { ...c.metrics, tokenUsage: writtenTokens(c.metrics.tokenUsage) },
    };
  });
  const durationMs =
    manifest.endedAt !== undefined
      ? Date.parse(manifest.endedAt) - Date.parse(manifest.startedAt)
      : undefined;
  const config = {
    description: manifest.suite.name,
    prompts: prompts.map((p) => p.raw ?? p.label),
    providers: [...providers.values()].map((p) => (p.label === '' ? { id: p.id } : p)),
  };
  await out.write(
    `${first ? '' : '\n    '}],\n    "prompts": ${nested(completed, 2)},\n    "stats": ${nested({ ...stats, tokenUsage: writtenTokens(stats.tokenUsage), ...(durationMs !== undefined ? { durationMs } : {}) }, 2)}\n  },\n` +
      `  "config": ${nested(config, 1)},\n  "shareableUrl": null,\n` +
      `  "metadata": ${nested({ assayVersion: assayVersion(), evaluationCreatedAt: manifest.startedAt, exportedAt: new Date().toISOString(), author: null }, 1)}\n}\n`,
  );
}

registerOutputFormat({
  name: 'promptfoo',
  // Only by name: `.json` stays assay's own format.
  layout: 'file',
  extensions: [],
  description: "promptfoo's results JSON: evalId, results.results[] (EvaluateResult rows), results.stats",
  write: writePromptfooJson,
});
