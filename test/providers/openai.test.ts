import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import { InputError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/types.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createOpenAiProvider, resolvePricing } from '../../src/providers/openai.js';
import { priceFor } from '../../src/providers/prices.js';
import type { Provider, ProviderContext, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { readResponse } from '../support/answers.js';
import { type MockServer, type RecordedRequest, startMockServer } from '../support/mock-openai.js';

const FAST_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 50, timeoutMs: 5_000 };
// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };
const SECRET = 'sk-test-secret-key-0123456789';

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

function context(overrides: Partial<ProviderContext> = {}): ProviderContext {
  return { env: {}, maxConcurrency: 4, retry: FAST_RETRY, ...overrides };
}

function provider(id: string, config: Record<string, unknown> = {}, ctx = context()): Provider {
  return createOpenAiProvider({ id, config: { apiBaseUrl: mock.baseUrl, ...config } }, ctx);
}

function ask(text: string, params: Record<string, unknown> = {}): ProviderRequest {
  return { prompt: text, messages: [{ role: 'user', content: text }], params };
}

/** The last request the mock recorded whose last message has this text. */
function sent(text: string): RecordedRequest {
  const found = mock.requests.findLast((r) => {
    const body = r.body as { messages?: { content?: unknown }[] } | undefined;
    return body?.messages?.at(-1)?.content === text;
  });
  assert.ok(found, `no request with "${text}"`);
  return found;
}

