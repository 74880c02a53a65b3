// `assay rescore`: a past run's recorded answers scored again after an assertion is edited, with
// no model request (the mock server's request count proves it), into a new run naming its source.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import { readManifest, readResults } from '../../src/runlog/reader.js';
import { runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-rescore-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: 'RUBRIC-STRICT', reply: '{"pass": false, "score": 0, "reason": "too short"}' },
      { match: 'capital of France', reply: 'The capital of France is Paris.' },
      { match: 'capital of Italy', reply: 'Rome is the capital.' },
    ],
  });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

function config(asserts: { france: string; italy: string }): string {
  return `prompts: ['What is the capital of {{country}}?']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: ${mock.baseUrl}, maxRetries: 0}
tests:
  - description: France
    vars: {country: France}
    assert: [${asserts.france}]
  - description: Italy
    vars: {country: Italy}
    assert: [${asserts.italy}]
`;
}

async function results(runDir: string): Promise<Record<string, JobResult>> {
  const out: Record<string, JobResult> = {};
  for await (const r of readResults(runDir)) out[r.case.description ?? r.caseId] = r;
  return out;
}

function runDirOf(stdout: string): string {
  const m = /Run written to (\S+)/.exec(stdout);
  assert.ok(m, `no run directory in:\n${stdout}`);
  return m[1];
}

/** Writes the suite into a fresh folder and runs it once; returns the folder, the config and the run. */
async function firstRun(
  name: string,
  asserts: { france: string; italy: string },
  code: number,
): Promise<{ dir: string; runs: string; path: string; sourceDir: string }> {
  const dir = join(tmp.dir, name);
  const runs = join(dir, 'runs');
  const path = join(dir, 'promptfooconfig.yaml');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, config(asserts));
  const first = await runCli(['eval', path, '--runs-dir', runs, '--no-progress'], { cwd: dir });
  assert.equal(first.code, code, first.stderr + first.stdout);
  return { dir, runs, path, sourceDir: runDirOf(first.stdout) };
}

describe('assay rescore', () => {
  it('re-scores recorded answers with edited assertions and calls no model', async () => {
    // The first run's Italy check is wrong: it wants "Roma".
    const { dir, runs, path, sourceDir } = await firstRun(
      'edit',
      { france: '{type: contains, value: Paris}', italy: '{type: contains, value: Roma}' },
      1,
    );
    const before = await results(sourceDir);
    assert.equal(before.Italy.status, 'fail');
    assert.equal(before.France.status, 'pass');
    mock.resetStats();

    // Fix the assertion (the case's content hash changes; its identity does not) and re-score.
    writeFileSync(
      path,
      config({ france: '{type: contains, value: Paris}', italy: '{type: icontains, value: rome}' }),
    );
    const again = await runCli(['rescore', sourceDir, '--runs-dir', runs, '--no-progress'], { cwd: dir });
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.equal(mock.stats().requests, 0, 'no model request');
    assert.match(again.stdout, /Re-scored 2 recorded results of run /);
    const newDir = runDirOf(again.stdout);
    assert.notEqual(newDir, sourceDir);
    const after = await results(newDir);
    assert.equal(after.Italy.status, 'pass');
    assert.equal(after.Italy.verdicts[0].type, 'icontains');
    assert.equal(after.Italy.output, 'Rome is the capital.');
    assert.equal(after.France.status, 'pass');
    // The recorded generation is carried over as it was: latency, usage, the time it was asked.
    assert.equal(after.Italy.startedAt, before.Italy.startedAt);
    assert.deepEqual(after.Italy.answer.usage, before.Italy.answer.usage);
    assert.equal(after.Italy.case.ref, before.Italy.case.ref);
    assert.notEqual(after.Italy.caseId, before.Italy.caseId, 'the content hash follows the assertion');
    const manifest = readManifest(newDir);
    assert.equal(manifest.rescoredFrom?.runId, readManifest(sourceDir).runId);
    assert.equal(manifest.rescoredFrom?.unmatched, 0);
    assert.equal(manifest.status, 'complete');
  });

  it('a test the run did not record is left out, never sent to a model; removed tests are counted', async () => {
    const { dir, runs, path, sourceDir } = await firstRun(
      'changed',
      { france: '{type: contains, value: Paris}', italy: '{type: contains, value: Rome}' },
      0,
    );
    mock.resetStats();
    // Italy's vars change (a new test as far as pairing goes) and Spain is new.
    const text = readFileSync(path, 'utf8')
      .replace('vars: {country: Italy}', 'vars: {country: Italia}')
      .concat(
        `  - description: Spain\n    vars: {country: Spain}\n    assert: [{type: contains, value: Madrid}]\n`,
      );
    writeFileSync(path, text);
    const again = await runCli(['rescore', sourceDir, path, '--runs-dir', runs, '--no-progress'], {
      cwd: dir,
    });
    assert.equal(mock.stats().requests, 0, 'no model request');
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stdout, /Re-scored 1 recorded results/);
    assert.match(again.stdout, /1 recorded results match no test of the suite now/);
  });

  it('graded assertions still ask their grader, and only the grader', async () => {
    const { dir, runs, path, sourceDir } = await firstRun(
      'graded',
      { france: '{type: contains, value: Paris}', italy: '{type: contains, value: Rome}' },
      0,
    );
    mock.resetStats();
    writeFileSync(
      path,
      config({ france: '{type: llm-rubric, value: RUBRIC-STRICT}', italy: '{type: contains, value: Rome}' }),
    );
    const again = await runCli(
      [
        'rescore',
        sourceDir,
        '--runs-dir',
        runs,
        '--no-progress',
        '--no-cache',
        '--grader',
        'openai:chat:judge',
      ],
      { cwd: dir, env: { OPENAI_BASE_URL: mock.baseUrl } },
    );
    assert.equal(again.code, 1, again.stderr + again.stdout);
    const models = mock.requests.map((r) => (r.body as { model: string }).model);
    assert.deepEqual(models, ['judge'], 'one grader call, no call to the model under test');
  });

  it('a run that does not exist is exit 2 with a message', async () => {
    const r = await runCli(['rescore', join(tmp.dir, 'nope'), '--runs-dir', join(tmp.dir, 'none')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no run ".*nope"/);
  });
});
