import assert from 'node:assert/strict';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  closeAllPools,
  describeFailure,
  type HttpOutcome,
  type HttpRequest,
  type RetryOptions,
  requestWithRetry,
  retryAfterDelay,
  sendOnce,
} from '../../src/providers/http-transport.js';
import { AttemptAbort, backoffDelay } from '../../src/providers/retry.js';
import type { RetryPolicy } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';

const POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 5_000, timeoutMs: 5_000 };
// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };

let mock: MockServer;
let counter = 0;

before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

/** A chat request under a fault prefix, with a body unique to this call (so attempt counters start at 0). */
function chatRequest(faults: string, path = '/v1/chat/completions'): HttpRequest {
  counter++;
  return {
    origin: mock.url,
    path: faults ? `/_/${faults}${path}` : path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `hello ${counter}` }] }),
  };
}

/** Retry options whose sleep records the delays asked for and returns at once. */
function recorder(random = 0.5): { delays: number[]; options: RetryOptions } {
  const delays: number[] = [];
  return {
    delays,
    options: {
      sleep: async (ms) => {
        delays.push(ms);
      },
      random: () => random,
    },
  };
}

function requestsSeen(path: string): number {
  return mock.requests.filter((r) => r.faults === path).length;
}

function expectFailure(outcome: HttpOutcome): Extract<HttpOutcome, { ok: false }> {
  assert.equal(outcome.ok, false, 'expected a failure');
  if (outcome.ok) throw new Error('unreachable');
  return outcome;
}

