// The OpenAI wire mapping on the structured answer, against the scripted server
// (test/support/mock-providers.ts): `openai:completion:<model>` posts what promptfoo 0.123.1 posts
// (its recorded request) and answers in the `openai-completion` dialect; a stream's tool-call and
// reasoning deltas make the blocks the whole message makes; Azure's HTTP 400 content filter is an
// answer (not retried, not an error), any other 400 still an error.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Message, ProviderSpec } from '../../src/core/types.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import type { ProviderRequest } from '../../src/providers/types.js';
import {
  FILTER_MESSAGE,
  type MockProviders,
  startMockProviders,
  TOOL_CALL,
} from '../support/mock-providers.js';
import { repoRoot } from '../support/paths.js';

let server: MockProviders;
before(async () => {
  server = await startMockProviders();
});
after(async () => {
  await closeAllPools();
  await server.close();
});

const RETRY = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 30_000 };
const build = (spec: ProviderSpec, env: Record<string, string> = {}) =>
  createProvider(spec, { env, maxConcurrency: 2, retry: RETRY });
const ask = (text: string): ProviderRequest => {
  const messages: Message[] = [{ role: 'user', content: text }];
  return { prompt: text, messages, params: {} };
};
const lastBody = (): unknown => JSON.parse(server.requests.at(-1)?.raw ?? 'null');

const recorded = JSON.parse(
  readFileSync(join(repoRoot, 'test', 'fixtures', 'promptfoo-providers', 'expected.json'), 'utf8'),
) as { requests: { path: string; model: string; scenario: string; body: unknown }[] };

describe('openai:completion:<model>', () => {
  it('posts to /completions the body promptfoo posts, and answers in the openai-completion dialect', async () => {
    const p = await build({
      id: 'openai:completion:mock-instruct',
      config: { apiBaseUrl: `${server.url}/v1`, apiKey: 'sk-mock-openai-key' },
    });
    const prompt = 'What is the capital of France? [[scenario:normal]]';
    const res = await p.call(ask(prompt));
    assert.equal(res.error, undefined, res.error);
    assert.equal(server.requests.at(-1)?.path, '/v1/completions');
    const theirs = recorded.requests.find((r) => r.path === '/v1/completions' && r.scenario === 'normal');
    assert.ok(theirs, 'promptfoo’s request is recorded');
    assert.equal(JSON.stringify(lastBody()), JSON.stringify(theirs.body));
    assert.deepEqual(res.answer, {
      api: 'openai-completion',
      blocks: [{ type: 'text', text: 'The capital of France is Paris.' }],
      finishReason: 'stop',
    });
    assert.deepEqual(res.usage, { prompt: 11, completion: 7, total: 18 });
  });

  it('takes promptfoo’s OPENAI_* settings, and the config’s fields in their place', async () => {
    const p = await build(
      {
        id: 'openai:completion:mock-instruct',
        config: { apiBaseUrl: `${server.url}/v1`, temperature: 0.5, seed: 7 },
      },
      { OPENAI_MAX_TOKENS: '64', OPENAI_STOP: '["END"]', OPENAI_BEST_OF: '2' },
    );
    await p.call(ask('Hello [[scenario:normal]]'));
    assert.equal(
      JSON.stringify(lastBody()),
      JSON.stringify({
        model: 'mock-instruct',
        prompt: 'Hello [[scenario:normal]]',
        seed: 7,
        max_tokens: 64,
        temperature: 0.5,
        top_p: 1,
        presence_penalty: 0,
        frequency_penalty: 0,
        best_of: 2,
        stop: ['END'],
      }),
    );
  });

  it('openai:<model> of one of promptfoo’s completion models is a completion provider too', async () => {
    const p = await build({
      id: 'openai:gpt-3.5-turbo-instruct',
      config: { apiBaseUrl: `${server.url}/v1` },
    });
    const res = await p.call(ask('Hi [[scenario:length]]'));
    assert.equal(server.requests.at(-1)?.path, '/v1/completions');
    assert.equal(res.answer?.api, 'openai-completion');
    assert.equal(res.answer?.finishReason, 'length');
  });

  it('streams when asked: the pieces joined into the same answer, timed', async () => {
    const p = await build({
      id: 'openai:completion:mock-instruct',
      config: { apiBaseUrl: `${server.url}/v1`, stream: true },
    });
    const res = await p.call(ask('Hi [[scenario:normal]]'));
    assert.equal(res.error, undefined, res.error);
    assert.deepEqual(res.answer?.blocks, [{ type: 'text', text: 'The capital of France is Paris.' }]);
    assert.equal(res.answer?.finishReason, 'stop');
    assert.ok(res.stream);
  });
});

describe('openai chat, streamed', () => {
  it('puts reasoning, text and tool-call fragments together into the blocks the whole message gives', async () => {
    const spec = { id: 'openai:chat:mock-chat', config: { apiBaseUrl: `${server.url}/v1` } };
    const whole = await build(spec);
    const streamed = await build({ ...spec, config: { ...spec.config, stream: true } });
    for (const scenario of [
      'text-tool-call',
      'tool-call',
      'reasoning',
      'refusal',
      'content-filter',
      'length',
    ]) {
      const prompt = `Weather? [[scenario:${scenario}]]`;
      const a = await whole.call(ask(prompt));
      const b = await streamed.call(ask(prompt));
      assert.deepEqual(b.answer, a.answer, scenario);
      // Timed from its first token (a filtered answer has none).
      assert.equal(b.stream !== undefined, (b.answer?.blocks.length ?? 0) > 0, `${scenario}: timed`);
    }
    const b = await streamed.call(ask('Weather? [[scenario:text-tool-call]]'));
    assert.deepEqual(b.answer?.blocks.at(-1), {
      type: 'tool_call',
      id: TOOL_CALL.id,
      name: TOOL_CALL.name,
      arguments: TOOL_CALL.arguments,
      input: { city: 'Paris' },
    });
  });
});

describe('Azure OpenAI’s content filter', () => {
  const azure = (kind: 'chat' | 'completion') => ({
    id: `azure:${kind}:mock-deployment`,
    config: { apiBaseUrl: server.url, apiKey: 'mock-azure-key-0123' },
  });

  it('an HTTP 400 content_filter is an answer: the filter’s message, finish reason content_filter, one attempt', async () => {
    for (const kind of ['chat', 'completion'] as const) {
      const p = await build(azure(kind));
      const before = server.requests.length;
      const res = await p.call(ask('Something [[scenario:content-filter]]'));
      assert.equal(res.error, undefined, res.error);
      assert.equal(server.requests.length, before + 1, 'not retried');
      assert.equal(res.attempts, 1);
      assert.deepEqual(res.answer, {
        api: `azure-${kind}`,
        blocks: [{ type: 'refusal', text: FILTER_MESSAGE, by: 'filter' }],
        finishReason: 'content_filter',
      });
      assert.equal(res.usage, undefined, 'the filter’s answer reports no tokens');
    }
  });

  it('any other 400 is still an error, worded as before', async () => {
    const p = await build(azure('chat'));
    const res = await p.call(ask('Hi [[scenario:bad-request]]'));
    assert.equal(res.answer, undefined);
    assert.match(res.error ?? '', /^Azure OpenAI: HTTP 400 after 1 attempt: Invalid request \(mock\)/);
  });
});
