// Streaming (issue 22): with `stream: true` an OpenAI-compatible, Anthropic or Ollama provider
// streams the answer (server-sent events; JSON lines), records the time to first token and the tokens per
// second, and the scorecard, console summary and reports show them; without it the request is the
// plain one promptfoo sends (promptfoo's providers do not stream). Checked against the mock's
// streams; no assertion on time beyond the figures existing and being consistent.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import type { ProviderContext, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { readResponse } from '../support/answers.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const FAST: RetryPolicy = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 5_000 };
const tmp = tempDir('assay-streaming-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: 'weather in (\\w+)', toolCall: { name: 'get_weather', arguments: '{"city":"$1"}' } },
      { match: 'count', reply: 'one two three four five six' },
    ],
  });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});
const ctx: ProviderContext = { env: {}, maxConcurrency: 2, retry: FAST };
const ask = (text: string): ProviderRequest => ({
  prompt: text,
  messages: [{ role: 'user', content: text }],
  params: {},
});

describe('streaming', () => {
  it('openai: stream: true sends a streaming request and reads the events into the same answer, timed', async () => {
    const p = await createProvider(
      { id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl, stream: true } },
      ctx,
    );
    const res = await p.call(ask('please count'));
    assert.equal(res.error, undefined, res.error);
    assert.equal(replyText(res), 'one two three four five six');
    assert.equal(readResponse(res).finishReason, 'stop');
    assert.deepEqual(res.usage, { prompt: 2, completion: 6, total: 8 });
    assert.ok(res.stream, 'the answer is timed');
    assert.ok(res.stream.firstTokenMs >= 0 && res.stream.firstTokenMs <= res.latencyMs);
    assert.ok(res.stream.tokensPerSecond === undefined || res.stream.tokensPerSecond > 0);
    assert.equal(
      JSON.stringify(mock.requests.at(-1)?.body),
      JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'please count' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    // A streamed tool call is put together from its fragments, as the plain answer gives it.
    const tool = await p.call(ask('weather in Paris'));
    assert.equal(readResponse(tool).nonText, 'tool calls');
    assert.deepEqual(JSON.parse(replyText(tool) ?? ''), [
      {
        id: 'call_mock_0',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    assert.equal(readResponse(tool).finishReason, 'tool_calls');
  });

  it('not streaming is the default: the request has no stream field and the answer no timing', async () => {
    const p = await createProvider({ id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl } }, ctx);
    const res = await p.call(ask('count again'));
    assert.equal(replyText(res), 'one two three four five six');
    assert.equal(res.stream, undefined);
    assert.equal('stream' in (mock.requests.at(-1)!.body as object), false);
  });

  it('ollama: stream: true reads the JSON lines (chat and generate), with the counts of the last', async () => {
    for (const id of ['ollama:chat:llama3.2:1b', 'ollama:llama3.2:1b']) {
      const p = await createProvider({ id, config: { apiBaseUrl: mock.url, stream: true } }, ctx);
      const res = await p.call(ask('count please'));
      assert.equal(res.error, undefined, `${id}: ${res.error}`);
      assert.equal(replyText(res), 'one two three four five six', id);
      assert.deepEqual(res.usage, { prompt: 2, completion: 6, total: 8 });
      assert.equal(readResponse(res).finishReason, 'stop');
      assert.ok(res.stream && res.stream.firstTokenMs >= 0, id);
      assert.equal((mock.requests.at(-1)!.body as { stream: boolean }).stream, true);
    }
  });

  it('anthropic: stream: true reads the Messages API events into the same answer, timed', async () => {
    const p = await createProvider(
      {
        id: 'anthropic:messages:claude-x',
        config: { apiBaseUrl: mock.url, apiKey: 'k-0123456789', stream: true },
      },
      ctx,
    );
    const res = await p.call(ask('count for me'));
    assert.equal(res.error, undefined, res.error);
    assert.equal(replyText(res), 'one two three four five six');
    assert.equal(readResponse(res).finishReason, 'end_turn');
    assert.deepEqual(res.usage, { prompt: 3, completion: 6, total: 9 });
    assert.ok(res.stream && res.stream.firstTokenMs >= 0);
    assert.equal(
      JSON.stringify(mock.requests.at(-1)!.body),
      JSON.stringify({
        model: 'claude-x',
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'count for me' }],
        stream: true,
      }),
    );
  });

  it('a broken stream is an error naming the provider', async () => {
    const p = await createProvider(
      {
        id: 'groq:m',
        config: { apiBaseUrl: `${mock.url}/_/status=200/v1`, apiKey: 'k-0123456789', stream: true },
      },
      ctx,
    );
    const res = await p.call(ask('broken'));
    assert.match(res.error ?? '', /^Groq: malformed response \(no stream events\)/);
  });

  it('the run records time to first token and tokens per second per job; the summary, scorecard and reports show them', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Please count {{ n }}']
providers:
  - id: openai:chat:local
    config: {apiBaseUrl: ${mock.baseUrl}, stream: true}
tests:
  - vars: {n: 1}
  - vars: {n: 2}
`,
    );
    const runs = join(dir, 'runs');
    const r = await runCli(
      ['eval', '--no-progress', '--no-cache', '--runs-dir', runs, '-o', 'out.html', '-o', 'out.md'],
      {
        cwd: dir,
        env: cleanEnv,
      },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const runDir = join(runs, readdirSync(runs)[0]);
    const results = readFileSync(join(runDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(results.length, 2);
    for (const result of results) assert.ok(result.answer.stream.firstTokenMs >= 0, JSON.stringify(result));
    const card = JSON.parse(readFileSync(join(runDir, 'scorecard.json'), 'utf8'));
    assert.equal(card.cells[0].stream.answers, 2);
    assert.equal(card.stream.answers, 2);
    const mean = (results[0].answer.stream.firstTokenMs + results[1].answer.stream.firstTokenMs) / 2;
    assert.ok(Math.abs(card.cells[0].stream.firstTokenMsMean - mean) < 1e-9);
    assert.match(r.stdout, /ttft ms\s+tok\/s/);
    assert.match(readFileSync(join(dir, 'out.html'), 'utf8'), /data-figure="ttft"/);
    assert.match(readFileSync(join(dir, 'out.md'), 'utf8'), /time to first token \d+ ms/);
  });
});