describe('requestWithRetry', () => {
  it('returns the body of a successful call after one attempt', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(chatRequest(''), POLICY, options);
    assert.equal(outcome.ok, true);
    if (!outcome.ok) return;
    assert.equal(outcome.status, 200);
    assert.equal(outcome.attempts, 1);
    assert.match(outcome.body, /"content":"hello \d+"/);
    assert.deepEqual(delays, []);
  });

  it('honours Retry-After seconds on a 429', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(
      chatRequest('fail_429=1&fault_attempts=1&retry_after=3'),
      POLICY,
      options,
    );
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 2);
    assert.deepEqual(delays, [3000]);
  });

  it('caps Retry-After at maxDelayMs', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(
      chatRequest('fail_429=1&fault_attempts=1&retry_after=3600'),
      POLICY,
      options,
    );
    assert.equal(outcome.ok, true);
    assert.deepEqual(delays, [POLICY.maxDelayMs]);
  });

  it('prefers retry-after-ms over Retry-After', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(
      chatRequest('fail_429=1&fault_attempts=2&retry_after=7&retry_after_ms=250'),
      POLICY,
      options,
    );
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 3);
    assert.deepEqual(delays, [250, 250]);
  });

  it('backs off exponentially with jitter when a 429 has no Retry-After', TIMEOUT, async () => {
    const { delays, options } = recorder(0.5);
    const outcome = await requestWithRetry(
      chatRequest('fail_429=1&fault_attempts=3&retry_after=none'),
      POLICY,
      options,
    );
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 4);
    // full jitter: random × base × 2^(retry-1)
    assert.deepEqual(delays, [50, 100, 200]);
  });

  it('retries a 500 and then succeeds', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const faults = 'fail_500=1&fault_attempts=1';
    const outcome = await requestWithRetry(chatRequest(faults), POLICY, options);
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 2);
    assert.equal(delays.length, 1);
  });

  it('retries after the connection is reset', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const before = mock.stats().resets;
    const outcome = await requestWithRetry(chatRequest('fail_reset=1&fault_attempts=1'), POLICY, options);
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 2);
    assert.equal(delays.length, 1);
    assert.equal(mock.stats().resets, before + 1);
  });

  it('times out a hanging request, retries it, and then succeeds', TIMEOUT, async () => {
    const { options } = recorder();
    const outcome = await requestWithRetry(
      chatRequest('hang=1&fault_attempts=1'),
      // Generous, so the retry that does get an answer never times out on a loaded machine.
      { ...POLICY, timeoutMs: 1_000 },
      options,
    );
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 2);
  });

  it('gives up on a request that always hangs with an error naming the timeout', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const hangsBefore = mock.stats().hangs;
    const outcome = await requestWithRetry(
      chatRequest('hang=1'),
      { ...POLICY, maxAttempts: 2, timeoutMs: 150 },
      options,
    );
    const failure = expectFailure(outcome);
    assert.equal(failure.kind, 'timeout');
    assert.equal(failure.attempts, 2);
    assert.equal(delays.length, 1);
    assert.equal(mock.stats().hangs, hangsBefore + 2);
    assert.match(describeFailure(failure), /timed out .*150 ms.* after 2 attempts/);
  });

  for (const status of [400, 401, 403, 404, 422]) {
    it(`does not retry HTTP ${status}`, TIMEOUT, async () => {
      const { delays, options } = recorder();
      const faults = `status=${status}`;
      const seenBefore = requestsSeen(faults);
      const outcome = await requestWithRetry(chatRequest(faults), POLICY, options);
      const failure = expectFailure(outcome);
      assert.equal(failure.status, status);
      assert.equal(failure.attempts, 1);
      assert.equal(failure.retryable, false);
      assert.equal(requestsSeen(faults), seenBefore + 1);
      assert.deepEqual(delays, []);
    });
  }

  it('does not retry a 404 for an unknown route', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(chatRequest('', '/v1/no-such-endpoint'), POLICY, options);
    const failure = expectFailure(outcome);
    assert.equal(failure.status, 404);
    assert.equal(failure.attempts, 1);
    assert.deepEqual(delays, []);
  });

  it(
    'returns a failure with the server message and attempt count when attempts run out',
    TIMEOUT,
    async () => {
      const { delays, options } = recorder();
      const outcome = await requestWithRetry(
        chatRequest('fail_500=1'),
        { ...POLICY, maxAttempts: 3 },
        options,
      );
      const failure = expectFailure(outcome);
      assert.equal(failure.kind, 'http');
      assert.equal(failure.status, 500);
      assert.equal(failure.attempts, 3);
      assert.equal(failure.retryable, true);
      assert.match(failure.message, /server had an error/);
      assert.equal(delays.length, 2);
      assert.match(describeFailure(failure), /^HTTP 500 after 3 attempts: The server had an error/);
    },
  );

  it('retries a refused connection and reports it', TIMEOUT, async () => {
    const port = await closedPort();
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(
      {
        origin: `http://127.0.0.1:${port}`,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: {},
        body: '{}',
      },
      { ...POLICY, maxAttempts: 3 },
      options,
    );
    const failure = expectFailure(outcome);
    assert.equal(failure.kind, 'network');
    assert.equal(failure.code, 'ECONNREFUSED');
    assert.equal(failure.attempts, 3);
    assert.equal(delays.length, 2);
    assert.match(describeFailure(failure), /connection error ECONNREFUSED after 3 attempts/);
  });

  it('stops retrying when the caller aborts', TIMEOUT, async () => {
    const controller = new AbortController();
    const options: RetryOptions = {
      sleep: async () => {
        controller.abort();
      },
    };
    const outcome = await requestWithRetry(
      { ...chatRequest('fail_500=1'), signal: controller.signal },
      { ...POLICY, maxAttempts: 5 },
      options,
    );
    const failure = expectFailure(outcome);
    assert.equal(failure.kind, 'aborted');
    assert.equal(failure.attempts, 1);
    assert.equal(failure.retryable, false);
  });

  it('keeps connections alive: 200 sequential calls use at most the pool size', TIMEOUT, async () => {
    const { options } = recorder();
    // A separate mock so other tests' connections do not count.
    const own = await startMockServer();
    try {
      for (let i = 0; i < 200; i++) {
        const outcome = await requestWithRetry({ ...chatRequest(''), origin: own.url }, POLICY, {
          ...options,
          connections: 4,
        });
        assert.equal(outcome.ok, true);
      }
      const stats = own.stats();
      assert.equal(stats.requests, 200);
      assert.ok(stats.connections <= 4, `connections ${stats.connections}`);
    } finally {
      await own.close();
    }
  });
});

/** The two ways a caller cancels a request: a plain AbortSignal, or an attempt's own AttemptAbort. */
const cancellations: [string, () => { signal: AbortSignal | AttemptAbort; abort: () => void }][] = [
  [
    'an AbortSignal',
    () => {
      const controller = new AbortController();
      return { signal: controller.signal, abort: () => controller.abort() };
    },
  ],
  [
    "an attempt's AttemptAbort",
    () => {
      const attempt = new AttemptAbort();
      return { signal: attempt, abort: () => attempt.abort(new Error('cancelled')) };
    },
  ],
];

