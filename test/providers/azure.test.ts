// Azure OpenAI (issue 22): the OpenAI mapping with Azure's URL and key strategy, against the
// loopback mock — the deployment URL with its api-version, the `api-key` header, promptfoo's body
// defaults (and a reasoning deployment's), completions and embeddings, and the errors named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import { InputError } from '../../src/core/errors.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider, isKnownProviderId, providerOffersEmbeddings } from '../../src/providers/registry.js';
import type { ProviderContext, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';

const FAST: RetryPolicy = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 5_000 };
const KEY = 'azure-key-0123456789';
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await closeAllPools();
  await mock.close();
});
const ctx = (env: Record<string, string> = {}): ProviderContext => ({ env, maxConcurrency: 2, retry: FAST });
const ask = (text: string): ProviderRequest => ({
  prompt: text,
  messages: [{ role: 'user', content: text }],
  params: {},
});

describe('azure provider', () => {
  it('posts to the deployment with the api-version, the key as api-key, and promptfoo body defaults', async () => {
    const p = await createProvider(
      { id: 'azure:chat:my-gpt4o', config: { apiBaseUrl: mock.url, temperature: 0.5 } },
      ctx({ AZURE_API_KEY: KEY }),
    );
    const res = await p.call(ask('hello azure'));
    assert.equal(res.error, undefined, res.error);
    assert.equal(replyText(res), 'hello azure');
    assert.deepEqual(res.usage, { prompt: 2, completion: 2, total: 4 });
    const sent = mock.requests.at(-1)!;
    assert.equal(sent.url, '/openai/deployments/my-gpt4o/chat/completions?api-version=2024-12-01-preview');
    assert.equal(sent.headers['api-key'], KEY);
    assert.equal(sent.headers.authorization, undefined);
    assert.equal(
      JSON.stringify(sent.body),
      JSON.stringify({
        model: 'my-gpt4o',
        messages: [{ role: 'user', content: 'hello azure' }],
        max_tokens: 1024,
        temperature: 0.5,
        top_p: 1,
        presence_penalty: 0,
        frequency_penalty: 0,
      }),
    );
    assert.deepEqual(p.credentials, [KEY]);
  });

  it('reads AZURE_OPENAI_API_KEY and AZURE_API_HOST, apiVersion, and sends a reasoning deployment max_completion_tokens', async () => {
    const host = mock.url.replace('http://', '');
    // The host alone makes an https URL, as promptfoo's; apiBaseUrl reaches the plain-http mock.
    const viaHost = await createProvider(
      { id: 'azure:chat:d' },
      ctx({ AZURE_API_HOST: host, AZURE_OPENAI_API_KEY: KEY }),
    );
    assert.equal(viaHost.describe().baseUrl, `https://${host}`);
    const p = await createProvider(
      {
        id: 'azure:chat:o3-mini',
        config: { apiBaseUrl: mock.url, apiVersion: '2025-01-01', max_tokens: 300 },
      },
      ctx({ AZURE_OPENAI_API_KEY: KEY }),
    );
    await p.call(ask('reason'));
    const sent = mock.requests.at(-1)!;
    assert.equal(sent.url, '/openai/deployments/o3-mini/chat/completions?api-version=2025-01-01');
    assert.equal(sent.headers['api-key'], KEY);
    assert.equal(
      JSON.stringify(sent.body),
      JSON.stringify({
        model: 'o3-mini',
        messages: [{ role: 'user', content: 'reason' }],
        reasoning_effort: 'medium',
        top_p: 1,
        presence_penalty: 0,
        frequency_penalty: 0,
        max_completion_tokens: 300,
      }),
    );
  });

  it('azure:completion: sends the prompt text; azure:embedding: embeds', async () => {
    const c = await createProvider(
      { id: 'azure:completion:instruct', config: { apiBaseUrl: mock.url, apiKey: KEY } },
      ctx(),
    );
    const res = await c.call(ask('complete me'));
    assert.equal(replyText(res), 'complete me');
    const sent = mock.requests.at(-1)!;
    assert.equal(sent.path, '/openai/deployments/instruct/completions');
    assert.deepEqual(sent.body, {
      model: 'instruct',
      prompt: 'complete me',
      max_tokens: 1024,
      temperature: 0,
      top_p: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      best_of: 1,
    });
    assert.ok(isKnownProviderId('azure:embedding'));
    assert.equal(providerOffersEmbeddings('azure:embeddings:emb'), true);
    const e = await createProvider(
      { id: 'azure:embedding:emb', config: { apiBaseUrl: mock.url, apiKey: KEY } },
      ctx(),
    );
    const vectors = await e.embed!({ texts: ['one', 'two'] });
    assert.equal(vectors.embeddings?.length, 2, vectors.error);
    assert.equal(
      mock.requests.at(-1)!.url,
      '/openai/deployments/emb/embeddings?api-version=2024-12-01-preview',
    );
  });

  it('no endpoint is refused when built; no key, a wrong key and a malformed answer name Azure OpenAI', async () => {
    await assert.rejects(
      createProvider({ id: 'azure:chat:d' }, ctx({ AZURE_API_KEY: KEY })),
      (err: unknown) => {
        assert.ok(err instanceof InputError);
        assert.match(err.message, /no Azure endpoint: set the provider's apiHost \(or AZURE_API_HOST/);
        return true;
      },
    );
    const noKey = await createProvider({ id: 'azure:chat:d', config: { apiBaseUrl: mock.url } }, ctx());
    const refused = await noKey.call(ask('x'));
    assert.equal(refused.fatal, true);
    assert.match(
      refused.error ?? '',
      /^Azure OpenAI: no API key for .*: set AZURE_API_KEY, or AZURE_OPENAI_API_KEY/,
    );
    const wrong = await createProvider(
      {
        id: 'azure:chat:d',
        config: { apiBaseUrl: `${mock.url}/_/require_key=right`, apiKey: 'wrong-0123456789' },
      },
      ctx(),
    );
    const denied = await wrong.call(ask('wrong'));
    assert.match(denied.error ?? '', /^Azure OpenAI: authentication failed \(401\)/);
    assert.ok(!(denied.error ?? '').includes('wrong-0123456789'));
    const bad = await createProvider(
      { id: 'azure:chat:d', config: { apiBaseUrl: `${mock.url}/_/status=200`, apiKey: KEY } },
      ctx(),
    );
    assert.match((await bad.call(ask('bad'))).error ?? '', /^Azure OpenAI: malformed response/);
  });

  it('without a key, an Entra ID token from client credentials is sent as a bearer token, and kept secret', async () => {
    const env = {
      AZURE_CLIENT_ID: 'client-one',
      AZURE_CLIENT_SECRET: 'client-secret-0123456789',
      AZURE_TENANT_ID: 'tenant-1',
      AZURE_AUTHORITY_HOST: mock.url,
    };
    const learnt: string[] = [];
    const p = await createProvider(
      { id: 'azure:chat:d', config: { apiBaseUrl: `${mock.url}/_/require_key=mock-token-for-client-one` } },
      { ...ctx(env), addSecret: (v) => learnt.push(v) },
    );
    const res = await p.call(ask('with a token'));
    assert.equal(res.error, undefined, res.error);
    assert.equal(replyText(res), 'with a token');
    const [tokenRequest, chat] = mock.requests.slice(-2);
    assert.equal(tokenRequest.path, '/tenant-1/oauth2/v2.0/token');
    assert.deepEqual(tokenRequest.body, {
      client_id: 'client-one',
      client_secret: 'client-secret-0123456789',
      scope: 'https://cognitiveservices.azure.com/.default',
      grant_type: 'client_credentials',
    });
    assert.equal(chat.headers.authorization, 'Bearer mock-token-for-client-one');
    assert.equal(chat.headers['api-key'], undefined);
    assert.deepEqual(learnt, ['mock-token-for-client-one'], 'the run is told the token is a secret');
    assert.ok(p.credentials?.includes('client-secret-0123456789'));
    // The token is reused, not fetched per call.
    const before = mock.requests.length;
    await p.call(ask('again'));
    assert.equal(mock.requests.length, before + 1);
    // A refused client secret is a fatal error naming Azure OpenAI and the variables.
    const wrong = await createProvider(
      { id: 'azure:chat:d', config: { apiBaseUrl: mock.url } },
      ctx({ ...env, AZURE_CLIENT_SECRET: 'wrong' }),
    );
    const denied = await wrong.call(ask('x'));
    assert.equal(denied.fatal, true);
    assert.match(
      denied.error ?? '',
      /^Azure OpenAI: Entra ID token request to .* failed \(HTTP 401\): invalid_client; check AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and AZURE_TENANT_ID/,
    );
  });
});
