// promptfoo's results JSON for assert-sets (flattened component results and the counts promptfoo
// derives from them), column named metrics (spec §6.2), the test case as promptfoo echoes it
// (threshold, options, prompt config), and a row whose every assertion skipped.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scorecardOfRun } from '../../../src/analysis/scorecard.js';
import { outputFormatNamed, outputRun, writeOutput } from '../../../src/outputs.js';
import type { RunManifest } from '../../../src/runlog/types.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { checkResult, type Json } from '../../support/promptfoo-json.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-pfsets-');
after(() => tmp.cleanup());

const NO_TOKENS = { total: 0, prompt: 0, completion: 0, cached: 0, numRequests: 0 };

describe('--output-format promptfoo with assert-sets and weighted metrics', () => {
  let out: Json;
  let rows: Json[];

  before(async () => {
    const dir = join(tmp.dir, 'sets');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `description: sets
prompts:
  - {raw: 'say {{q}}', label: p, config: {top_p: 0.5}}
providers: [echo]
tests:
  - description: set passes
    vars: {q: a}
    threshold: 0.5
    options: {prefix: 'P ', temperature: 0.3}
    assert:
      - {type: contains, value: a}
      - type: assert-set
        metric: set
        threshold: 0.5
        assert:
          - {type: contains, value: a, metric: m, weight: 2}
          - {type: contains, value: zzz, metric: m}
          - {type: icontains, value: A}
  - description: set fails
    vars: {q: b}
    assert:
      - type: assert-set
        assert:
          - {type: contains, value: zzz}
          - {type: contains, value: b}
      - {type: contains, value: b, metric: m, weight: 3}
`,
    );
    const run = await runCli(['eval', '--no-progress', '-o', 'pf.json', '--output-format', 'promptfoo'], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(run.code, 1, run.stderr);
    out = JSON.parse(readFileSync(join(dir, 'pf.json'), 'utf8'));
    rows = out.results.results;
    for (const r of rows) checkResult(r);
  });

  it('flattens a set into its own result followed by its members’ results, as promptfoo does', () => {
    const [first, second] = rows;
    assert.equal(first.success, true);
    assert.equal(first.score, 0.875);
    const components = first.gradingResult.componentResults;
    assert.deepEqual(
      components.map((c: Json) => [c.assertion?.type ?? 'set', c.pass]),
      [
        ['contains', true],
        ['set', true],
        ['contains', true],
        ['contains', false],
        ['icontains', true],
      ],
    );
    const set = components[1];
    assert.equal('assertion' in set, false, 'promptfoo’s set result names no assertion');
    assert.equal(set.score, 0.75);
    assert.deepEqual(set.metadata, {
      assertionSet: { type: 'assert-set', assertionCount: 3, metric: 'set', threshold: 0.5 },
    });
    assert.deepEqual(set.namedScores, { m: 2 / 3 });
    assert.deepEqual(set.namedScoreWeights, { m: 3 });
    assert.deepEqual(set.componentResults, components.slice(2));
    assert.deepEqual(first.namedScores, { set: 0.75, m: 2 / 3 });
    assert.deepEqual(first.gradingResult.namedScoreWeights, { set: 1, m: 3 });
    assert.equal(second.success, false);
    assert.equal(second.failureReason, 1);
    assert.deepEqual(
      second.gradingResult.componentResults.map((c: Json) => [c.assertion?.value ?? 'set', c.pass]),
      [
        ['set', false],
        ['zzz', false],
        ['b', true],
        ['b', true],
      ],
    );
  });

  it('counts every flattened component in assertPassCount/assertFailCount (promptfoo: 6 and 3 here)', () => {
    const [column] = out.results.prompts;
    assert.equal(column.metrics.assertPassCount, 6);
    assert.equal(column.metrics.assertFailCount, 3);
    assert.equal(column.metrics.testPassCount, 1);
    assert.equal(column.metrics.testFailCount, 1);
    assert.deepEqual(out.results.stats.successes, 1);
    assert.deepEqual(out.results.stats.failures, 1);
  });

  it('totals named metrics per §6.2: weights 2 and 1 on m in row 1 and 3 in row 2 give m = 5, count 3, weight 6', () => {
    // Row 1: m = (2·1 + 1·0)/3 with weight 3 → 2; row 2: m = 1 with weight 3 → 3.
    const { metrics } = out.results.prompts[0];
    assert.deepEqual(metrics.namedScores, { set: 0.75, m: 5 });
    // The set's own metric: no member carries it, so the row counts once (promptfoo's `count || 1`).
    assert.deepEqual(metrics.namedScoresCount, { set: 1, m: 3 });
    assert.deepEqual(metrics.namedScoreWeights, { set: 1, m: 6 });
  });

  it('echoes the test as promptfoo does: every assertion (sets with their members), threshold, options', () => {
    const [first, second] = rows;
    assert.deepEqual(first.testCase, {
      description: 'set passes',
      vars: { q: 'a' },
      assert: [
        { type: 'contains', value: 'a' },
        {
          type: 'assert-set',
          assert: [
            { type: 'contains', value: 'a', weight: 2, metric: 'm' },
            { type: 'contains', value: 'zzz', metric: 'm' },
            { type: 'icontains', value: 'A' },
          ],
          threshold: 0.5,
          metric: 'set',
        },
      ],
      options: { prefix: 'P ', temperature: 0.3 },
      metadata: {},
      threshold: 0.5,
    });
    assert.equal('threshold' in second.testCase, false);
    assert.deepEqual(second.testCase.options, {});
    assert.equal(first.prompt.raw, 'P say a');
    assert.deepEqual(first.prompt.config, { top_p: 0.5 });
    assert.deepEqual(out.results.prompts[0].config, { top_p: 0.5 });
    assert.deepEqual(first.gradingResult.tokensUsed, NO_TOKENS);
  });
});

