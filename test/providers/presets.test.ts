// OpenAI-compatible services by name (issue 22): every preset of providers/presets.ts against the
// loopback mock — the exact request (route, headers, body bytes), the answer parsed, the base URL
// and key from the preset's variables, and a wrong key, an unreachable host and a malformed
// answer each named after the service. Facts checked are promptfoo 0.123.1's (see presets.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { PRESETS, presetOf } from '../../src/providers/presets.js';
import { createProvider, isKnownProviderId, providerOffersEmbeddings } from '../../src/providers/registry.js';
import type { ProviderContext, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';

const FAST: RetryPolicy = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 5_000 };
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

const ctx = (env: Record<string, string> = {}): ProviderContext => ({ env, maxConcurrency: 2, retry: FAST });
const ask = (text: string, params: Record<string, unknown> = {}): ProviderRequest => ({
  prompt: text,
  messages: [{ role: 'user', content: text }],
  params,
});
const lastTo = (text: string) =>
  mock.requests.findLast((r) => JSON.stringify(r.body).includes(text)) ??
  assert.fail(`no request with ${text}`);

describe('OpenAI-compatible presets', () => {
  it('each preset sends the exact request promptfoo sends, with its key as a bearer token, and parses the answer', async () => {
    for (const preset of PRESETS) {
      const key = `key-for-${preset.prefix}-0123456789`;
      const id = `${preset.prefix}:${preset.example}`;
      const p = await createProvider(
        { id, config: { apiBaseUrl: mock.baseUrl, apiKey: key, temperature: 0.25 } },
        ctx(),
      );
      const text = `hello from ${preset.prefix}`;
      const res = await p.call(ask(text));
      assert.equal(res.error, undefined, `${id}: ${res.error}`);
      assert.equal(replyText(res), text);
      assert.deepEqual(res.usage, { prompt: 3, completion: 3, total: 6 });
      const sent = lastTo(text);
      assert.equal(sent.path, '/v1/chat/completions', id);
      assert.equal(sent.headers.authorization, `Bearer ${key}`, id);
      assert.equal(sent.headers['content-type'], 'application/json');
      const expected: Record<string, unknown> = {
        model: preset.example,
        messages: [{ role: 'user', content: text }],
        ...preset.defaults,
        temperature: 0.25,
      };
      assert.equal(JSON.stringify(sent.body), JSON.stringify(expected), id);
      assert.deepEqual(p.credentials, [key]);
    }
  });

  it('reads the base URL and the key from the preset variables; a model may hold colons and slashes', async () => {
    const p = await createProvider(
      { id: 'openrouter:meta-llama/llama-3.1-8b-instruct:free' },
      ctx({ OPENROUTER_BASE_URL: mock.baseUrl, OPENROUTER_API_KEY: 'or-key-0123456789' }),
    );
    const res = await p.call(ask('routed'));
    assert.equal(replyText(res), 'routed');
    assert.equal((lastTo('routed').body as { model: string }).model, 'meta-llama/llama-3.1-8b-instruct:free');
    assert.equal(lastTo('routed').headers.authorization, 'Bearer or-key-0123456789');
    assert.equal(p.describe().baseUrl, mock.baseUrl);
    // A config's apiKeyEnvar names another variable, as promptfoo reads it.
    const q = await createProvider(
      { id: 'groq:llama-3.3-70b-versatile', config: { apiKeyEnvar: 'MY_GROQ' } },
      ctx({ GROQ_BASE_URL: mock.baseUrl, MY_GROQ: 'my-groq-0123456789' }),
    );
    await q.call(ask('own variable'));
    assert.equal(lastTo('own variable').headers.authorization, 'Bearer my-groq-0123456789');
    assert.deepEqual(presetOf('localai:chat:qwen3.5:9b')?.model, 'qwen3.5:9b');
    assert.deepEqual(presetOf('mistral:embedding'), {
      preset: PRESETS.find((x) => x.prefix === 'mistral'),
      model: 'mistral-embed',
      embedding: true,
    });
    assert.equal(presetOf('deepseek:')?.model, 'deepseek-chat');
    assert.equal(presetOf('perplexity:')?.model, 'sonar');
    assert.ok(isKnownProviderId('xai:grok-3-mini'));
    assert.ok(isKnownProviderId('openai:chat:qwen3.5:9b'), 'an Ollama tag after openai:chat: is one model');
    assert.ok(isKnownProviderId('openai:embedding:nomic-embed-text:v1.5'));
    assert.equal(providerOffersEmbeddings('togetherai:embedding:BAAI/bge-base-en-v1.5'), true);
    assert.equal(providerOffersEmbeddings('groq:llama-3.3-70b-versatile'), false);
  });

  it('sends the service-specific fields promptfoo sends (Mistral defaults, OpenRouter routing, Groq reasoning, Cerebras token limit)', async () => {
    const build = (id: string, config: Record<string, unknown>) =>
      createProvider({ id, config: { apiBaseUrl: mock.baseUrl, apiKey: 'k-0123456789', ...config } }, ctx());
    await (await build('mistral:mistral-small-latest', { safe_prompt: true, max_tokens: 50 })).call(
      ask('m1'),
    );
    assert.equal(
      JSON.stringify(lastTo('m1').body),
      JSON.stringify({
        model: 'mistral-small-latest',
        messages: [{ role: 'user', content: 'm1' }],
        top_p: 1,
        max_tokens: 50,
        random_seed: null,
        safe_prompt: true,
      }),
    );
    await (await build('openrouter:x/y', { transforms: ['middle-out'], provider: { order: ['a'] } })).call(
      ask('r1'),
    );
    const r1 = lastTo('r1').body as Record<string, unknown>;
    assert.deepEqual(r1.transforms, ['middle-out']);
    assert.deepEqual(r1.provider, { order: ['a'] });
    await (await build('groq:qwen/qwen3-32b', { reasoning_format: 'parsed' })).call(ask('g1'));
    assert.equal((lastTo('g1').body as Record<string, unknown>).reasoning_format, 'parsed');
    await (await build('cerebras:llama3.1-8b', { max_tokens: 10, max_completion_tokens: 20 })).call(
      ask('c1'),
    );
    const c1 = lastTo('c1').body as Record<string, unknown>;
    assert.equal(c1.max_completion_tokens, 20);
    assert.equal('max_tokens' in c1, false);
    const local = await createProvider(
      { id: 'localai:chat:qwen3.5:9b' },
      ctx({ LOCALAI_BASE_URL: mock.baseUrl }),
    );
    await local.call(ask('l1'));
    const l1 = lastTo('l1');
    assert.equal(l1.headers.authorization, undefined, 'LocalAI is sent no key');
    assert.equal(
      JSON.stringify(l1.body),
      JSON.stringify({ model: 'qwen3.5:9b', messages: [{ role: 'user', content: 'l1' }], temperature: 0.7 }),
    );
  });

  it('embeddings models of a preset embed, at {base}/embeddings', async () => {
    const p = await createProvider(
      { id: 'mistral:embedding:mistral-embed', config: { apiBaseUrl: mock.baseUrl, apiKey: 'k-0123456789' } },
      ctx(),
    );
    const res = await p.embed!({ texts: ['a cat', 'a dog'] });
    assert.equal(res.error, undefined);
    assert.equal(res.embeddings?.length, 2);
    assert.equal(mock.requests.at(-1)?.path, '/v1/embeddings');
    const chat = await p.call(ask('x'));
    assert.match(chat.error ?? '', /embeddings model/);
  });

  it("a missing key is refused at the service's regional hosts too (xAI's region), not at another server", async () => {
    const regional = await createProvider({ id: 'xai:grok-3-mini', config: { region: 'eu-west-1' } }, ctx());
    assert.match(
      regional.unusable ?? '',
      /^xAI: no API key for https:\/\/eu-west-1\.api\.x\.ai\/v1: set XAI_API_KEY/,
    );
    const elsewhere = await createProvider(
      { id: 'xai:grok-3-mini', config: { apiBaseUrl: `${mock.url}/v1` } },
      ctx(),
    );
    assert.equal(elsewhere.unusable, undefined);
  });

  it('a missing key at the service itself, a wrong key, an unreachable host and a malformed answer each name the service', async () => {
    const noKey = await createProvider({ id: 'groq:llama-3.3-70b-versatile' }, ctx());
    const refused = await noKey.call(ask('no key'));
    assert.equal(refused.fatal, true);
    assert.equal(refused.attempts, 0);
    assert.match(
      refused.error ?? '',
      /^Groq: no API key for https:\/\/api\.groq\.com\/openai\/v1: set GROQ_API_KEY/,
    );

    const wrong = await createProvider(
      {
        id: 'xai:grok-3-mini',
        config: { apiBaseUrl: `${mock.url}/_/require_key=right/v1`, apiKey: 'wrong-key-0123456789' },
      },
      ctx(),
    );
    const denied = await wrong.call(ask('wrong key'));
    assert.equal(denied.fatal, true);
    assert.match(
      denied.error ?? '',
      /^xAI: authentication failed \(401\) at .*: Incorrect API key provided \(mock\)\.; check the provider's config\.apiKey/,
    );
    assert.ok(!(denied.error ?? '').includes('wrong-key-0123456789'));

    const gone = await startMockServer();
    const goneBase = gone.baseUrl;
    await gone.close();
    const unreachable = await createProvider(
      {
        id: 'deepseek:deepseek-chat',
        config: { apiBaseUrl: goneBase, apiKey: 'k-0123456789', maxRetries: 0 },
      },
      ctx(),
    );
    const down = await unreachable.call(ask('down'));
    assert.match(down.error ?? '', /^DeepSeek: connection error ECONNREFUSED/);

    const bad = await createProvider(
      {
        id: 'perplexity:sonar',
        config: { apiBaseUrl: `${mock.url}/_/status=200/v1`, apiKey: 'k-0123456789' },
      },
      ctx(),
    );
    const malformed = await bad.call(ask('malformed'));
    assert.match(malformed.error ?? '', /^Perplexity: malformed response \(no choices\)/);
  });
});
