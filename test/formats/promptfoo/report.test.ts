// `-o FILE --output-format promptfoo`: promptfoo's results JSON, checked field by field against
// promptfoo's own types (EvaluateSummaryV3, EvaluateResult, GradingResult, CompletedPrompt).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../../support/cli.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { checkResult, type Json } from '../../support/promptfoo-json.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-pfout-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

describe('--output-format promptfoo', () => {
  let out: Json;
  let rows: Json[];
  let code: number;
  let stdout: string;

  before(async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `description: output shape
prompts: ['say {{q}}']
providers:
  - echo
  - id: openai:chat:m
    label: down
    config: {apiBaseUrl: '${mock.url}/_/status=500/v1', apiKey: sk-test-not-secret-1}
tests:
  - description: passes
    vars: {q: a}
    assert:
      - {type: contains, value: a, metric: acc}
      - {type: not-contains, value: zzz}
  - description: fails
    vars: {q: b}
    assert:
      - {type: contains, value: zzz, metric: acc, weight: 2}
      - {type: icontains, value: B}
  - description: errors
    vars: {q: c}
    assert: [{type: contains, value: '{{nothing}}'}]
  - description: no assertions
    vars: {q: d}
`,
    );
    const run = await runCli(
      [
        'eval',
        '--no-progress',
        '--max-retries',
        '0',
        '--max-errors',
        '100%',
        '-o',
        'pf.json',
        '--output-format',
        'promptfoo',
      ],
      { cwd: dir, env: cleanEnv },
    );
    code = run.code;
    stdout = run.stdout;
    assert.match(run.stdout, /Wrote .*pf\.json/, run.stderr);
    out = JSON.parse(readFileSync(join(dir, 'pf.json'), 'utf8'));
    rows = out.results.results;
    assert.ok(readdirSync(join(dir, '.assay', 'runs')).length === 1);
  });

  it('has promptfoo’s top level: evalId, results (version 3), config, shareableUrl null', () => {
    assert.equal(code, 1, stdout);
    assert.equal(typeof out.evalId, 'string');
    assert.equal(out.shareableUrl, null);
    assert.equal(out.results.version, 3);
    assert.ok(!Number.isNaN(Date.parse(out.results.timestamp)));
    assert.equal(out.config.description, 'output shape');
    assert.deepEqual(out.config.prompts, ['say {{q}}']);
    assert.equal(typeof out.metadata.exportedAt, 'string');
    assert.equal(rows.length, 8);
    for (const r of rows) checkResult(r);
  });

  it('writes rows in plan order: test by test, each provider column in turn', () => {
    assert.deepEqual(
      rows.map((r) => `${r.testIdx}:${r.promptIdx}:${r.provider.label || r.provider.id}`),
      ['0:0:echo', '0:1:down', '1:0:echo', '1:1:down', '2:0:echo', '2:1:down', '3:0:echo', '3:1:down'],
    );
    assert.deepEqual(rows[1].provider, { id: 'openai:chat:m', label: 'down' });
    // promptfoo gives a provider without a label the empty label.
    assert.deepEqual(rows[0].provider, { id: 'echo', label: '' });
  });

  it('a passing row: success, failureReason 0, component results carrying their assertions', () => {
    const r = rows[0];
    assert.equal(r.success, true);
    assert.equal(r.failureReason, 0);
    assert.equal('error' in r, false, 'promptfoo writes no error on a passing row');
    assert.equal(r.response.cached, false);
    assert.equal(r.cost, 0, 'echo reports no cost: promptfoo writes 0');
    assert.equal(r.response.output, 'say a');
    assert.equal(r.prompt.raw, 'say a');
    assert.equal(r.prompt.label, 'say {{q}}');
    assert.deepEqual(r.vars, { q: 'a' });
    assert.deepEqual(r.namedScores, { acc: 1 });
    assert.deepEqual(r.gradingResult.componentResults, [
      {
        pass: true,
        score: 1,
        reason: 'Assertion passed',
        assertion: { type: 'contains', value: 'a', metric: 'acc' },
      },
      {
        pass: true,
        score: 1,
        reason: rows[0].gradingResult.componentResults[1].reason,
        assertion: { type: 'not-contains', value: 'zzz' },
      },
    ]);
    assert.deepEqual(r.testCase.assert, [
      { type: 'contains', value: 'a', metric: 'acc' },
      { type: 'not-contains', value: 'zzz' },
    ]);
    assert.equal(r.testCase.description, 'passes');
  });

  it('a failing row: failureReason 1, the failure reason as error, weights and named metrics kept', () => {
    const r = rows[2];
    assert.equal(r.success, false);
    assert.equal(r.failureReason, 1);
    assert.match(r.error, /zzz/);
    assert.equal(r.gradingResult.pass, false);
    assert.equal(r.gradingResult.reason, r.error);
    assert.equal(r.score, 1 / 3);
    assert.deepEqual(r.namedScores, { acc: 0 });
    assert.deepEqual(
      r.gradingResult.componentResults.map((c: Json) => [c.pass, c.assertion]),
      [
        [false, { type: 'contains', value: 'zzz', metric: 'acc', weight: 2 }],
        [true, { type: 'icontains', value: 'B' }],
      ],
    );
  });

  it('error rows: failureReason 2; a provider error has the error on the response and no grading', () => {
    const scorer = rows[4];
    assert.equal(scorer.success, false);
    assert.equal(scorer.failureReason, 2);
    assert.match(scorer.error, /contains/);
    const provider = rows[1];
    assert.equal(provider.failureReason, 2);
    assert.equal(provider.response.output, null);
    assert.equal(typeof provider.response.error, 'string');
    assert.equal(provider.error, provider.response.error);
    assert.equal(provider.gradingResult, null);
    assert.deepEqual(provider.namedScores, {});
    // An error row never reached its assertions, yet its test case lists them all, as promptfoo's does.
    assert.deepEqual(provider.testCase.assert, [
      { type: 'contains', value: 'a', metric: 'acc' },
      { type: 'not-contains', value: 'zzz' },
    ]);
    assert.deepEqual(scorer.testCase.assert, [{ type: 'contains', value: '{{nothing}}' }]);
    assert.equal(
      scorer.gradingResult,
      null,
      'promptfoo has no grading result for a row whose assertion threw',
    );
  });

  it('a row without assertions passes with "No assertions"', () => {
    const r = rows[6];
    assert.equal(r.success, true);
    // promptfoo's result for a test without assertions has no component results or named scores.
    assert.deepEqual(r.gradingResult, {
      pass: true,
      score: 1,
      reason: 'No assertions',
      tokensUsed: { total: 0, prompt: 0, completion: 0, cached: 0, numRequests: 0 },
    });
    assert.deepEqual(r.testCase.assert, []);
  });

  it('stats and per-column prompt metrics add up', () => {
    assert.deepEqual(
      { ...out.results.stats, tokenUsage: undefined, durationMs: undefined },
      { successes: 2, failures: 1, errors: 5, tokenUsage: undefined, durationMs: undefined },
    );
    const [echo, down] = out.results.prompts;
    assert.equal(echo.provider, 'echo');
    assert.equal(echo.raw, 'say {{q}}');
    assert.equal(down.provider, 'down');
    assert.equal(echo.metrics.testPassCount, 2);
    assert.equal(echo.metrics.testFailCount, 1);
    assert.equal(echo.metrics.testErrorCount, 1);
    assert.equal(down.metrics.testErrorCount, 4);
    assert.equal(echo.metrics.assertPassCount, 3);
    assert.equal(echo.metrics.assertFailCount, 1);
    assert.deepEqual(echo.metrics.namedScores, { acc: 1 });
    assert.deepEqual(echo.metrics.namedScoresCount, { acc: 2 });
    assert.equal(
      echo.metrics.score,
      rows.filter((r) => r.promptIdx === 0).reduce((s, r) => s + r.score, 0),
    );
  });

  it('never writes the provider’s key', () => {
    assert.ok(!JSON.stringify(out).includes('sk-test-not-secret-1'));
  });
});