describe('--output-format promptfoo: a row whose every assertion skipped', () => {
  it('is written success false, failure reason 0, counted as a failure; its skipped results count in no tally', async () => {
    const runDir = join(tmp.dir, 'skip-run');
    mkdirSync(runDir, { recursive: true });
    const manifest: RunManifest = {
      runId: 'r1',
      assayVersion: 'test',
      status: 'complete',
      suite: {
        id: 's',
        name: 'skips',
        format: 'pramana',
        path: 'suite.jsonl',
        contentHash: 'h',
        files: [],
        cases: 1,
        prompts: [{ id: 'p', label: 'p' }],
      },
      providers: [{ key: 'echo', id: 'echo' }],
      options: { repeat: 1, maxConcurrency: 1 },
      plannedJobs: 1,
      command: [],
      cwd: runDir,
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
    };
    const reason = 'no embeddings: no grader model is configured';
    // A line of run-log version 0 (no `v`, the flat layout), as an old run wrote it.
    const result = {
      key: 'k1',
      caseId: 'c1',
      caseIndex: 0,
      promptId: 'p',
      promptLabel: 'p',
      providerId: 'echo',
      trial: 0,
      vars: { q: 'x' },
      prompt: { text: 'x', messages: [] },
      status: 'skip',
      output: 'x',
      verdicts: [
        {
          type: 'embedding-similarity',
          pass: true,
          score: 0,
          reason,
          weight: 1,
          skipped: true,
          assertion: { type: 'embedding-similarity', value: 'y', threshold: 0.8 },
        },
      ],
      score: 0,
      reason,
      latencyMs: 0,
      startedAt: manifest.startedAt,
    };
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify(manifest));
    writeFileSync(join(runDir, 'results.jsonl'), `${JSON.stringify(result)}\n`);
    const file = join(tmp.dir, 'skip.json');
    await writeOutput(outputRun(runDir, await scorecardOfRun(runDir)), {
      path: file,
      format: outputFormatNamed('promptfoo').format,
    });
    const written = JSON.parse(readFileSync(file, 'utf8'));
    const [row] = written.results.results;
    checkResult(row);
    assert.equal(row.success, false);
    assert.equal(row.failureReason, 0);
    assert.equal(row.error, reason);
    assert.equal(row.gradingResult.pass, false);
    assert.deepEqual(row.gradingResult.componentResults[0].metadata, { skipped: true, metricOnly: true });
    assert.deepEqual(written.results.stats.failures, 1);
    assert.deepEqual(written.results.stats.successes + written.results.stats.errors, 0);
    const { metrics } = written.results.prompts[0];
    assert.equal(metrics.testFailCount, 1);
    assert.equal(metrics.assertPassCount + metrics.assertFailCount, 0);
  });
});
