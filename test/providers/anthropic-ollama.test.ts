import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/core/errors.js';
import type { Message, ProviderSpec } from '../../src/core/types.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider, isKnownProviderId } from '../../src/providers/registry.js';
import type { Provider, ProviderContext, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { type MockServer, type RecordedRequest, startMockServer } from '../support/mock-openai.js';

const FAST_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 50, timeoutMs: 5_000 };
// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };
const SECRET = 'sk-ant-test-secret-0123456789';

let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: 'capital of (\\w+)', reply: 'The capital of $1 is unknown to the mock.' },
      { match: 'weather in (\\w+)', toolCall: { name: 'get_weather', arguments: '{"city":"$1"}' } },
    ],
  });
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

function context(env: Record<string, string> = {}): ProviderContext {
  return { env, maxConcurrency: 4, retry: FAST_RETRY };
}

function make(spec: ProviderSpec, env: Record<string, string> = {}): Promise<Provider> {
  return createProvider(spec, context(env));
}

function ask(messages: Message[] | string, params: Record<string, unknown> = {}): ProviderRequest {
  const list: Message[] = typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages;
  const text = list.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  return { prompt: text, messages: list, params };
}

/** The last request the mock recorded on `path` whose body mentions `marker`. */
function sent(path: string, marker: string): RecordedRequest & { body: Record<string, unknown> } {
  const found = mock.requests.findLast((r) => r.path === path && JSON.stringify(r.body).includes(marker));
  assert.ok(found, `no request to ${path} with "${marker}"`);
  return found as RecordedRequest & { body: Record<string, unknown> };
}

describe('anthropic provider (Messages API)', () => {
  const spec = (
    config: Record<string, unknown> = {},
    id = 'anthropic:messages:claude-test',
  ): ProviderSpec => ({
    id,
    config: { apiBaseUrl: mock.url, ...config },
  });

  it('is known by both id shapes and not by a bare prefix', () => {
    assert.ok(isKnownProviderId('anthropic:messages:claude-3-5-haiku-latest'));
    assert.ok(isKnownProviderId('anthropic:claude-3-5-haiku-latest'));
    assert.equal(isKnownProviderId('anthropic:messages:'), false);
    assert.equal(isKnownProviderId('anthropic:'), false);
  });

  it(
    'sends system messages apart, max_tokens by default, and reads text, stop reason and usage',
    TIMEOUT,
    async () => {
      const p = await make(spec({ apiKey: SECRET, temperature: 0.2 }));
      const res = await p.call(
        ask([
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'what is the capital of Peru' },
          { role: 'assistant', content: null },
        ]),
      );
      assert.equal(res.error, undefined);
      assert.equal(res.output, 'The capital of Peru is unknown to the mock.');
      assert.equal(res.finishReason, 'end_turn');
      assert.equal(res.usage?.prompt, 8);
      assert.equal(res.usage?.completion, 9);
      assert.equal(res.attempts, 1);
      const req = sent('/v1/messages', 'capital of Peru');
      assert.deepEqual(req.body, {
        model: 'claude-test',
        max_tokens: 1024,
        temperature: 0.2,
        messages: [{ role: 'user', content: 'what is the capital of Peru' }],
        system: 'Be brief.',
      });
      assert.equal(req.headers['x-api-key'], SECRET);
      assert.equal(req.headers['anthropic-version'], '2023-06-01');
      assert.equal(req.headers.authorization, undefined);
    },
  );

  it('takes per-job params over the config, and reports max_tokens truncation', TIMEOUT, async () => {
    const p = await make(spec({ max_tokens: 500 }));
    const res = await p.call(ask('one two three four five six', { max_tokens: 3 }));
    assert.equal(res.output, 'one two three');
    assert.equal(res.finishReason, 'max_tokens');
    assert.equal(sent('/v1/messages', 'four five six').body.max_tokens, 3);
  });

  it('gives tool_use blocks as JSON when there is no text', TIMEOUT, async () => {
    const p = await make(spec());
    const res = await p.call(ask('what is the weather in Lima'));
    assert.equal(res.nonText, 'tool calls');
    assert.deepEqual(JSON.parse(res.output ?? ''), [
      { type: 'tool_use', id: 'toolu_mock_0', name: 'get_weather', input: { city: 'Lima' } },
    ]);
    assert.equal(res.finishReason, 'tool_use');
  });

  it('retries 429s, 500s and resets through the call policy', TIMEOUT, async () => {
    const p = await make({
      id: 'anthropic:claude-test',
      config: {
        apiBaseUrl: `${mock.url}/_/fail_429=0.5&fail_500=0.3&fail_reset=0.1&retry_after=0&fault_attempts=2`,
      },
    });
    let retried = 0;
    for (let i = 0; i < 12; i++) {
      const res = await p.call(ask(`retry me ${i}`));
      assert.equal(res.error, undefined, res.error);
      assert.equal(res.output, `retry me ${i}`);
      if ((res.attempts ?? 0) > 1) retried++;
    }
    assert.ok(retried > 0, 'some call was retried');
  });

  it(
    'stops the run on a refused key, naming where the key came from and never showing it',
    TIMEOUT,
    async () => {
      const p = await make(
        {
          id: 'anthropic:claude-test',
          config: { apiBaseUrl: `${mock.url}/_/require_key=right-key` },
          source: { file: 'promptfooconfig.yaml', line: 4 },
        },
        { ANTHROPIC_API_KEY: SECRET },
      );
      const res = await p.call(ask('hello'));
      assert.equal(res.fatal, true);
      assert.equal(res.attempts, 1);
      assert.match(res.error ?? '', /authentication failed \(401\).*check ANTHROPIC_API_KEY/);
      assert.ok(!(res.error ?? '').includes(SECRET));
    },
  );

  it('refuses to call api.anthropic.com without a key, at once and fatally', TIMEOUT, async () => {
    const p = await make({ id: 'anthropic:messages:claude-test' });
    const res = await p.call(ask('hello'));
    assert.equal(res.fatal, true);
    assert.equal(res.attempts, 0);
    assert.match(res.error ?? '', /no API key for https:\/\/api\.anthropic\.com: set ANTHROPIC_API_KEY/);
  });

  it('refuses a bad base URL when created, where it was written', async () => {
    await assert.rejects(
      make({
        id: 'anthropic:claude-test',
        config: { apiBaseUrl: 'ftp://x' },
        source: { file: 'c.yaml', line: 7 },
      }),
      (err: unknown) =>
        err instanceof InputError &&
        /invalid base URL "ftp:\/\/x"/.test(err.message) &&
        err.diagnostics[0].line === 7,
    );
  });

  it('keys the cache on the request as sent, without the key', async () => {
    const a = await make(spec({ apiKey: SECRET }));
    const b = await make(spec({ apiKey: SECRET, top_k: 5 }));
    const key = JSON.stringify(a.requestKey?.(ask('x')));
    assert.ok(!key.includes(SECRET));
    assert.notEqual(key, JSON.stringify(b.requestKey?.(ask('x'))));
  });
});

