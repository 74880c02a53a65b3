// Run-log version 3 keeps the structured answer (its dialect, and its blocks unless it is one text
// block holding the output), `assay rescore` derives the output again from it with the suite's
// output rule (no model is asked), and a version-2 line still reads, as a plain-text answer.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import type { JobResult } from '../../src/core/types.js';
import { readResults } from '../../src/runlog/reader.js';
import { RUNLOG_VERSION } from '../../src/runlog/version.js';
import { runCli } from '../support/cli.js';
import { type MockProviders, startMockProviders } from '../support/mock-providers.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-structured-');
let server: MockProviders;
let runDir = '';
let lines: (JobResult & { v: number })[] = [];

const config = (extra: string) => `prompts: ['{{q}} [[scenario:{{s}}]]']
providers:
  - id: openai:chat:mock-chat
    config: { apiBaseUrl: URL/v1, apiKey: sk-mock-openai-key${extra} }
tests:
  - description: normal
    vars: { q: Capital of France?, s: normal }
    assert: [{ type: contains, value: Paris }]
  - description: tool-call
    vars: { q: Weather?, s: tool-call }
    assert: [{ type: javascript, value: "output[0].function.name === 'get_weather'" }]
  - description: reasoning
    vars: { q: Capital of France?, s: reasoning }
    assert: [{ type: contains, value: 'Thinking:' }]
`;

/** The one run directory under `dir`. */
function onlyRun(dir: string): string {
  const runs = readdirSync(dir);
  assert.equal(runs.length, 1, runs.join(', '));
  return join(dir, runs[0]);
}

const byTest = (list: JobResult[], name: string): JobResult => {
  const r = list.find((x) => x.case.description === name);
  assert.ok(r, name);
  return r;
};

before(async () => {
  server = await startMockProviders();
  writeFileSync(join(tmp.dir, 'promptfooconfig.yaml'), config('').replace('URL', server.url));
  const r = await runCli(
    ['eval', 'promptfooconfig.yaml', '--no-progress', '--no-cache', '--runs-dir', 'runs'],
    {
      cwd: tmp.dir,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  runDir = onlyRun(join(tmp.dir, 'runs'));
  lines = readFileSync(join(runDir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
});
after(async () => {
  await server.close();
  tmp.cleanup();
});

describe('the structured answer in the run log', () => {
  it('is written with the answer’s dialect; blocks only where the answer is more than its text', () => {
    const schema = JSON.parse(readFileSync(join(repoRoot, 'schema', 'run-result.schema.json'), 'utf8'));
    const valid = new Ajv({ strict: false, allErrors: true }).compile(schema);
    for (const line of lines) {
      assert.equal(line.v, RUNLOG_VERSION);
      assert.ok(valid(line), JSON.stringify(valid.errors));
      assert.equal(line.answer.api, 'openai-chat');
    }
    const normal = byTest(lines, 'normal');
    assert.equal(normal.answer.blocks, undefined, 'one text block equal to the output is implied');
    assert.equal(normal.outputType, undefined);
    assert.equal(normal.answer.finishReason, 'stop');
    const tool = byTest(lines, 'tool-call');
    assert.deepEqual(
      tool.answer.blocks?.map((b) => b.type),
      ['tool_call'],
    );
    assert.equal(tool.outputType, 'json', 'promptfoo’s rule made the output a value (the tool calls)');
    assert.equal(tool.status, 'pass');
    const reasoning = byTest(lines, 'reasoning');
    assert.deepEqual(
      reasoning.answer.blocks?.map((b) => b.type),
      ['reasoning', 'text'],
    );
    assert.match(reasoning.output ?? '', /^Thinking: /);
  });

  it('assay rescore derives the output again from it with the suite’s rule, asking no model', async () => {
    // The suite now hides the reasoning (promptfoo's `showThinking: false`): the recorded answer
    // reads differently, and the assertion that wanted it fails.
    writeFileSync(
      join(tmp.dir, 'promptfooconfig.yaml'),
      config(', showThinking: false').replace('URL', server.url),
    );
    const asked = server.requests.length;
    const r = await runCli(
      ['rescore', runDir, 'promptfooconfig.yaml', '--no-progress', '--runs-dir', 'rescored'],
      {
        cwd: tmp.dir,
      },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.equal(server.requests.length, asked, 'no request was made');
    const rescored: JobResult[] = [];
    for await (const x of readResults(onlyRun(join(tmp.dir, 'rescored')))) rescored.push(x);
    const reasoning = byTest(rescored, 'reasoning');
    assert.equal(reasoning.output, 'The capital of France is Paris.');
    assert.equal(reasoning.status, 'fail');
    // Kept as it came, for the next reading.
    assert.deepEqual(reasoning.answer.blocks, byTest(lines, 'reasoning').answer.blocks);
    const tool = byTest(rescored, 'tool-call');
    assert.equal(tool.status, 'pass');
    assert.equal(tool.outputType, 'json');
    assert.equal(tool.output, byTest(lines, 'tool-call').output);
  });

  it('a version-2 line (no structured answer) still reads, its answer plain text', async () => {
    const dir = join(tmp.dir, 'v2');
    cpSync(runDir, dir, { recursive: true });
    const old = lines.map((l) => {
      const { v: _v, outputType: _t, ...rest } = l;
      const { api: _api, blocks: _blocks, value: _value, finishReasonRaw: _raw, ...answer } = rest.answer;
      return JSON.stringify({ v: 2, ...rest, answer });
    });
    writeFileSync(join(dir, 'results.jsonl'), `${old.join('\n')}\n`);
    const read: JobResult[] = [];
    for await (const x of readResults(dir)) read.push(x);
    assert.equal(read.length, 3);
    assert.equal(byTest(read, 'tool-call').answer.api, undefined);
    // Re-scored, the recorded text is the answer (as version 2 scored it: no value to read it as).
    writeFileSync(join(tmp.dir, 'promptfooconfig.yaml'), config('').replace('URL', server.url));
    const r = await runCli(
      ['rescore', dir, 'promptfooconfig.yaml', '--no-progress', '--runs-dir', 'rescored-v2'],
      {
        cwd: tmp.dir,
      },
    );
    assert.equal(r.code, 1, r.stderr);
    const rescored: JobResult[] = [];
    for await (const x of readResults(onlyRun(join(tmp.dir, 'rescored-v2')))) rescored.push(x);
    assert.equal(byTest(rescored, 'normal').status, 'pass');
    assert.equal(byTest(rescored, 'reasoning').output, byTest(lines, 'reasoning').output);
    // The tool calls' JSON text, without the dialect, is a string to the javascript assertion.
    assert.equal(byTest(rescored, 'tool-call').outputType, undefined);
    assert.equal(byTest(rescored, 'tool-call').status, 'fail');
  });
});
