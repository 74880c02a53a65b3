// The response cache is keyed on the request as it is sent: every provider setting that changes the
// request (model, endpoint, a parameter, a passthrough field, a header) is a miss; the key, which
// changes nothing the model sees, is not. An empty answer is never kept.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProviderSpec } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { buildSuite, user } from '../support/suite-builder.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cache-key-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: [{ match: 'say nothing', empty: true }] });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

let runs = 0;
/** Runs one question against a provider through the shared cache; returns how many requests reached the mock. */
async function asked(config: Record<string, unknown>, question = 'hello', model = 'm'): Promise<number> {
  const before = mock.stats().requests;
  const provider: ProviderSpec = {
    id: `openai:chat:${model}`,
    config: { apiBaseUrl: mock.baseUrl, ...config },
  };
  const suite = buildSuite({
    providers: [provider],
    cases: [{ conversations: [{ messages: [user(question)] }] }],
  });
  await evaluate({
    suite,
    runsDir: join(tmp.dir, `runs-${runs++}`),
    cache: { path: join(tmp.dir, 'cache.sqlite') },
    env: {},
  });
  return mock.stats().requests - before;
}

describe('the response cache key', () => {
  it('misses on every setting that changes the request, and hits on one that does not', async () => {
    assert.equal(await asked({}), 1, 'first call');
    assert.equal(await asked({}), 0, 'the same request is a hit');
    assert.equal(await asked({ passthrough: { logit_bias: { 50256: -100 } } }), 1, 'passthrough');
    assert.equal(await asked({ passthrough: { logit_bias: { 50256: -100 } } }), 0);
    assert.equal(await asked({ headers: { 'x-route': 'a' } }), 1, 'a header');
    assert.equal(await asked({ headers: { 'x-route': 'b' } }), 1, 'another header value');
    assert.equal(await asked({ headers: { 'x-route': 'b' } }), 0);
    assert.equal(await asked({ temperature: 0.3 }), 1, 'a parameter');
    assert.equal(await asked({}, 'hello', 'other-model'), 1, 'the model');
    assert.equal(await asked({ apiBaseUrl: `${mock.url}/_/latency_ms=0/v1` }), 1, 'the endpoint');
    // The key is a credential, not part of what is asked: the same request is a hit.
    assert.equal(await asked({ apiKey: 'sk-one-0001' }), 0, 'a key changes nothing the model sees');
    assert.equal(await asked({ headers: { 'x-api-key': 'secret-1' } }), 0, 'nor does a credential header');
  });

  it('never keeps an answer with nothing in it (content null, no tool call)', async () => {
    assert.equal(await asked({}, 'say nothing'), 1);
    assert.equal(await asked({}, 'say nothing'), 1, 'asked again, not replayed from the cache');
  });
});
