// The scripted server answers each wire shape so that the provider for it reads the answer: for
// every shape, the normal scenario's text through assay's own provider of that API (streamed too
// where the API streams), a tool call where the provider reads one, a 429 then the answer, a 500
// and a 400 as failures; every request recorded with the scenario it played.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import type { ProviderSpec } from '../../src/core/types.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import {
  ANSWER_TEXT,
  type MockProviders,
  SHAPES,
  scenarioOf,
  startMockProviders,
  TOOL_CALL,
} from './mock-providers.js';

let server: MockProviders;
before(async () => {
  server = await startMockProviders();
});
after(async () => {
  await closeAllPools();
  await server.close();
});

const ENV = {
  ANTHROPIC_API_KEY: 'sk-ant-mock-key-0123',
  GOOGLE_API_KEY: 'AIzaSy-mock-google-key-0123',
  HF_TOKEN: 'hf_mock_token_0123456789',
  AWS_ACCESS_KEY_ID: 'AKIDMOCKEXAMPLE0001',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-mock-0123456789',
  HOME: '/nonexistent-home',
};

/** One provider of each shape, pointed at the server. */
function specs(stream = false): Record<string, ProviderSpec> {
  const u = server.url;
  const s = stream ? { stream: true } : {};
  return {
    'openai-chat': { id: 'openai:chat:m', config: { apiBaseUrl: `${u}/v1`, ...s } },
    'openai-completion': { id: 'openai:completion:m', config: { apiBaseUrl: `${u}/v1`, ...s } },
    'azure-chat': { id: 'azure:chat:d', config: { apiBaseUrl: u, apiKey: 'mock-azure-key-0123', ...s } },
    'azure-completion': {
      id: 'azure:completion:d',
      config: { apiBaseUrl: u, apiKey: 'mock-azure-key-0123' },
    },
    anthropic: { id: 'anthropic:messages:claude-mock', config: { apiBaseUrl: u, ...s } },
    google: { id: 'google:gemini-mock', config: { apiBaseUrl: u } },
    'bedrock-converse': {
      id: 'bedrock:converse:anthropic.claude-mock',
      config: { endpoint: u, region: 'us-east-1' },
    },
    ollama: { id: 'ollama:chat:llama-mock', config: { apiBaseUrl: u, ...s } },
    hf: { id: 'huggingface:text-generation:gpt-mock', config: { apiEndpoint: `${u}/models/gpt-mock` } },
  };
}

const call = async (spec: ProviderSpec, text: string, maxAttempts = 1) => {
  const p = await createProvider(spec, {
    env: ENV,
    maxConcurrency: 2,
    retry: { maxAttempts, baseDelayMs: 1, maxDelayMs: 2_000, timeoutMs: 30_000 },
  });
  return p.call({ prompt: text, messages: [{ role: 'user', content: text }], params: {} });
};

describe('the scripted providers server', () => {
  it('names the scenario from the request body, else normal', () => {
    assert.equal(scenarioOf('{"messages":[{"content":"x [[scenario:tool-call]]"}]}'), 'tool-call');
    assert.equal(scenarioOf('{"prompt":"x"}'), 'normal');
    assert.equal(scenarioOf('[[scenario:no-such]]'), 'normal');
  });

  it('answers every shape so its provider reads the scripted text, and records what it was sent', async () => {
    const all = specs();
    assert.deepEqual(Object.keys(all).sort(), SHAPES.map((s) => s.name).sort(), 'a provider for every shape');
    for (const [shape, spec] of Object.entries(all)) {
      const res = await call(spec, 'Capital of France? [[scenario:normal]]');
      assert.equal(res.error, undefined, `${shape}: ${res.error}`);
      assert.equal(replyText(res), ANSWER_TEXT, shape);
      const seen = server.requests.at(-1);
      assert.equal(seen?.shape, shape);
      assert.equal(seen?.scenario, 'normal');
      assert.match(seen?.raw ?? '', /Capital of France\?/);
    }
  });

  it('streams where the API streams, to the same text', async () => {
    const all = specs(true);
    for (const shape of ['openai-chat', 'openai-completion', 'azure-chat', 'anthropic', 'ollama']) {
      const res = await call(all[shape], 'Capital? [[scenario:normal]]');
      assert.equal(res.error, undefined, `${shape}: ${res.error}`);
      assert.equal(replyText(res), ANSWER_TEXT, shape);
      assert.ok(res.stream, `${shape} was streamed`);
    }
  });

  it('gives a tool call in each chat shape’s own form', async () => {
    const all = specs();
    for (const shape of ['openai-chat', 'azure-chat', 'anthropic', 'google', 'bedrock-converse', 'ollama']) {
      const res = await call(all[shape], 'Weather? [[scenario:tool-call]]');
      assert.equal(res.error, undefined, `${shape}: ${res.error}`);
      assert.match(replyText(res) ?? '', new RegExp(TOOL_CALL.name), shape);
      assert.match(replyText(res) ?? '', /Paris/, shape);
    }
  });

  it('a 429 with retry-after, then the answer; a 500 and a 400 are failures', async () => {
    const all = specs();
    for (const [shape, spec] of Object.entries(all)) {
      const limited = await call(spec, 'Capital? [[scenario:rate-limit]]', 2);
      assert.equal(limited.error, undefined, `${shape}: ${limited.error}`);
      assert.equal(limited.attempts, 2, shape);
      assert.equal(replyText(limited), ANSWER_TEXT, shape);
      const failed = await call(spec, 'Capital? [[scenario:server-error]]');
      assert.match(failed.error ?? '', /500/, shape);
      const refused = await call(spec, 'Capital? [[scenario:bad-request]]');
      assert.match(refused.error ?? '', /400/, shape);
    }
  });
});
