// The tokens and cost of grader calls: counted per job in `grading` (apart from the answer's own
// usage), totalled in the scorecard, and written where promptfoo puts them in its JSON output
// (`gradingResult.tokensUsed`, `tokenUsage.assertions` of each column and of the stats).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { outputFormatNamed, outputRun, writeOutput } from '../../src/outputs.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { readResults } from '../../src/runlog/reader.js';
import { writeSuite } from '../formats/promptfoo/helpers.js';
import { GRADER_RULES } from '../support/graders.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-gradeuse-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: GRADER_RULES });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

describe('grader usage', () => {
  it('is recorded per job, totalled, and written as promptfoo’s assertion token usage', async () => {
    const suitePath = writeSuite({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
providers: [openai:chat:model]
defaultTest:
  options:
    provider: openai:chat:judge
tests:
  - description: rubric
    vars: {q: The capital of France is Paris.}
    assert: [{type: llm-rubric, value: RUBRIC-PASS}]
  - description: geval
    vars: {q: The capital of France is Paris.}
    assert: [{type: g-eval, value: names the capital}]
  - description: plain
    vars: {q: Paris}
    assert: [{type: contains, value: Paris}]
`,
    });
    const run = await evaluate({
      suitePath,
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
      env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: undefined },
      retry: { maxAttempts: 1 },
    });
    const results: JobResult[] = [];
    for await (const r of readResults(run.runDir)) results.push(r);
    const by = Object.fromEntries(results.map((r) => [r.case.description, r]));

    const rubric = by.rubric.grading;
    assert.ok(rubric, 'the rubric job records its grader call');
    assert.equal(rubric.calls, 1);
    assert.equal(rubric.cached, 0);
    assert.ok(rubric.prompt > 0 && rubric.completion > 0);
    assert.equal(rubric.total, rubric.prompt + rubric.completion);
    assert.equal(by.geval.grading?.calls, 2, 'g-eval asks for steps, then a score');
    assert.equal(by.plain.grading, undefined);

    const gradingTotal = rubric.total + (by.geval.grading?.total ?? 0);
    assert.equal(run.scorecard.gradingTokens, gradingTotal);
    const answerTotal = results.reduce((s, r) => s + (r.answer.usage?.total ?? 0), 0);
    assert.equal(run.scorecard.tokens, answerTotal);

    const file = join(tmp.dir, 'pf.json');
    await writeOutput(outputRun(run.runDir, run.scorecard), {
      path: file,
      format: outputFormatNamed('promptfoo').format,
    });
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const rows = json.results.results as { description: string; gradingResult: { tokensUsed?: unknown } }[];
    const rubricRow = rows.find((r) => r.description === 'rubric');
    assert.deepEqual(rubricRow?.gradingResult.tokensUsed, {
      total: rubric.total,
      prompt: rubric.prompt,
      completion: rubric.completion,
      cached: 0,
      numRequests: 1,
    });
    // promptfoo always writes the grading result's token usage: zeros when no grader was asked.
    assert.deepEqual(rows.find((r) => r.description === 'plain')?.gradingResult.tokensUsed, {
      total: 0,
      prompt: 0,
      completion: 0,
      cached: 0,
      numRequests: 0,
    });
    assert.equal(json.results.stats.tokenUsage.assertions.total, gradingTotal);
    assert.equal(json.results.stats.tokenUsage.assertions.numRequests, 3);
    assert.equal(json.results.stats.tokenUsage.total, answerTotal);
    assert.equal(json.results.prompts[0].metrics.tokenUsage.assertions.total, gradingTotal);
  });
});
