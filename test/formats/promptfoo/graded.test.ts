// Model-graded assertions end to end: promptfoo suites run against the mock, which answers as a
// grader would (test/support/graders.ts), including unreadable replies and failing graders.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { closeAllPools } from '../../../src/providers/http-transport.js';
import { GRADER_RULES, mockGrader, runGraded } from '../../support/graders.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { tempDir } from '../../support/tmp.js';
import { writeSuite } from './helpers.js';

const tmp = tempDir('assay-graded-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: GRADER_RULES });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

let runs = 0;
function runsDir(): string {
  return join(tmp.dir, `runs-${runs++}`);
}

/** A one-prompt suite on the mock (which echoes the prompt) with the given tests and default grader. */
function suite(tests: string, grader = 'openai:chat:judge'): string {
  return writeSuite({
    'promptfooconfig.yaml': `prompts: ['{{q}}']
providers: [openai:chat:model]
defaultTest:
  options:
    provider: ${grader}
tests:
${tests}`,
  });
}

function byDescription(results: JobResult[]): Record<string, JobResult> {
  return Object.fromEntries(results.map((r) => [r.case.description ?? r.caseId, r]));
}

const CAPITAL = 'The capital of France is Paris.';

describe('model-graded assertions against a grader model', () => {
  it('grades each type with promptfoo’s prompts and parsing', async () => {
    const path = suite(`
  - description: rubric pass
    vars: {q: "${CAPITAL}"}
    assert: [{type: llm-rubric, value: RUBRIC-PASS}]
  - description: rubric fail
    vars: {q: "${CAPITAL}"}
    assert: [{type: llm-rubric, value: RUBRIC-FAIL}]
  - description: closedqa yes
    vars: {q: "${CAPITAL}"}
    assert: [{type: model-graded-closedqa, value: CRIT-YES}]
  - description: closedqa no
    vars: {q: "${CAPITAL}"}
    assert: [{type: model-graded-closedqa, value: CRIT-NO}]
  - description: factuality superset
    vars: {q: "${CAPITAL}"}
    assert: [{type: factuality, value: FACT-B}]
  - description: factuality disagree
    vars: {q: "${CAPITAL}"}
    assert: [{type: model-graded-factuality, value: FACT-D}]
  - description: factuality disagree scored by options
    vars: {q: "${CAPITAL}"}
    options: {factuality: {disagree: 0.5}}
    assert: [{type: factuality, value: FACT-D}]
  - description: factuality legacy
    vars: {q: "${CAPITAL}"}
    assert: [{type: factuality, value: FACT-LEGACY}]
  - description: g-eval
    vars: {q: "${CAPITAL}"}
    assert: [{type: g-eval, value: names the capital}]
  - description: g-eval above threshold
    vars: {q: "${CAPITAL}"}
    assert: [{type: g-eval, value: names the capital, threshold: 0.9}]
  - description: context recall
    vars: {q: "${CAPITAL}", context: "Paris is the capital of France."}
    assert: [{type: context-recall, value: "Paris is the capital of France. Paris has ten million people.", threshold: 0.5}]
  - description: context relevance
    options: {disableVarExpansion: true}
    vars: {q: "${CAPITAL}", query: "What is the capital of France?", context: ["Paris is the capital of France.", "Bananas are yellow."]}
    assert: [{type: context-relevance, threshold: 0.6}]
  - description: context faithfulness
    vars: {q: "${CAPITAL}", query: "What is the capital of France?", context: "Paris is the capital of France."}
    assert: [{type: context-faithfulness, threshold: 0.5}]
`);
    const r = byDescription(await runGraded(path, mock, { runsDir: runsDir() }));
    const summary = (d: string) => [r[d].status, Number(r[d].score.toFixed(4))];
    assert.deepEqual(summary('rubric pass'), ['pass', 1]);
    assert.equal(r['rubric pass'].verdicts[0].reason, 'it is polite');
    assert.deepEqual(summary('rubric fail'), ['fail', 0]);
    assert.equal(r['rubric fail'].reason, 'rude');
    assert.deepEqual(summary('closedqa yes'), ['pass', 1]);
    assert.deepEqual(summary('closedqa no'), ['fail', 0]);
    assert.deepEqual(summary('factuality superset'), ['pass', 1]);
    assert.equal(r['factuality superset'].verdicts[0].reason, 'adds detail');
    assert.deepEqual(summary('factuality disagree'), ['fail', 0]);
    assert.deepEqual(summary('factuality disagree scored by options'), ['pass', 0.5]);
    assert.deepEqual(summary('factuality legacy'), ['pass', 1]);
    assert.equal(r['factuality legacy'].verdicts[0].reason, 'The submission is a subset.');
    assert.deepEqual(summary('g-eval'), ['pass', 0.8]);
    assert.deepEqual(summary('g-eval above threshold'), ['fail', 0.8]);
    assert.deepEqual(summary('context recall'), ['pass', 0.5]);
    assert.deepEqual(summary('context relevance'), ['fail', 0.5]);
    assert.deepEqual(summary('context faithfulness'), ['pass', 0.5]);
    // The grader saw promptfoo's prompts with the case's values in them.
    const asked = mock.requests.filter((q) => (q.body as { model?: string }).model === 'judge');
    const texts = asked.map((q) => JSON.stringify((q.body as { messages: unknown }).messages));
    assert.ok(
      texts.some((t) => t.includes('<Output>\\n' + CAPITAL + '\\n</Output>\\n<Rubric>\\nRUBRIC-PASS')),
    );
    assert.ok(texts.some((t) => t.includes('[Criterion]: CRIT-YES')));
    assert.ok(texts.some((t) => t.includes('Evaluation Steps**\\n- Check the city\\n- Check the country')));
  });

  it('test vars named like grading variables never replace them (promptfoo 0.123 sets them after the vars)', async () => {
    // Each test has a var that, if it shadowed the grading variable, would flip the verdict.
    const path = suite(`
  - description: rubric var
    vars: {q: "${CAPITAL}", rubric: RUBRIC-FAIL, output: "SHADOW-OUTPUT"}
    assert: [{type: llm-rubric, value: RUBRIC-PASS}]
  - description: criteria var
    vars: {q: "${CAPITAL}", criteria: CRIT-NO, completion: "SHADOW-COMPLETION"}
    assert: [{type: model-graded-closedqa, value: CRIT-YES}]
  - description: ideal var
    vars: {q: "${CAPITAL}", ideal: FACT-D}
    assert: [{type: factuality, value: FACT-B}]
  - description: groundTruth var
    vars: {q: "${CAPITAL}", context: "Paris is the capital of France.", groundTruth: "SHADOW-TRUTH"}
    assert: [{type: context-recall, value: "Paris is the capital of France. Paris has ten million people.", threshold: 0.5}]
`);
    const before = mock.requests.length;
    const r = byDescription(await runGraded(path, mock, { runsDir: runsDir() }));
    assert.equal(r['rubric var'].status, 'pass');
    assert.equal(r['criteria var'].status, 'pass');
    assert.equal(r['ideal var'].status, 'pass');
    assert.equal(r['groundTruth var'].status, 'pass');
    const texts = mock.requests
      .slice(before)
      .filter((q) => (q.body as { model?: string }).model === 'judge')
      .map((q) => JSON.stringify((q.body as { messages: unknown }).messages));
    assert.equal(texts.length, 4);
    for (const t of texts) assert.ok(!t.includes('SHADOW-'), `a test var reached the grader: ${t}`);
    assert.ok(
      texts.some((t) => t.includes('<Output>\\n' + CAPITAL + '\\n</Output>\\n<Rubric>\\nRUBRIC-PASS')),
    );
  });

  it('similar compares embeddings: a grader known to lack embeddings is refused up front, an embedding model grades', async () => {
    const path = suite(
      `
  - description: close
    vars: {q: "${CAPITAL}"}
    assert: [{type: similar, value: "Paris is the capital of France"}]
  - description: far
    vars: {q: "${CAPITAL}"}
    assert: [{type: similar, value: "Bananas grow on tall plants"}]
  - description: not far
    vars: {q: "${CAPITAL}"}
    assert: [{type: not-similar, value: "Bananas grow on tall plants"}]
  - description: any of a list
    vars: {q: "${CAPITAL}"}
    assert: [{type: similar, value: ["Bananas grow on tall plants", "Paris is the capital of France"]}]
  - description: euclidean
    vars: {q: "${CAPITAL}"}
    assert: [{type: "similar:euclidean", value: "Paris is the capital of France", threshold: 0.1}]
  - description: answer relevance
    vars: {q: "${CAPITAL}", query: "What is the capital of France?"}
    assert: [{type: answer-relevance}]
`,
      '{text: openai:chat:judge, embedding: openai:embedding:embedder}',
    );
    const r = byDescription(await runGraded(path, mock, { runsDir: runsDir() }));
    assert.equal(r.close.status, 'pass');
    assert.ok(r.close.score > 0.99);
    assert.equal(r.far.status, 'fail');
    assert.equal(r['not far'].status, 'pass');
    assert.equal(r['any of a list'].status, 'pass');
    assert.equal(r.euclidean.status, 'pass');
    assert.equal(r['answer relevance'].status, 'pass');
    assert.ok(Math.abs(r['answer relevance'].score - 1) < 1e-9);

    const chatOnly = suite(`
  - vars: {q: "${CAPITAL}"}
    assert: [{type: similar, value: "Paris"}]
`);
    // A chat-only grader is known to offer no embeddings: refused before any model is called.
    await assert.rejects(
      runGraded(chatOnly, mock, { runsDir: runsDir() }),
      /similar needs embeddings, but its grader openai:chat:judge offers none: add --embedder/,
    );
  });

  it('an unreadable grader reply is an error quoting the reply, never a pass', async () => {
    const path = suite(`
  - description: rubric
    vars: {q: "${CAPITAL}"}
    assert: [{type: not-llm-rubric, value: RUBRIC-GARBAGE}]
  - description: closedqa
    vars: {q: "${CAPITAL}"}
    assert: [{type: model-graded-closedqa, value: CRIT-BAD}]
  - description: factuality
    vars: {q: "${CAPITAL}"}
    assert: [{type: factuality, value: FACT-UNREADABLE}]
  - description: g-eval
    vars: {q: "${CAPITAL}"}
    assert: [{type: g-eval, value: GEVAL-BAD}]
`);
    const r = byDescription(await runGraded(path, mock, { runsDir: runsDir() }));
    for (const [d, said] of [
      ['rubric', 'I would say it is mostly fine.'],
      ['closedqa', 'Hard to say.'],
      ['factuality', 'They look similar to me.'],
      ['g-eval', 'Step one: read it.'],
    ]) {
      assert.equal(r[d].status, 'error', d);
      assert.ok(r[d].reason.includes(JSON.stringify(said)), `${d}: ${r[d].reason}`);
    }
    // The assertion's name comes once, before the grader's problem.
    assert.match(r.rubric.reason, /^not-llm-rubric: grader \S+ gave no JSON verdict; it replied: /);
  });

  it('a grader that fails (HTTP 500) makes the job an error, not a failure', async () => {
    const path = suite(`
  - vars: {q: "${CAPITAL}"}
    assert: [{type: llm-rubric, value: RUBRIC-PASS}]
`);
    const grader = mockGrader(mock, 'judge', 'status=500');
    const [result] = await runGraded(path, mock, { runsDir: runsDir(), grader });
    assert.equal(result.status, 'error');
    assert.match(result.reason, /grader openai:chat:judge failed: .*500/);
  });

  it('grader calls go through the response cache: a rerun asks nothing', async () => {
    const path = suite(`
  - vars: {q: "${CAPITAL}"}
    assert:
      - {type: llm-rubric, value: RUBRIC-PASS}
      - {type: similar, value: "Paris is the capital of France", provider: openai:embedding:embedder}
`);
    const cachePath = join(tmp.dir, 'cache.sqlite');
    mock.resetStats();
    const first = await runGraded(path, mock, { runsDir: runsDir(), cachePath });
    assert.equal(first[0].status, 'pass');
    assert.equal(mock.stats().requests, 3, 'the model, the grader and the embedder');
    mock.resetStats();
    const second = await runGraded(path, mock, { runsDir: runsDir(), cachePath });
    assert.equal(mock.stats().requests, 0);
    assert.deepEqual(
      second[0].verdicts.map((v) => [v.pass, v.score]),
      first[0].verdicts.map((v) => [v.pass, v.score]),
    );
  });

  it('the assertion’s provider beats the test’s, which beats --grader, which beats defaultTest', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
providers: [openai:chat:model]
defaultTest:
  options: {provider: openai:chat:suite-default}
tests:
  - description: own
    vars: {q: one}
    assert: [{type: llm-rubric, value: RUBRIC-PASS, provider: openai:chat:own}]
  - description: test
    vars: {q: two}
    options: {provider: {id: openai:chat:of-test}}
    assert: [{type: llm-rubric, value: RUBRIC-PASS}]
  - description: default
    vars: {q: three}
    assert: [{type: llm-rubric, value: RUBRIC-PASS}]
`,
    });
    const judges = () =>
      mock.requests
        .map((q) => (q.body as { model: string }).model)
        .filter((m) => m !== 'model')
        .sort();
    mock.resetStats();
    await runGraded(path, mock, { runsDir: runsDir() });
    assert.deepEqual(judges(), ['of-test', 'own', 'suite-default']);
    mock.resetStats();
    await runGraded(path, mock, { runsDir: runsDir(), grader: { id: 'openai:chat:flag' } });
    assert.deepEqual(judges(), ['flag', 'of-test', 'own']);
  });
});
