// An assertion's `contextTransform` (spec §5.4): context-* assertions read their context from code
// run on the output (after the provider's transform, before the test's), not from `vars.context`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { closeAllPools } from '../../../src/providers/http-transport.js';
import { GRADER_RULES, runGraded } from '../../support/graders.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { tempDir } from '../../support/tmp.js';
import { loadErrors, loadText, located, writeSuite } from './helpers.js';

const tmp = tempDir('assay-ctxtf-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: GRADER_RULES });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

// The mock echoes the prompt, so the output is this text: an answer and the documents a RAG
// system retrieved, as JSON after a label.
const RAG = `'{"answer": "The capital of France is Paris.", "docs": ["Paris is the capital of France.", "Bananas are yellow."]}'`;
const PARSE = "JSON.parse(output.slice(output.indexOf('{')))";

function suite(tests: string): string {
  return writeSuite({
    'promptfooconfig.yaml': `prompts: ['Result: {{q}}']
providers: [openai:chat:model]
defaultTest:
  options:
    provider: openai:chat:judge
tests:
${tests}`,
  });
}

const byDescription = (results: JobResult[]): Record<string, JobResult> =>
  Object.fromEntries(results.map((r) => [r.case.description ?? r.caseId, r]));

describe('contextTransform', () => {
  it('gives context-* assertions the context the code extracts from the output', async () => {
    const path = suite(`
  - description: relevance from docs
    vars: {q: ${RAG}, query: "What is the capital of France?"}
    options: {transform: "${PARSE}.answer"}
    assert: [{type: context-relevance, threshold: 0.4, contextTransform: "${PARSE}.docs"}]
  - description: recall from the first doc
    vars: {q: ${RAG}, context: "ignored: the transform wins"}
    assert:
      - type: context-recall
        value: "Paris is the capital of France. Paris has ten million people."
        threshold: 0.5
        contextTransform: "${PARSE}.docs[0] + ' (from ' + context.vars.query + ')'"
  - description: faithfulness
    vars: {q: ${RAG}, query: "What is the capital of France?"}
    assert: [{type: context-faithfulness, threshold: 0.5, contextTransform: "${PARSE}.docs.join(' ')"}]
  - description: returns a number
    vars: {q: ${RAG}, query: q}
    assert: [{type: context-relevance, contextTransform: "42"}]
  - description: throws
    vars: {q: ${RAG}, query: q}
    assert: [{type: context-relevance, contextTransform: "${PARSE}.nope.length"}]
`);
    const r = byDescription(await runGraded(path, mock, { runsDir: join(tmp.dir, 'runs') }));
    const summary = (d: string) => [r[d].status, Number(r[d].score.toFixed(4))];
    // The test's own transform turned the output into the answer; the context transform still
    // read the JSON (it runs on the output before the test's transform, as promptfoo's does).
    assert.equal(r['relevance from docs'].output, 'The capital of France is Paris.');
    assert.deepEqual(summary('relevance from docs'), ['pass', 0.5]);
    assert.deepEqual(summary('recall from the first doc'), ['pass', 0.5]);
    assert.deepEqual(summary('faithfulness'), ['pass', 0.5]);
    assert.equal(r['returns a number'].status, 'error');
    assert.match(
      r['returns a number'].reason,
      /context-relevance: contextTransform \(42\) must return non-empty text or a list of texts, got number/,
    );
    assert.equal(r.throws.status, 'error');
    assert.match(r.throws.reason, /Transform failed .*Cannot read properties of undefined/);
    // What the grader was asked carries the transformed context.
    const asked = mock.requests
      .filter((q) => (q.body as { model?: string }).model === 'judge')
      .map((q) => JSON.stringify((q.body as { messages: unknown }).messages));
    assert.ok(
      asked.some((t) => t.includes('Paris is the capital of France.\\n\\nBananas are yellow.')),
      asked.join('\n'),
    );
    assert.ok(asked.some((t) => t.includes('Paris is the capital of France. (from undefined)')));
    assert.ok(!asked.some((t) => t.includes('ignored: the transform wins')));
  });

  it('is checked at load, and ignored with a warning on other assertion types', async () => {
    const suitePath = writeSuite({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: x, query: y}
    assert:
      - {type: context-relevance, provider: echo, contextTransform: "output.("}
`,
    });
    const errors = located(await loadErrors(suitePath));
    assert.equal(errors.length, 1);
    assert.match(errors[0], /:6:69 tests\[0\]\.assert\[0\]\.contextTransform: transform does not compile/);

    const suite = await loadText(`prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: x}
    assert:
      - {type: contains, value: x, contextTransform: output}
      - {type: context-recall, value: x, provider: echo, contextTransform: "output.trim()"}
`);
    const [contains, recall] = suite.cases[0].asserts;
    assert.equal(contains.options, undefined);
    assert.equal(recall.options?.contextTransform, 'output.trim()');
    assert.ok(
      suite.warnings.some((w) => /`contextTransform` is ignored by contains/.test(w.message)),
      JSON.stringify(suite.warnings),
    );
  });
});
