import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { closeAllPools, requestWithRetry } from '../../src/providers/http-transport.js';
import { type MockServer, type MockStats, parseFaults, startMockServer } from './mock-openai.js';
import { waitFor } from './processes.js';

// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };

let mock: MockServer;

before(async () => {
  mock = await startMockServer({ answers: [{ match: '^translate (\\w+) to (\\w+)$', reply: '$2 for $1' }] });
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

interface Reply {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function call(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${mock.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

function chatBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'some-model', messages: [{ role: 'user', content: text }], ...extra };
}

interface ChatReply {
  model: string;
  choices: { message: { content: string | null }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

describe('mock OpenAI server', () => {
  it('listens on 127.0.0.1 and answers /health', TIMEOUT, async () => {
    assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(mock.baseUrl, `${mock.url}/v1`);
    const health = await call('/health');
    assert.deepEqual(health.json, { status: 'ok' });
  });

  it('echoes the last user message, the model, and counts words as tokens', TIMEOUT, async () => {
    const body = {
      model: 'echo-me',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'first thing' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'the last message' }] },
      ],
    };
    const reply = (await call('/v1/chat/completions', body)).json as unknown as ChatReply;
    assert.equal(reply.model, 'echo-me');
    assert.equal(reply.choices[0].message.content, 'the last message');
    assert.equal(reply.choices[0].finish_reason, 'stop');
    assert.deepEqual(reply.usage, { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 });
  });

  it('applies the first matching answer rule, with groups', TIMEOUT, async () => {
    const reply = (await call('/v1/chat/completions', chatBody('Translate cat to French')))
      .json as unknown as ChatReply;
    assert.equal(reply.choices[0].message.content, 'French for cat');
  });

  it('truncates to max_tokens / max_completion_tokens words with finish_reason length', TIMEOUT, async () => {
    const a = (await call('/v1/chat/completions', chatBody('a b c d e', { max_tokens: 2 })))
      .json as unknown as ChatReply;
    assert.equal(a.choices[0].message.content, 'a b');
    assert.equal(a.choices[0].finish_reason, 'length');
    assert.equal(a.usage.completion_tokens, 2);
    const b = (await call('/v1/chat/completions', chatBody('a b c', { max_completion_tokens: 3 })))
      .json as unknown as ChatReply;
    assert.equal(b.choices[0].finish_reason, 'stop');
  });

  it('returns deterministic 256-dimension unit embeddings', TIMEOUT, async () => {
    const first = (await call('/v1/embeddings', { model: 'e', input: ['alpha', 'beta'] })).json as {
      data: { embedding: number[]; index: number }[];
    };
    const again = (await call('/v1/embeddings', { model: 'e', input: 'alpha' })).json as {
      data: { embedding: number[] }[];
    };
    assert.equal(first.data.length, 2);
    const [alpha, beta] = first.data.map((d) => d.embedding);
    assert.equal(alpha.length, 256);
    assert.ok(Math.abs(Math.hypot(...alpha) - 1) < 1e-9);
    assert.deepEqual(again.data[0].embedding, alpha);
    assert.notDeepEqual(alpha, beta);
  });

  it(
    'embeds a hashed bag of words: shared words mean high cosine, none mean near zero',
    TIMEOUT,
    async () => {
      const texts = [
        'The capital of France is Paris.',
        'Paris is the capital of France',
        'Bananas grow on tall tropical plants',
      ];
      const reply = (await call('/v1/embeddings', { model: 'e', input: texts })).json as {
        data: { embedding: number[] }[];
      };
      const [a, b, c] = reply.data.map((d) => d.embedding);
      const cos = (x: number[], y: number[]): number => x.reduce((sum, v, i) => sum + v * y[i], 0);
      assert.ok(cos(a, b) > 0.99, `same words, other order: ${cos(a, b)}`);
      assert.ok(Math.abs(cos(a, c)) < 0.5, `no shared words: ${cos(a, c)}`);
    },
  );

  it('matches scripted answers against the last message when no user message exists', TIMEOUT, async () => {
    const body = { model: 'm', messages: [{ role: 'system', content: 'translate cat to chat' }] };
    const reply = (await call('/v1/chat/completions', body)).json as unknown as ChatReply;
    assert.equal(reply.choices[0].message.content, 'chat for cat');
  });

  it('lists models and 404s unknown routes', TIMEOUT, async () => {
    const models = await call('/v1/models');
    assert.equal(models.status, 200);
    assert.equal((models.json.data as unknown[]).length > 0, true);
    const missing = await call('/v1/nothing', {});
    assert.equal(missing.status, 404);
    assert.match(String((missing.json.error as { message: string }).message), /no route/);
  });

  it('injects 429 with Retry-After and retry-after-ms from the path prefix', TIMEOUT, async () => {
    const a = await call('/_/fail_429=1/v1/chat/completions', chatBody('limit me'));
    assert.equal(a.status, 429);
    assert.equal(a.headers.get('retry-after'), '1');
    const b = await call(
      '/_/fail_429=1&retry_after=none&retry_after_ms=40/v1/chat/completions',
      chatBody('x'),
    );
    assert.equal(b.headers.get('retry-after'), null);
    assert.equal(b.headers.get('retry-after-ms'), '40');
  });

  it('answers require_key with 401 unless the bearer token matches', TIMEOUT, async () => {
    const denied = await call('/_/require_key=k1/v1/chat/completions', chatBody('who'));
    assert.equal(denied.status, 401);
    assert.equal(typeof (denied.json.error as { message: unknown }).message, 'string');
    const allowed = await call('/_/require_key=k1/v1/chat/completions', chatBody('who'), {
      authorization: 'Bearer k1',
    });
    assert.equal(allowed.status, 200);
  });

  it('answers a fixed status, and rejects unknown fault keys with 400', TIMEOUT, async () => {
    assert.equal((await call('/_/status=503/v1/chat/completions', chatBody('s'))).status, 503);
    const bad = await call('/_/fail_42=1/v1/chat/completions', chatBody('s'));
    assert.equal(bad.status, 400);
    assert.match(String((bad.json.error as { message: string }).message), /unknown mock fault "fail_42"/);
    assert.throws(() => parseFaults('fail_429=2'), /fail_429=2/);
  });

  it('limits faults to the first attempts of each request with fault_attempts', TIMEOUT, async () => {
    const path = '/_/fail_500=1&fault_attempts=2/v1/chat/completions';
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(path, chatBody('same body'))).status);
    assert.deepEqual(statuses, [500, 500, 200]);
  });

  it('records the last 1000 requests with headers and bodies', TIMEOUT, async () => {
    const own = await startMockServer();
    try {
      const origin = own.url;
      for (let i = 0; i < 1005; i++) {
        const outcome = await requestWithRetry(
          {
            origin,
            path: '/_/latency_ms=0/v1/chat/completions',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-n': String(i) },
            body: JSON.stringify(chatBody(`n ${i}`)),
          },
          { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 5_000 },
          { connections: 2 },
        );
        assert.equal(outcome.ok, true);
      }
      const requests = own.requests;
      assert.equal(requests.length, 1000);
      assert.equal(requests[0].headers['x-n'], '5');
      assert.equal(requests[999].headers['x-n'], '1004');
      assert.equal(requests[999].path, '/v1/chat/completions');
      assert.equal(requests[999].faults, 'latency_ms=0');
      assert.deepEqual((requests[999].body as { messages: unknown }).messages, [
        { role: 'user', content: 'n 1004' },
      ]);
      const stats = own.stats();
      assert.equal(stats.requests, 1005);
      assert.ok(stats.connections <= 2);
      assert.equal(stats.requestsPerConnection.max * stats.connections >= 1005, true);
    } finally {
      await own.close();
    }
  });

  it('serves /stats and resets it with ?reset=1', TIMEOUT, async () => {
    const own = await startMockServer();
    try {
      await fetch(`${own.baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(chatBody('one')),
      });
      const first = (await (await fetch(`${own.url}/stats?reset=1`)).json()) as MockStats;
      assert.equal(first.requests, 1);
      assert.deepEqual(first.byStatus, { '200': 1 });
      const second = (await (await fetch(`${own.url}/stats`)).json()) as MockStats;
      assert.equal(second.requests, 0);
    } finally {
      await own.close();
    }
  });

  it('meets the same faults on two identical runs', TIMEOUT, async () => {
    const own = await startMockServer({ faults: 'fail_429=0.2&fail_500=0.1&fail_reset=0.05&retry_after=0' });
    try {
      const run = async (): Promise<Pick<MockStats, 'requests' | 'byStatus' | 'resets'>> => {
        own.resetStats();
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < 200) {
            const i = next++;
            const outcome = await requestWithRetry(
              {
                origin: own.url,
                path: '/v1/chat/completions',
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(chatBody(`det ${i}`)),
              },
              { maxAttempts: 20, baseDelayMs: 0, maxDelayMs: 0, timeoutMs: 5_000 },
              { connections: 10, sleep: async () => {} },
            );
            assert.equal(outcome.ok, true);
          }
        };
        await Promise.all(Array.from({ length: 10 }, worker));
        const { requests, byStatus, resets } = own.stats();
        return { requests, byStatus, resets };
      };
      const first = await run();
      const second = await run();
      assert.deepEqual(second, first);
      assert.ok(first.requests > 200, 'some faults were injected');
      assert.equal(first.byStatus['200'], 200);
    } finally {
      await own.close();
    }
  });

  it('close() destroys hanging sockets and resolves', TIMEOUT, async () => {
    const own = await startMockServer({ faults: { hang: 1 } });
    const outcome = new Promise<string>((resolve) => {
      const req = httpRequest(`${own.baseUrl}/chat/completions`, { method: 'POST' }, () =>
        resolve('answered'),
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      req.end(JSON.stringify(chatBody('hang')));
    });
    // Wait (bounded) until the server has seen the request, so close() meets an open socket.
    await waitFor(() => own.stats().hangs > 0);
    assert.equal(own.stats().hangs, 1);
    await own.close();
    assert.equal(await outcome, 'ECONNRESET');
  });

  it('runs as a script and prints its URL', TIMEOUT, async () => {
    const script = fileURLToPath(new URL('./mock-openai.js', import.meta.url));
    const child = spawn(
      process.execPath,
      [script, '--port', '0', '--latency-ms', '1', '--idle-exit-s', '20'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /^listening (http:\/\/127\.0\.0\.1:\d+)\n/m.exec(out);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`mock exited early with ${code}`)));
      });
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(chatBody('script')),
      });
      const reply = (await res.json()) as ChatReply;
      assert.equal(reply.choices[0].message.content, 'script');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
