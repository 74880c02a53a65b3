import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createOpenAiProvider } from '../../src/providers/openai.js';
import { parseEmbeddings } from '../../src/providers/openai-embed.js';
import type { Provider, ProviderContext } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';

// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

const context: ProviderContext = {
  env: {},
  maxConcurrency: 2,
  retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 5_000 },
};

function embedder(id: string, base = mock.baseUrl): Provider {
  return createOpenAiProvider({ id, config: { apiBaseUrl: base } }, context);
}

describe('openai embeddings', () => {
  it(
    'openai:embedding:<model> posts to /embeddings and returns one vector per text, in order',
    TIMEOUT,
    async () => {
      mock.resetStats();
      const p = embedder('openai:embedding:text-embedding-3-small');
      assert.ok(p.embed);
      const res = await p.embed({ texts: ['alpha beta', 'gamma'] });
      assert.equal(res.error, undefined);
      assert.equal(res.embeddings?.length, 2);
      const [req] = mock.requests;
      assert.equal(req.path, '/v1/embeddings');
      assert.deepEqual(req.body, { model: 'text-embedding-3-small', input: ['alpha beta', 'gamma'] });
      const again = await embedder('openai:embeddings:text-embedding-3-small').embed?.({ texts: ['gamma'] });
      assert.deepEqual(again?.embeddings?.[0], res.embeddings?.[1]);
    },
  );

  it(
    'retries a failing embeddings call like a chat call, and reports the last failure',
    TIMEOUT,
    async () => {
      const flaky = embedder('openai:embedding:e', `${mock.url}/_/fail_500=1&fault_attempts=1/v1`);
      const ok = await flaky.embed?.({ texts: ['retry me'] });
      assert.equal(ok?.error, undefined);
      const broken = embedder('openai:embedding:e', `${mock.url}/_/status=500/v1`);
      const failed = await broken.embed?.({ texts: ['x'] });
      assert.match(failed?.error ?? '', /500/);
    },
  );

  it('an embedding model answers no chat, and a chat model offers no embeddings', TIMEOUT, async () => {
    const res = await embedder('openai:embedding:e').call({
      prompt: 'hi',
      messages: [{ role: 'user', content: 'hi' }],
      params: {},
    });
    assert.equal(res.output, null);
    assert.match(res.error ?? '', /is an embeddings model: it cannot answer a chat/);
    assert.equal(embedder('openai:chat:m').embed, undefined);
  });

  it('puts vectors back in input order and refuses replies that do not fit', () => {
    const id = (s: string) => s;
    const reordered = parseEmbeddings(
      JSON.stringify({
        data: [
          { index: 1, embedding: [2] },
          { index: 0, embedding: [1] },
        ],
      }),
      2,
      id,
    );
    assert.deepEqual(reordered.embeddings, [[1], [2]]);
    assert.match(
      parseEmbeddings('{"data":[{"index":0,"embedding":[1]}]}', 2, id).error ?? '',
      /1 vectors for 2 inputs/,
    );
    assert.match(
      parseEmbeddings('{"data":[{"index":0,"embedding":["x"]}]}', 1, id).error ?? '',
      /no numeric embedding/,
    );
    assert.match(parseEmbeddings('nope', 1, id).error ?? '', /not JSON/);
  });
});
