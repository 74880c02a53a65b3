import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import { AdaptiveLimiter } from '../../src/providers/limiter.js';

describe('AdaptiveLimiter', () => {
  it('admits up to the limit at once, queues the rest in order', async () => {
    const l = new AdaptiveLimiter(2);
    assert.equal(l.acquire(), undefined);
    assert.equal(l.acquire(), undefined);
    const order: number[] = [];
    const third = l.acquire();
    const fourth = l.acquire();
    assert.ok(third && fourth);
    void third.then(() => order.push(3));
    void fourth.then(() => order.push(4));
    l.release(false);
    await third;
    assert.deepEqual(order, [3]);
    l.release(false);
    await fourth;
    assert.deepEqual(order, [3, 4]);
  });

  it('halves on a 429 at most once per cool-down, and recovers by one per window of successes', () => {
    let t = 0;
    const l = new AdaptiveLimiter(16, 1000, () => t);
    const cycle = (rateLimited: boolean): void => {
      assert.equal(l.acquire(), undefined);
      l.release(rateLimited);
    };
    cycle(true);
    assert.equal(l.limit, 8);
    cycle(true); // same cool-down window: no second cut
    assert.equal(l.limit, 8);
    t = 1500;
    cycle(true);
    assert.equal(l.limit, 4);
    for (let i = 0; i < 4; i++) cycle(false);
    assert.equal(l.limit, 5);
    for (let i = 0; i < 5; i++) cycle(false);
    assert.equal(l.limit, 6);
    for (let i = 0; i < 200; i++) cycle(false);
    assert.equal(l.limit, 16, 'never above the configured maximum');
    assert.deepEqual(l.stats, { rateLimited: 3, decreases: 2, lowest: 4, stalled: 0 });
  });

  it('never goes below one', () => {
    let t = 0;
    const l = new AdaptiveLimiter(2, 10, () => t);
    for (let i = 0; i < 5; i++) {
      t += 100;
      assert.equal(l.acquire(), undefined);
      l.release(true);
    }
    assert.equal(l.limit, 1);
  });
});

describe('adaptive concurrency against a rate-limiting server', () => {
  it('cuts the concurrency on 429s and still completes every call', async () => {
    const { startMockServer } = await import('../support/mock-openai.js');
    const { createOpenAiProvider } = await import('../../src/providers/openai.js');
    const { closeAllPools } = await import('../../src/providers/http-transport.js');
    const { getLimiter } = await import('../../src/providers/limiter.js');
    const mock = await startMockServer({ faults: 'fail_429=0.3&retry_after=0&latency_ms=2' });
    try {
      const provider = createOpenAiProvider(
        { id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl } },
        {
          env: {},
          maxConcurrency: 32,
          retry: { maxAttempts: 20, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 10_000 },
        },
      );
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          provider.call({ prompt: `q${i}`, messages: [{ role: 'user', content: `q${i}` }], params: {} }),
        ),
      );
      assert.equal(results.filter((r) => r.error).length, 0);
      assert.deepEqual(
        results.map((r) => replyText(r)),
        results.map((_, i) => `q${i}`),
      );
      const stats = getLimiter(new URL(mock.baseUrl).origin, 32).stats;
      assert.ok(stats.rateLimited > 50, JSON.stringify(stats));
      assert.ok(stats.decreases >= 1 && stats.lowest < 32, JSON.stringify(stats));
    } finally {
      await closeAllPools();
      await mock.close();
    }
  });
});