describe('ollama provider (native API)', () => {
  const spec = (id: string, config: Record<string, unknown> = {}): ProviderSpec => ({
    id,
    config: { apiBaseUrl: mock.url, ...config },
  });

  it(
    'chat: sends messages with options nested and top-level fields apart, reads the message',
    TIMEOUT,
    async () => {
      const p = await make(
        spec('ollama:chat:llama3.2', {
          temperature: 0,
          num_ctx: 4096,
          format: 'json',
          passthrough: { options: { seed: 7 }, keep_alive: '5m' },
        }),
      );
      const res = await p.call(
        ask(
          [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'the capital of Chile' },
          ],
          { num_predict: 50 },
        ),
      );
      assert.equal(res.error, undefined);
      assert.equal(res.output, 'The capital of Chile is unknown to the mock.');
      assert.equal(res.finishReason, 'stop');
      assert.deepEqual(res.usage, { prompt: 6, completion: 9, total: 15 });
      const body = sent('/api/chat', 'capital of Chile').body;
      assert.deepEqual(body, {
        model: 'llama3.2',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'the capital of Chile' },
        ],
        stream: false,
        format: 'json',
        options: { temperature: 0, num_ctx: 4096, num_predict: 50, seed: 7 },
        keep_alive: '5m',
      });
    },
  );

  it('completion (and the bare id): sends the prompt text to /api/generate', TIMEOUT, async () => {
    for (const id of ['ollama:completion:llama3.2', 'ollama:llama3.2']) {
      const p = await make(spec(id));
      const res = await p.call(ask(`capital of Norway via ${id}`));
      assert.equal(res.output, 'The capital of Norway is unknown to the mock.');
      assert.equal(sent('/api/generate', `via ${id}`).body.prompt, `capital of Norway via ${id}`);
    }
  });

  it('chat: tool calls come back in OpenAI shape', TIMEOUT, async () => {
    const p = await make(spec('ollama:chat:llama3.2'));
    const res = await p.call(ask('weather in Oslo'));
    assert.equal(res.nonText, 'tool calls');
    assert.deepEqual(JSON.parse(res.output ?? ''), [
      { type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
  });

  it('reports a num_predict truncation as length, and an error body as an error', TIMEOUT, async () => {
    const p = await make(spec('ollama:chat:llama3.2', { num_predict: 2 }));
    const res = await p.call(ask('alpha beta gamma'));
    assert.equal(res.output, 'alpha beta');
    assert.equal(res.finishReason, 'length');
    const bad = await make({ id: 'ollama:chat:x', config: { apiBaseUrl: `${mock.url}/_/status=404` } });
    const failed = await bad.call(ask('anything'));
    assert.equal(failed.output, null);
    assert.match(failed.error ?? '', /404/);
    assert.equal(failed.attempts, 1, 'a 404 is not retried');
  });

  it('embeddings from /api/embed, in order', TIMEOUT, async () => {
    const p = await make(spec('ollama:embeddings:nomic-embed-text'));
    assert.ok(p.embed);
    const res = await p.embed({ texts: ['red apple', 'green pear'] });
    assert.equal(res.error, undefined);
    assert.equal(res.embeddings?.length, 2);
    assert.equal(sent('/api/embed', 'red apple').body.model, 'nomic-embed-text');
    const chat = await p.call(ask('hi'));
    assert.match(chat.error ?? '', /embeddings model/);
  });

  it('uses OLLAMA_BASE_URL when the config names no base', TIMEOUT, async () => {
    const p = await make({ id: 'ollama:chat:llama3.2' }, { OLLAMA_BASE_URL: mock.url });
    const res = await p.call(ask('from the environment'));
    assert.equal(res.output, 'from the environment');
  });
});
