// §11 compatibility cases of lane 2 (model-graded assertions): promptfoo's verdicts, reproduced
// against the mock grader.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { closeAllPools } from '../../../src/providers/http-transport.js';
import { GRADER_RULES, runGraded } from '../../support/graders.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { tempDir } from '../../support/tmp.js';
import { loadText, writeSuite } from './helpers.js';

const tmp = tempDir('assay-compat-graded-');
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
async function run(tests: string, files: Record<string, string> = {}): Promise<Record<string, JobResult>> {
  const path = writeSuite({
    'promptfooconfig.yaml': `prompts: ['{{q}}']
providers: [openai:chat:model]
defaultTest:
  options: {provider: {text: openai:chat:judge, embedding: openai:embedding:embedder}}
tests:
${tests}`,
    ...files,
  });
  const results = await runGraded(path, mock, { runsDir: join(tmp.dir, `runs-${runs++}`) });
  return Object.fromEntries(results.map((r) => [r.case.description ?? r.caseId, r]));
}

describe('promptfoo compatibility: model-graded assertions', () => {
  it('§11 #31: llm-rubric reply without `pass` passes (pass defaults to true); with threshold 0.5 it fails', async () => {
    const r = await run(`
  - description: no threshold
    vars: {q: hello}
    assert: [{type: llm-rubric, value: RUBRIC-NO-PASS-FIELD}]
  - description: threshold
    vars: {q: hello}
    assert: [{type: llm-rubric, value: RUBRIC-NO-PASS-FIELD, threshold: 0.5}]
`);
    assert.equal(r['no threshold'].status, 'pass');
    assert.equal(r['no threshold'].score, 0);
    assert.equal(r['no threshold'].verdicts[0].reason, 'x');
    assert.equal(r.threshold.status, 'fail');
    assert.equal(r.threshold.score, 0);
  });

  it('§11 #32: not-llm-rubric with grader {"pass":true,"score":0.8} fails with score 0.2', async () => {
    const r = await run(`
  - description: negated
    vars: {q: hello}
    assert: [{type: not-llm-rubric, value: RUBRIC-0.8}]
`);
    assert.equal(r.negated.status, 'fail');
    assert.ok(Math.abs(r.negated.score - 0.2) < 1e-12, String(r.negated.score));
    assert.equal(r.negated.verdicts[0].type, 'not-llm-rubric');
  });

  it('§11 #33: similar without threshold uses 0.75; a CSV `similar:` uses 0.8', async () => {
    const suite = await loadText(
      `prompts: ['{{q}}']
providers: [echo]
defaultTest: {options: {provider: openai:embedding:e}}
tests:
  - vars: {q: a}
    assert: [{type: similar, value: hello}]
  - file://t.csv
`,
      { 't.csv': 'q,__expected\nb,similar:hello\n' },
    );
    assert.equal(suite.cases[0].asserts[0].threshold, undefined);
    assert.equal(suite.cases[1].asserts[0].threshold, 0.8);
    const r = await run(
      `
  - description: structured
    vars: {q: Bananas grow on tall plants}
    assert: [{type: similar, value: The capital of France is Paris}]
  - file://t.csv
`,
      {
        't.csv':
          'q,__expected,__description\nBananas grow on tall plants,similar:The capital of France is Paris,csv\n',
      },
    );
    assert.match(r.structured.reason, /is less than threshold 0\.75$/);
    assert.match(r.csv.reason, /is less than threshold 0\.8$/);
  });
});
