// The run log is a contract: every line and the manifest of a real run validate against the JSON
// Schemas in schema/; a run written before versions (0) is still read; a newer one is refused.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { InputError } from '../../src/core/errors.js';
import type { JobResult } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { readManifest, readResults, resultLinesInPlanOrder } from '../../src/runlog/reader.js';
import { RUNLOG_VERSION } from '../../src/runlog/version.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';
import { buildSuite, hole, user } from '../support/suite-builder.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-contract-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: [{ match: 'colour', reply: 'red' }] });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

function schema(name: string): object {
  return JSON.parse(readFileSync(join(repoRoot, 'schema', name), 'utf8')) as object;
}

async function rejects(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof InputError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

describe('the run log contract', () => {
  it('every line and the manifest of a real run validate against schema/*.schema.json', async () => {
    const suite = buildSuite({
      providers: [{ id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl, maxRetries: 0 } }],
      cases: [
        {
          description: 'plain',
          vars: { prompt: 'Name a colour' },
          asserts: [{ type: 'contains', value: 'red' }],
        },
        {
          description: 'holes and runs',
          conversations: [
            { messages: [user('Name a colour'), hole('c'), user('again'), hole('d')], repetitions: 2 },
          ],
          asserts: [{ type: 'contains', value: 'blue' }],
        },
        { description: 'unrunnable', error: 'cannot run' },
      ],
    });
    const run = await evaluate({ suite, runsDir: join(tmp.dir, 'runs'), cache: false, env: {}, repeat: 2 });
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const validLine = ajv.compile(schema('run-result.schema.json'));
    const validManifest = ajv.compile(schema('run-manifest.schema.json'));
    const manifest = JSON.parse(readFileSync(join(run.runDir, 'manifest.json'), 'utf8')) as {
      schemaVersion: number;
    };
    assert.ok(validManifest(manifest), JSON.stringify(validManifest.errors));
    assert.equal(manifest.schemaVersion, RUNLOG_VERSION);
    const lines = readFileSync(join(run.runDir, 'results.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 6);
    for (const line of lines) {
      assert.ok(line.startsWith(`{"v":${RUNLOG_VERSION},`), line.slice(0, 40));
      assert.ok(validLine(JSON.parse(line)), `${JSON.stringify(validLine.errors)}\n${line}`);
    }
    // The reader hands results without the version field.
    for await (const r of readResults(run.runDir))
      assert.equal((r as JobResult & { v?: number }).v, undefined);
  });

  it('reads a run written before versions (version 0)', async () => {
    const dir = join(tmp.dir, 'v0');
    mkdirSync(dir, { recursive: true });
    const manifest = {
      runId: '20250101T000000Z-abcdef',
      assayVersion: '0.1.0',
      status: 'complete',
      suite: {
        id: 's',
        name: 's',
        format: 'promptfoo',
        path: '/x',
        contentHash: 'h',
        files: [],
        cases: 1,
        prompts: [{ id: 'p', label: 'p' }],
      },
      providers: [{ key: 'echo', id: 'echo' }],
      options: { repeat: 1, maxConcurrency: 1 },
      plannedJobs: 1,
      command: [],
      cwd: '/',
      startedAt: '2025-01-01T00:00:00.000Z',
    };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const result = {
      key: 'k',
      caseId: 'c',
      caseIndex: 0,
      promptId: 'p',
      promptLabel: 'p',
      providerId: 'echo',
      trial: 0,
      vars: {},
      prompt: { text: 'hi', messages: [] },
      status: 'pass',
      output: 'hi',
      verdicts: [],
      score: 1,
      reason: 'ok',
      latencyMs: 0,
      startedAt: '2025-01-01T00:00:00.000Z',
    };
    writeFileSync(join(dir, 'results.jsonl'), `${JSON.stringify(result)}\n`);
    assert.equal(readManifest(dir).runId, manifest.runId);
    const read: JobResult[] = [];
    for await (const r of readResults(dir)) read.push(r);
    // Read into today's layout: the case's echo and the answer's facts grouped.
    const { vars, latencyMs, ...rest } = result;
    const regrouped = { ...rest, case: { vars }, answer: { latencyMs } };
    assert.deepEqual(read, [regrouped]);
    const lines: string[] = [];
    for await (const l of resultLinesInPlanOrder(dir)) lines.push(l);
    assert.equal(lines.length, 1);
    // A line handed on as text (outputs that copy the log) is today's too, its version first.
    assert.ok(lines[0].startsWith(`{"v":${RUNLOG_VERSION},`), lines[0]);
    const { v, ...line } = JSON.parse(lines[0]);
    assert.equal(v, RUNLOG_VERSION);
    assert.deepEqual(line, regrouped);
  });

  it('refuses a newer run log, naming the file, the version and the newest it reads', async () => {
    const dir = join(tmp.dir, 'v99');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schemaVersion: 99, runId: 'x' }));
    assert.throws(
      () => readManifest(dir),
      (err: unknown) =>
        err instanceof InputError &&
        /manifest\.json: manifest\.json schemaVersion 99 was written by a newer assay; this assay reads run logs up to version 3/.test(
          err.message,
        ),
    );
    writeFileSync(
      join(dir, 'results.jsonl'),
      '{"v":1,"key":"a","caseId":"c","promptId":"p","providerId":"e","trial":0,"status":"pass","verdicts":[],"score":1}\n{"v":99,"key":"b"}\n',
    );
    await rejects(async () => {
      for await (const _ of readResults(dir)) {
        // drain
      }
    }, /results\.jsonl:2: results line version 99 was written by a newer assay/);
  });
});
