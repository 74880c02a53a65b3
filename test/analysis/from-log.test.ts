// Analysis reads the run log: the scorecard of a run recomputed from its log equals the one the run
// wrote, and with repeated trials every interval is clustered on the case (n counts cases).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scorecardOfRun } from '../../src/analysis/scorecard.js';
import { t975 } from '../../src/analysis/stats.js';
import type { Scorecard } from '../../src/core/scorecard.js';
import type { JobResult } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { readResults } from '../../src/runlog/reader.js';
import { runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { buildSuite } from '../support/suite-builder.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-from-log-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: [{ match: 'always-fail', reply: 'nope' }] });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

/** Six cases that pass, four that fail, on a server where 40% of requests fail (no retries): flaky. */
function suite() {
  return buildSuite({
    providers: [
      { id: 'openai:chat:m', config: { apiBaseUrl: `${mock.url}/_/fail_500=0.4/v1`, maxRetries: 0 } },
    ],
    cases: [
      ...Array.from({ length: 6 }, (_, i) => ({
        vars: { prompt: `ok ${i}` },
        asserts: [{ type: 'contains', value: 'ok' }],
      })),
      ...Array.from({ length: 4 }, (_, i) => ({
        vars: { prompt: `always-fail ${i}` },
        asserts: [{ type: 'contains', value: 'ok' }],
        metadata: { kind: 'hard' },
      })),
    ],
    scoring: { breakdowns: ['kind'] },
  });
}

describe('analysis from the run log', () => {
  it('the scorecard recomputed from the log (library and assay report --json) equals the live one', async () => {
    const run = await evaluate({
      suite: suite(),
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
      env: {},
      repeat: 3,
      maxErrors: { fraction: 1 },
    });
    const written = JSON.parse(readFileSync(join(run.runDir, 'scorecard.json'), 'utf8')) as Scorecard;
    assert.deepEqual(written, JSON.parse(JSON.stringify(run.scorecard)));
    assert.deepEqual(await scorecardOfRun(run.runDir), run.scorecard);
    const cli = await runCli(['report', run.runDir, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), written);
    const text = await runCli(['report', run.runDir]);
    assert.match(text.stdout, /30 jobs: /);
    const missing = await runCli(['report', join(tmp.dir, 'nope')]);
    assert.equal(missing.code, 2);
  });

  it('with --repeat 5 the pass-rate interval is clustered on the case: n is 10 cases, not 50 jobs', async () => {
    const run = await evaluate({
      suite: suite(),
      runsDir: join(tmp.dir, 'runs-5'),
      cache: false,
      env: {},
      repeat: 5,
      maxErrors: { fraction: 1 },
    });
    const results: JobResult[] = [];
    for await (const r of readResults(run.runDir)) results.push(r);
    assert.equal(results.length, 50);
    // Worked by hand from the log: per case, its passing trials S_c of n_c = 5.
    const byCase = new Map<string, { n: number; s: number }>();
    for (const r of results) {
      const c = byCase.get(r.caseId) ?? { n: 0, s: 0 };
      c.n++;
      if (r.status === 'pass') c.s++;
      byCase.set(r.caseId, c);
    }
    const clusters = [...byCase.values()];
    const C = clusters.length;
    const N = clusters.reduce((a, c) => a + c.n, 0);
    const mean = clusters.reduce((a, c) => a + c.s, 0) / N;
    const variance = ((C / (C - 1)) * clusters.reduce((a, c) => a + (c.s - c.n * mean) ** 2, 0)) / (N * N);
    const half = t975(C - 1) * Math.sqrt(variance);
    const rate = run.scorecard.passRate;
    assert.equal(rate.n, 10);
    assert.equal(rate.clustered, true);
    assert.ok(Math.abs(rate.value - mean) < 1e-12);
    assert.ok(Math.abs(rate.low - Math.max(0, mean - half)) < 1e-12, `${rate.low} vs ${mean - half}`);
    assert.ok(Math.abs(rate.high - Math.min(1, mean + half)) < 1e-12);
    // Some cases are flaky (their trials disagree), so the clustered interval is not the jobs' one.
    assert.ok(
      clusters.some((c) => c.s > 0 && c.s < c.n),
      'at least one flaky case',
    );
    // pass@1, pass@5, pass^5 and the flaky cases, worked by hand from the same log.
    const repeats = run.scorecard.repeats!;
    assert.equal(repeats.trials, 5);
    assert.equal(repeats.cases, 10);
    const flaky = clusters.filter((c) => c.s > 0 && c.s < c.n).length;
    assert.equal(repeats.flaky, flaky);
    assert.equal(repeats.flakiest.length, Math.min(10, flaky));
    const at = (k: number) => repeats.atK.find((a) => a.k === k)!;
    assert.ok(Math.abs(at(1).passAtK - clusters.reduce((a, c) => a + c.s / c.n, 0) / C) < 1e-12);
    assert.ok(
      Math.abs(at(5).passAtK - clusters.filter((c) => c.s > 0).length / C) < 1e-12,
      'pass@n: any passed',
    );
    assert.ok(
      Math.abs(at(5).passHatK - clusters.filter((c) => c.s === c.n).length / C) < 1e-12,
      'pass^n: all passed',
    );
    const text = await runCli(['report', run.runDir]);
    assert.match(text.stdout, /Repeats: up to 5 trials per case, 10 cases/);
    assert.match(text.stdout, /pass@1 .* · pass@5 .* · pass\^5 /);
    assert.match(text.stdout, /flaky \(trials disagree\): \d+ of 10 cases/);
    // The cell and the breakdown groups are clustered too.
    assert.equal(run.scorecard.cells[0].passRate.n, 10);
    const hard = run.scorecard.breakdowns?.[0].groups.find((g) => g.value === 'hard');
    assert.equal(hard?.passRate.n, 4);
    assert.equal(hard?.passRate.value, 0);
    assert.equal(hard?.total, 20);
  });

  it('--pass-at adds k to the summary, recorded in the manifest so the log gives the same scorecard', async () => {
    const run = await evaluate({
      suite: suite(),
      runsDir: join(tmp.dir, 'runs-k'),
      cache: false,
      env: {},
      repeat: 4,
      passAt: [2, 9],
      maxErrors: { fraction: 1 },
    });
    assert.deepEqual(
      run.scorecard.repeats?.atK.map((a) => a.k),
      [1, 2, 4],
      'k beyond the trials is left out',
    );
    assert.deepEqual(run.manifest.options.passAt, [2, 9]);
    assert.deepEqual(await scorecardOfRun(run.runDir), run.scorecard);
  });

  it('without repeats the interval is Wilson over jobs, as before', async () => {
    const run = await evaluate({
      suite: suite(),
      runsDir: join(tmp.dir, 'runs-1'),
      cache: false,
      env: {},
      maxErrors: { fraction: 1 },
    });
    assert.equal(run.scorecard.passRate.n, 10);
    assert.equal(run.scorecard.passRate.clustered, undefined);
  });
});