describe('sendOnce', () => {
  // A request waiting for a connection (the pool's only one is busy) that is cancelled must never
  // be sent when the connection frees: an embedding, session or token request cancelled by a
  // timeout or Ctrl-C would otherwise still reach (and be billed by) the server.
  for (const [what, make] of cancellations) {
    it(`does not send a queued request cancelled by ${what}`, TIMEOUT, async () => {
      const bodies: string[] = [];
      const held: ServerResponse[] = [];
      let heldSeen: () => void = () => {};
      const firstHeld = new Promise<void>((resolve) => {
        heldSeen = resolve;
      });
      const server = createHttpServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => {
          body += d.toString();
        });
        req.on('end', () => {
          bodies.push(body);
          if (body === 'first') {
            held.push(res);
            heldSeen();
          } else res.end(`answered ${body}`);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const send = (body: string, signal?: AbortSignal | AttemptAbort) =>
        sendOnce({ origin, path: '/', method: 'POST', headers: {}, body, signal }, { connections: 1 });
      try {
        const first = send('first');
        await firstHeld;
        const cancel = make();
        // Queued behind the held request on the pool's single connection, then cancelled.
        const second = send('second', cancel.signal);
        cancel.abort();
        held[0].end('first done');
        assert.equal((await first).ok, true);
        const outcome = await second;
        assert.equal(outcome.ok, false, `the cancelled request was answered: ${JSON.stringify(outcome)}`);
        if (!outcome.ok) assert.equal(outcome.kind, 'aborted');
        // The connection is free again: a later request goes out, and the cancelled one never did.
        const third = await send('third');
        assert.equal(third.ok, true);
        assert.deepEqual(bodies, ['first', 'third']);
      } finally {
        await closeAllPools();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  }
});

describe('sendOnce cancelled while the body arrives', () => {
  for (const [what, make] of cancellations)
    for (const timed of [false, true])
      it(
        `is aborted by ${what} (${timed ? 'timed' : 'whole'} read) and its connection closed`,
        TIMEOUT,
        async () => {
          let bodyStarted: () => void = () => {};
          const started = new Promise<void>((resolve) => {
            bodyStarted = resolve;
          });
          let serverClosed: () => void = () => {};
          const closed = new Promise<void>((resolve) => {
            serverClosed = resolve;
          });
          const server = createServer((socket) => {
            socket.on('error', () => {});
            socket.on('close', () => serverClosed());
            // Headers and 3 of 100 bytes, then nothing: only the cancellation can end the read.
            socket.once('data', () =>
              socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc', () => bodyStarted()),
            );
          });
          await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
          const address = server.address();
          const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
          try {
            const cancel = make();
            const pending = sendOnce({
              origin,
              path: '/',
              method: 'GET',
              headers: {},
              signal: cancel.signal,
              timed,
            });
            await started;
            cancel.abort();
            const outcome = await pending;
            assert.equal(outcome.ok, false);
            if (!outcome.ok) assert.equal(outcome.kind, 'aborted');
            await closed;
          } finally {
            await closeAllPools();
            await new Promise<void>((resolve) => server.close(() => resolve()));
          }
        },
      );
});

describe('sendOnce reads answers as undici did (whole and timed)', () => {
  // A raw server answers each request with bytes written by hand, for what a mock cannot say.
  type Answer = (socket: import('node:net').Socket) => void;
  const chunked = (body: Buffer): Buffer[] => {
    // One byte a chunk: a multi-byte character is split across pieces.
    const parts: Buffer[] = [];
    for (const byte of body) parts.push(Buffer.from('1\r\n'), Buffer.from([byte]), Buffer.from('\r\n'));
    parts.push(Buffer.from('0\r\n\r\n'));
    return parts;
  };
  const text = 'héllo € 😀';
  const cases: [string, Answer, (outcome: Awaited<ReturnType<typeof sendOnce>>) => void][] = [
    [
      'a byte-order mark is skipped; a character split across chunks is whole; repeated headers are an array',
      (socket) => {
        socket.write(
          'HTTP/1.1 200 OK\r\nset-cookie: a=1\r\nset-cookie: b=2\r\ntransfer-encoding: chunked\r\n\r\n',
        );
        for (const part of chunked(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])))
          socket.write(part);
      },
      (outcome) => {
        assert.equal(outcome.ok, true);
        if (!outcome.ok) return;
        assert.equal(outcome.body, text);
        assert.deepEqual(outcome.headers['set-cookie'], ['a=1', 'b=2']);
      },
    ],
    [
      'an informational 103 before the answer is not the answer; a 204 has an empty body',
      (socket) =>
        socket.write(
          'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\nx-final: yes\r\n\r\n',
        ),
      (outcome) => {
        assert.equal(outcome.ok, true);
        if (!outcome.ok) return;
        assert.equal(outcome.status, 204);
        assert.equal(outcome.body, '');
        assert.equal(outcome.headers['x-final'], 'yes');
        assert.equal(outcome.headers.link, undefined);
      },
    ],
    [
      "a 429's error body gives the message, the first of two Retry-After the wait",
      (socket) => {
        const body = '{"error":{"message":"slow down"}}';
        socket.write(
          `HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\nretry-after: 7\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      },
      (outcome) => {
        assert.equal(outcome.ok, false);
        if (outcome.ok) return;
        assert.equal(outcome.kind, 'http');
        assert.equal(outcome.status, 429);
        assert.equal(outcome.message, 'slow down');
        assert.equal(outcome.retryable, true);
        assert.equal((outcome as { retryAfterMs?: number }).retryAfterMs, 3000);
      },
    ],
    [
      'a connection reset in the middle of the body is a retryable ECONNRESET',
      (socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc', () => socket.resetAndDestroy());
      },
      (outcome) => {
        assert.equal(outcome.ok, false);
        if (outcome.ok) return;
        assert.equal(outcome.kind, 'network');
        assert.equal(outcome.retryable, true);
      },
    ],
    [
      'a socket closed before the headers is a retryable network failure',
      (socket) => socket.destroy(),
      (outcome) => {
        assert.equal(outcome.ok, false);
        if (outcome.ok) return;
        assert.equal(outcome.kind, 'network');
        assert.equal(outcome.code, 'UND_ERR_SOCKET');
        assert.equal(outcome.retryable, true);
      },
    ],
  ];
  for (const [what, answer, check] of cases) {
    it(what, TIMEOUT, async () => {
      const server = createServer((socket) => {
        socket.on('error', () => {});
        let head = '';
        const onData = (d: Buffer): void => {
          head += d.toString('latin1');
          // The requests below have no body: the head's end is the request's end.
          if (!head.includes('\r\n\r\n')) return;
          head = '';
          answer(socket);
        };
        socket.on('data', onData);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      try {
        for (const timed of [false, true]) {
          const outcome = await sendOnce({ origin, path: '/', method: 'GET', headers: {}, timed });
          check(outcome);
          await closeAllPools();
        }
      } finally {
        await closeAllPools();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  }
});

describe('retry timing helpers', () => {
  it('computes full-jitter backoff capped at maxDelayMs', () => {
    const policy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 500, maxDelayMs: 3_000, timeoutMs: 1_000 };
    assert.equal(
      backoffDelay(1, policy, () => 0.999999),
      500,
    );
    assert.equal(
      backoffDelay(2, policy, () => 0.5),
      500,
    );
    assert.equal(
      backoffDelay(3, policy, () => 0.5),
      1_000,
    );
    assert.equal(
      backoffDelay(9, policy, () => 0.999999),
      3_000,
    );
    assert.equal(
      backoffDelay(9, policy, () => 0),
      0,
    );
  });

  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(retryAfterDelay({ 'retry-after': '2' }, now), 2_000);
    assert.equal(retryAfterDelay({ 'retry-after': '0.5' }, now), 500);
    assert.equal(retryAfterDelay({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now), 30_000);
    assert.equal(retryAfterDelay({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }, now), 0);
    assert.equal(retryAfterDelay({ 'retry-after-ms': '1500', 'retry-after': '9' }, now), 1_500);
    assert.equal(retryAfterDelay({ 'retry-after': 'soon' }, now), undefined);
    assert.equal(retryAfterDelay({}, now), undefined);
  });

  it('retries at once when Retry-After is 0', TIMEOUT, async () => {
    const { delays, options } = recorder();
    const outcome = await requestWithRetry(
      chatRequest('fail_429=1&fault_attempts=1&retry_after=0'),
      POLICY,
      options,
    );
    assert.equal(outcome.ok, true);
    assert.deepEqual(delays, [0]);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