describe('openai provider', () => {
  it(
    'returns output, finish reason, usage, latency and attempts; no list price away from api.openai.com',
    TIMEOUT,
    async () => {
      const p = provider('openai:chat:gpt-4o-mini');
      const res = await p.call(ask('hello plain call'));
      assert.equal(res.error, undefined);
      assert.equal(replyText(res), 'hello plain call');
      assert.equal(readResponse(res).finishReason, 'stop');
      assert.deepEqual(res.usage, { prompt: 3, completion: 3, total: 6 });
      assert.equal(res.attempts, 1);
      assert.equal(typeof res.latencyMs, 'number');
      assert.ok(res.latencyMs >= 0);
      assert.equal(res.cost, undefined, 'a local server is not billed at OpenAI list prices');
      const request = sent('hello plain call');
      assert.equal(request.path, '/v1/chat/completions');
      assert.equal((request.body as { model: string }).model, 'gpt-4o-mini');
    },
  );

  it('accepts openai:<model>', TIMEOUT, async () => {
    const res = await provider('openai:gpt-4o-2024-08-06').call(ask('dated model'));
    assert.equal(replyText(res), 'dated model');
    assert.equal((sent('dated model').body as { model: string }).model, 'gpt-4o-2024-08-06');
  });

  it('applies list prices (dated snapshots too) only at api.openai.com; config prices anywhere', () => {
    const price = priceFor('gpt-4o-mini');
    assert.ok(price);
    const openai = resolvePricing({}, 'gpt-4o-mini', 'https://api.openai.com');
    assert.ok(openai);
    assert.ok(
      Math.abs(openai.input * 3 + openai.output * 3 - (3 * price.input + 3 * price.output) / 1e6) < 1e-15,
    );
    assert.ok(resolvePricing({}, 'gpt-4o-2024-08-06', 'https://api.openai.com'));
    assert.equal(resolvePricing({}, 'gpt-4o-mini', 'http://127.0.0.1:8000'), undefined);
    assert.deepEqual(resolvePricing({ cost: 0.5 }, 'gpt-4o-mini', 'http://127.0.0.1:8000'), {
      input: 0.5,
      output: 0.5,
    });
  });

  it('leaves cost unset for an unpriced model, and uses config.cost when given', TIMEOUT, async () => {
    const unpriced = await provider('openai:chat:local-llama').call(ask('no price here'));
    assert.equal(unpriced.cost, undefined);
    const perToken = await provider('openai:chat:local-llama', { cost: 0.001 }).call(ask('one two'));
    assert.ok(perToken.cost !== undefined && Math.abs(perToken.cost - 0.004) < 1e-12);
    const split = await provider('openai:chat:local-llama', { inputCost: 0.01, outputCost: 0.1 }).call(
      ask('three words here'),
    );
    assert.ok(split.cost !== undefined && Math.abs(split.cost - (3 * 0.01 + 3 * 0.1)) < 1e-12);
  });

  it('passes generation parameters through, per-job params over config, nothing else', TIMEOUT, async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    const p = provider('openai:chat:gpt-4o-mini', {
      temperature: 0.2,
      max_tokens: 50,
      top_p: 0.9,
      seed: 7,
      stop: ['END'],
      response_format: { type: 'json_object' },
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      tools,
      tool_choice: 'auto',
      max_completion_tokens: 60,
      apiKey: SECRET,
      headers: { 'X-Trace': 'abc' },
      somethingElse: true,
    });
    await p.call(ask('params please', { temperature: 0.9, seed: 11, notAnApiParam: 1 }));
    const request = sent('params please');
    assert.deepEqual(request.body, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'params please' }],
      temperature: 0.9,
      max_tokens: 50,
      top_p: 0.9,
      seed: 11,
      stop: ['END'],
      response_format: { type: 'json_object' },
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      tools,
      tool_choice: 'auto',
      max_completion_tokens: 60,
    });
    assert.equal(request.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(request.headers['x-trace'], 'abc');
  });

  it('sends chat messages as given and drops the trailing hole', TIMEOUT, async () => {
    const messages: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer', variable: 'a1' },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      { role: 'assistant', content: null, variable: 'a2' },
    ];
    const res = await provider('openai:chat:gpt-4o-mini').call({ prompt: 'x', messages, params: {} });
    assert.equal(replyText(res), 'second question');
    const request = mock.requests.at(-1);
    assert.ok(request);
    assert.deepEqual((request.body as { messages: unknown }).messages, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
    ]);
  });

  it('gets replies from the mock answer rules', TIMEOUT, async () => {
    const res = await provider('openai:chat:gpt-4o-mini').call(ask('What is the capital of France?'));
    assert.equal(replyText(res), 'The capital of France is unknown to the mock.');
    assert.equal(readResponse(res).nonText, undefined);
  });

  it('returns tool calls as JSON when the message has no content', TIMEOUT, async () => {
    const res = await provider('openai:chat:gpt-4o-mini').call(ask('what is the weather in Lagos'));
    assert.equal(readResponse(res).finishReason, 'tool_calls');
    assert.equal(readResponse(res).nonText, 'tool calls');
    const calls = JSON.parse(replyText(res) ?? 'null') as { function: { name: string; arguments: string } }[];
    assert.equal(calls[0].function.name, 'get_weather');
    assert.equal(calls[0].function.arguments, '{"city":"Lagos"}');
  });

  it('reports finish reason length when max_tokens truncates', TIMEOUT, async () => {
    const res = await provider('openai:chat:gpt-4o-mini', { max_tokens: 3 }).call(
      ask('one two three four five six'),
    );
    assert.equal(replyText(res), 'one two three');
    assert.equal(readResponse(res).finishReason, 'length');
    assert.equal(res.usage?.completion, 3);
  });

  it('retries 429s and 500s and resets and succeeds', TIMEOUT, async () => {
    const base = `${mock.url}/_/fail_429=1&fail_500=1&fault_attempts=2&retry_after=0/v1`;
    const res = await provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base }).call(ask('eventually fine'));
    assert.equal(res.error, undefined);
    assert.equal(replyText(res), 'eventually fine');
    assert.equal(res.attempts, 3);
  });

  it('returns an error result (no throw) naming the attempts when retries run out', TIMEOUT, async () => {
    const base = `${mock.url}/_/fail_500=1/v1`;
    const res = await provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base, maxRetries: 2 }).call(
      ask('always failing'),
    );
    assert.equal(replyText(res), null);
    assert.equal(res.attempts, 3);
    assert.notEqual(res.fatal, true);
    assert.match(res.error ?? '', /HTTP 500 after 3 attempts/);
  });

  it('times out a hanging server and says so', TIMEOUT, async () => {
    const base = `${mock.url}/_/hang=1/v1`;
    const res = await provider('openai:chat:gpt-4o-mini', {
      apiBaseUrl: base,
      maxRetries: 1,
      timeoutMs: 100,
    }).call(ask('hang forever'));
    assert.equal(res.attempts, 2);
    assert.match(res.error ?? '', /timed out .*100 ms.*after 2 attempts/);
  });

  it('does not retry a 400 and reports the server message', TIMEOUT, async () => {
    const base = `${mock.url}/_/status=400/v1`;
    const before = mock.stats().byStatus['400'] ?? 0;
    const res = await provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base }).call(ask('bad request'));
    assert.equal(res.attempts, 1);
    assert.equal(mock.stats().byStatus['400'], before + 1);
    assert.match(res.error ?? '', /HTTP 400 after 1 attempt: mock status 400/);
  });

  it('treats 401 as fatal, does not retry it, and never leaks the key', TIMEOUT, async () => {
    const base = `${mock.url}/_/require_key=the-right-key/v1`;
    const before = mock.stats().byStatus['401'] ?? 0;
    const p = provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base, apiKey: SECRET });
    const res = await p.call(ask('who am i'));
    assert.equal(res.fatal, true);
    assert.equal(res.attempts, 1);
    assert.equal(mock.stats().byStatus['401'], before + 1);
    assert.match(
      res.error ?? '',
      /^OpenAI: authentication failed \(401\) at http:\/\/127\.0\.0\.1:\d+\/_\/.*\/v1: .*; check the provider's config\.apiKey$/,
    );
    assert.ok(!(res.error ?? '').includes(SECRET));
    // A key from the environment: the message names the variable it came from.
    const fromEnv = await provider(
      'openai:chat:gpt-4o-mini',
      { apiBaseUrl: base },
      {
        ...context(),
        env: { OPENAI_API_KEY: SECRET },
      },
    ).call(ask('who am i'));
    assert.match(fromEnv.error ?? '', /; check OPENAI_API_KEY$/);
    const named = await provider(
      'openai:chat:gpt-4o-mini',
      { apiBaseUrl: base, apiKeyEnvar: 'MY_KEY' },
      {
        ...context(),
        env: { MY_KEY: SECRET },
      },
    ).call(ask('who am i'));
    assert.match(named.error ?? '', /; check MY_KEY$/);
    assert.ok(!JSON.stringify(p.describe()).includes(SECRET));
    const ok = await provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base, apiKey: 'the-right-key' }).call(
      ask('right key'),
    );
    assert.equal(replyText(ok), 'right key');
  });

  it('redacts the key and credential headers even when the server echoes them', TIMEOUT, async () => {
    // The mock's 404 message echoes the request path, so a secret in the path comes back in the error.
    const headerSecret = 'hdr-secret-9876';
    const p = provider('openai:chat:gpt-4o-mini', {
      apiBaseUrl: `${mock.url}/${SECRET}/${headerSecret}/v1`,
      apiKey: SECRET,
      headers: { 'X-Api-Key': headerSecret },
    });
    const res = await p.call(ask('echoed key'));
    assert.equal(
      res.error,
      'OpenAI: HTTP 404 after 1 attempt: no route for POST /[redacted]/[redacted]/v1/chat/completions',
    );
    assert.equal(sent('echoed key').headers['x-api-key'], headerSecret);
  });

  it(
    'uses the key from apiKeyEnvar or OPENAI_API_KEY in the context env, and names that variable',
    TIMEOUT,
    async () => {
      const base = `${mock.url}/_/require_key=env-key/v1`;
      const fromEnv = createOpenAiProvider(
        { id: 'openai:chat:gpt-4o-mini', config: { apiBaseUrl: base } },
        context({ env: { OPENAI_API_KEY: 'env-key' } }),
      );
      assert.equal(replyText(await fromEnv.call(ask('env key'))), 'env key');
      const named = createOpenAiProvider(
        { id: 'openai:chat:gpt-4o-mini', config: { apiBaseUrl: base, apiKeyEnvar: 'MY_KEY' } },
        context({ env: { MY_KEY: 'wrong', OPENAI_API_KEY: 'env-key' } }),
      );
      const res = await named.call(ask('named env key'));
      assert.equal(res.fatal, true);
      assert.match(res.error ?? '', /check MY_KEY/);
    },
  );

  it('resolves the base URL from OPENAI_BASE_URL in the context env', TIMEOUT, async () => {
    const p = createOpenAiProvider(
      { id: 'openai:chat:m' },
      context({ env: { OPENAI_BASE_URL: `${mock.baseUrl}/` } }),
    );
    assert.equal(p.describe().baseUrl, mock.baseUrl);
    assert.equal(replyText(await p.call(ask('via env base'))), 'via env base');
    const legacy = createOpenAiProvider(
      { id: 'openai:chat:m' },
      context({ env: { OPENAI_API_BASE_URL: mock.baseUrl } }),
    );
    assert.equal(legacy.describe().baseUrl, mock.baseUrl);
    const host = createOpenAiProvider(
      { id: 'openai:chat:m', config: { apiHost: 'llm.example.com' } },
      context(),
    );
    assert.equal(host.describe().baseUrl, 'https://llm.example.com/v1');
  });

  it('refuses to call api.openai.com without a key, at once and fatally', TIMEOUT, async () => {
    const p = createOpenAiProvider({ id: 'openai:chat:gpt-4o-mini' }, context());
    const res = await p.call(ask('no key'));
    assert.equal(res.fatal, true);
    assert.equal(replyText(res), null);
    assert.match(res.error ?? '', /OPENAI_API_KEY/);
    assert.match(res.error ?? '', /OPENAI_BASE_URL/);
  });

  it('refuses a malformed config when created (exit 2), positioned where it was written', () => {
    const source = { file: 'suite.yaml', line: 4, col: 7 };
    const create = (id: string, config: Record<string, unknown>) => () =>
      createOpenAiProvider({ id, config, source }, context());
    assert.throws(create('openai:chat:gpt-4o-mini', { apiBaseUrl: 'not a url' }), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.deepEqual(err.diagnostics, [
        {
          ...source,
          severity: 'error',
          message:
            'invalid base URL "not a url" for openai:chat:gpt-4o-mini: expected http(s)://host[:port]/path',
        },
      ]);
      return true;
    });
    assert.throws(create('openai:chat:gpt-4o-mini', { apiBaseUrl: 'ftp://example.com/v1' }), InputError);
    assert.throws(create('openai:chat:gpt-4o-mini', { apiHost: 'bad host name' }), /invalid base URL/);
    assert.throws(create('openai:chat:', { apiBaseUrl: mock.baseUrl }), /names no model/);
    // A missing key is no config mistake: validation must not need secrets, so creation succeeds.
    assert.doesNotThrow(create('openai:chat:gpt-4o-mini', {}));
  });

  it('describes itself without secrets', () => {
    const p = createOpenAiProvider(
      {
        id: 'openai:chat:gpt-4o-mini',
        config: {
          apiBaseUrl: mock.baseUrl,
          apiKey: SECRET,
          temperature: 0,
          headers: { authorization: SECRET },
        },
      },
      context(),
    );
    assert.deepEqual(p.describe(), {
      id: 'openai:chat:gpt-4o-mini',
      model: 'gpt-4o-mini',
      baseUrl: mock.baseUrl,
      params: { temperature: 0 },
    });
  });

  it('reports a malformed success body as an error with an excerpt', TIMEOUT, async () => {
    const base = `${mock.url}/_/status=200/v1`;
    const res = await provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base }).call(ask('malformed'));
    assert.equal(replyText(res), null);
    assert.match(res.error ?? '', /malformed response \(no choices\): \{"error"/);
  });

  it('reports an unreachable server as an error naming the base URL', TIMEOUT, async () => {
    const gone = await startMockServer();
    const base = gone.baseUrl;
    await gone.close();
    const res = await provider('openai:chat:gpt-4o-mini', { apiBaseUrl: base, maxRetries: 1 }).call(
      ask('nobody'),
    );
    assert.equal(replyText(res), null);
    assert.equal(res.attempts, 2);
    assert.match(res.error ?? '', /connection error ECONNREFUSED after 2 attempts/);
    assert.ok((res.error ?? '').includes(base));
  });

  it('honours Retry-After through the injected sleep', TIMEOUT, async () => {
    const delays: number[] = [];
    const p = createOpenAiProvider(
      {
        id: 'openai:chat:gpt-4o-mini',
        config: { apiBaseUrl: `${mock.url}/_/fail_429=1&fault_attempts=1&retry_after=2/v1` },
      },
      context({ retry: { ...FAST_RETRY, maxDelayMs: 60_000 } }),
      {
        sleep: async (ms) => {
          delays.push(ms);
        },
      },
    );
    const res = await p.call(ask('retry after two'));
    assert.equal(replyText(res), 'retry after two');
    assert.deepEqual(delays, [2000]);
  });

  it('sustains 1,000 calls at concurrency 50 through 429s, 500s and resets', TIMEOUT, async () => {
    const load = await startMockServer();
    try {
      const base = `${load.url}/_/fail_429=0.1&fail_500=0.05&fail_reset=0.02&retry_after=0/v1`;
      const p = createOpenAiProvider(
        { id: 'openai:chat:gpt-4o-mini', config: { apiBaseUrl: base } },
        context({
          maxConcurrency: 50,
          retry: { maxAttempts: 10, baseDelayMs: 1, maxDelayMs: 20, timeoutMs: 10_000 },
        }),
      );
      const total = 1000;
      let next = 0;
      let failures = 0;
      let retried = 0;
      const worker = async (): Promise<void> => {
        while (next < total) {
          const i = next++;
          const res = await p.call(ask(`load case ${i}`));
          if (replyText(res) !== `load case ${i}`) failures++;
          if ((res.attempts ?? 0) > 1) retried++;
        }
      };
      await Promise.all(Array.from({ length: 50 }, worker));
      assert.equal(failures, 0);
      assert.ok(retried > 0, 'faults were injected');
      const stats = load.stats();
      assert.equal(stats.byStatus['200'], total);
      assert.ok(stats.resets > 0 && (stats.byStatus['429'] ?? 0) > 0 && (stats.byStatus['500'] ?? 0) > 0);
      assert.ok(stats.maxInFlight <= 50, `max in flight ${stats.maxInFlight}`);
    } finally {
      await load.close();
    }
  });
});
