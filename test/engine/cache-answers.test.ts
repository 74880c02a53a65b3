// The response cache keeps a structured answer whole (its dialect, blocks and finish reason come
// back from a hit as the provider gave them), and never reads an entry written before answers were
// structured: such an entry held the answer as text, which a provider on the structure would read
// differently (an OpenAI tool call beside text was its text alone).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { canonicalJson, sha256 } from '../../src/core/hash.js';
import type { Message } from '../../src/core/types.js';
import { ResponseCache } from '../../src/engine/cache.js';
import { callerFor, callWithCache } from '../../src/engine/call.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import type { Provider, ProviderRequest } from '../../src/providers/types.js';
import { type MockProviders, startMockProviders, TOOL_CALL } from '../support/mock-providers.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cache-answers-');
let server: MockProviders;
let provider: Provider;
const signal = new AbortController().signal;

before(async () => {
  server = await startMockProviders();
  provider = await createProvider(
    { id: 'openai:chat:mock-chat', config: { apiBaseUrl: `${server.url}/v1`, apiKey: 'sk-mock-openai-key' } },
    {
      env: {},
      maxConcurrency: 2,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 30_000 },
    },
  );
});
after(async () => {
  await closeAllPools();
  await server.close();
  tmp.cleanup();
});

const ask = (text: string): ProviderRequest => {
  const messages: Message[] = [{ role: 'user', content: text }];
  return { prompt: text, messages, params: {} };
};

describe('the response cache and structured answers', () => {
  it('gives back a structured answer whole from a hit, without asking the provider again', async () => {
    const cache = ResponseCache.open(join(tmp.dir, 'a.sqlite'));
    const caller = callerFor(provider, cache, undefined, signal);
    const request = ask('Weather? [[scenario:text-tool-call]]');
    const first = await callWithCache(caller, 0, request);
    const asked = server.requests.length;
    const second = await callWithCache(caller, 0, request);
    assert.equal(server.requests.length, asked, 'the second call is a hit');
    assert.equal(second.cached, true);
    assert.deepEqual(second.answer, first.answer);
    assert.equal(second.answer?.api, 'openai-chat');
    assert.equal(second.answer?.finishReason, 'tool_calls');
    assert.deepEqual(
      second.answer?.blocks.map((b) => b.type),
      ['text', 'tool_call'],
    );
    const call = second.answer?.blocks[1];
    assert.ok(call?.type === 'tool_call');
    assert.equal(call.name, TOOL_CALL.name);
    assert.equal(call.arguments, TOOL_CALL.arguments);
    assert.deepEqual(call.input, { city: 'Paris' });
    cache.close();
  });

  it('never reads an entry of the text-only layout (request key version 2)', async () => {
    const cache = ResponseCache.open(join(tmp.dir, 'b.sqlite'));
    const request = ask('Weather? [[scenario:text-tool-call]]');
    // What the cache held for this request before answers were structured: the text alone.
    const oldKey = sha256(canonicalJson({ v: 2, request: provider.requestKey?.(request), trial: 0 }));
    cache.set(oldKey, { output: 'Let me look up the weather.', finishReason: 'tool_calls', latencyMs: 1 });
    const asked = server.requests.length;
    const got = await callWithCache(callerFor(provider, cache, undefined, signal), 0, request);
    assert.equal(server.requests.length, asked + 1, 'the provider was asked');
    assert.notEqual(got.cached, true);
    assert.equal(got.output, undefined);
    assert.deepEqual(
      got.answer?.blocks.map((b) => b.type),
      ['text', 'tool_call'],
    );
    cache.close();
  });

  it('keeps no answer with nothing in it (no text, no call): a passing fault, not a reply to replay', async () => {
    const cache = ResponseCache.open(join(tmp.dir, 'c.sqlite'));
    const caller = callerFor(provider, cache, undefined, signal);
    const request = ask('Say nothing. [[scenario:empty]]');
    await callWithCache(caller, 0, request);
    const asked = server.requests.length;
    const again = await callWithCache(caller, 0, request);
    assert.equal(server.requests.length, asked + 1);
    assert.notEqual(again.cached, true);
    assert.deepEqual(again.answer?.blocks, []);
    cache.close();
  });
});
