// What promptfoo 0.123.1 sent and answered, recorded against the same mock
// (test/fixtures/promptfoo-cloud/recorded.json): assay's requests carry the same bodies and
// credentials for the same configs, its SigV4 signer reproduces every signature the AWS SDK v3
// made for promptfoo's Bedrock calls, and its costs equal promptfoo's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import type { Message, ProviderSpec } from '../../src/core/types.js';
import { signV4 } from '../../src/providers/aws-sigv4.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider } from '../../src/providers/registry.js';
import type { ProviderContext } from '../../src/providers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';

interface Recorded {
  env: Record<string, string>;
  requests: { path: string; headers: Record<string, string>; raw: string }[];
  outcomes: {
    provider: string;
    country: string;
    prompt: string;
    output: string | null;
    error: string | null;
    usage: { prompt: number; completion: number; total: number } | null;
    cost: number | null;
  }[];
}
const recorded = JSON.parse(
  readFileSync(join(repoRoot, 'test', 'fixtures', 'promptfoo-cloud', 'recorded.json'), 'utf8'),
) as Recorded;

let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: 'weather in (\\w+)', toolCall: { name: 'get_weather', arguments: '{"city":"$1"}' } },
      { match: 'capital of (\\w+)', reply: 'The capital of $1 is unknown to the mock.' },
    ],
  });
});
after(async () => {
  await closeAllPools();
  await mock.close();
});

const QUESTION = 'What is the capital of Peru?';
const PLAIN: Message[] = [{ role: 'user', content: QUESTION }];
const CHAT: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: QUESTION },
];

/** The providers of the recorded config, pointed at this test's mock. */
function specs(): Record<string, ProviderSpec> {
  const u = mock.url;
  return {
    google: {
      id: 'google:gemini-2.5-flash',
      config: {
        apiBaseUrl: u,
        temperature: 0.2,
        maxOutputTokens: 64,
        topK: 5,
        stopSequences: ['END'],
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'BLOCK_NONE' }],
        systemInstruction: 'Answer in English.',
      },
    },
    hfText: {
      id: 'huggingface:text-generation:gpt2',
      config: {
        apiEndpoint: `${u}/hf-inference/models/gpt2`,
        max_new_tokens: 20,
        temperature: 0.5,
        unrelated: 1,
      },
    },
    hfChat: {
      id: 'huggingface:chat:meta-llama/Llama-3.3-70B-Instruct',
      config: { apiBaseUrl: `${u}/v1`, inferenceProvider: 'together', max_new_tokens: 30 },
    },
    claude: {
      id: 'bedrock:converse:anthropic.claude-3-haiku-20240307-v1:0',
      config: { endpoint: u, region: 'us-west-2', temperature: 0.1, maxTokens: 100 },
    },
    nova: {
      id: 'bedrock:converse:amazon.nova-lite-v1:0',
      config: {
        endpoint: u,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      },
    },
  };
}

const context = (): ProviderContext => ({
  env: { ...recorded.env, HOME: '/nonexistent-home' },
  maxConcurrency: 2,
  retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 5_000 },
});

/** What assay sends for a spec and a conversation: the recorded request of the mock. */
async function assaySends(
  spec: ProviderSpec,
  messages: Message[],
): Promise<{ headers: Record<string, unknown>; body: unknown; path: string }> {
  const p = await createProvider(spec, context());
  const before = mock.requests.length;
  const res = await p.call({ prompt: QUESTION, messages, params: {} });
  assert.equal(res.error, undefined, res.error);
  const req = mock.requests.slice(before).at(-1);
  assert.ok(req);
  return { headers: req.headers, body: JSON.parse(req.raw), path: req.path };
}

/** promptfoo's recorded request to a path, with or without the system message. */
function promptfooSent(
  path: string,
  withSystem: boolean,
): { headers: Record<string, string>; body: unknown } {
  const r = recorded.requests.find((q) => q.path === path && q.raw.includes('Be brief') === withSystem);
  assert.ok(r, `no recorded request to ${path}`);
  return { headers: r.headers, body: JSON.parse(r.raw) };
}

describe('assay sends what promptfoo 0.123.1 sends for the same config', () => {
  it('Google AI Studio: the same generateContent body and key header', async () => {
    const s = specs();
    for (const [messages, withSystem] of [
      [PLAIN, false],
      [CHAT, true],
    ] as const) {
      const ours = await assaySends(s.google, messages);
      const theirs = promptfooSent('/v1beta/models/gemini-2.5-flash:generateContent', withSystem);
      assert.equal(ours.path, '/v1beta/models/gemini-2.5-flash:generateContent');
      assert.deepEqual(ours.body, theirs.body);
      assert.equal(ours.headers['x-goog-api-key'], theirs.headers['x-goog-api-key']);
    }
  });

  it('Hugging Face: the same text-generation and chat bodies and bearer token', async () => {
    const s = specs();
    const text = await assaySends(s.hfText, PLAIN);
    const theirText = promptfooSent('/hf-inference/models/gpt2', false);
    assert.deepEqual(text.body, theirText.body);
    assert.equal(text.headers.authorization, theirText.headers.authorization);
    assert.equal(text.headers.accept, theirText.headers.accept);
    for (const [messages, withSystem] of [
      [PLAIN, false],
      [CHAT, true],
    ] as const) {
      const chat = await assaySends(s.hfChat, messages);
      const theirs = promptfooSent('/v1/chat/completions', withSystem);
      assert.deepEqual(chat.body, theirs.body);
      assert.equal(chat.headers.authorization, theirs.headers.authorization);
    }
  });

  it('Bedrock Converse: the same body, the model id encoded the same way in the path', async () => {
    const s = specs();
    for (const [spec, path] of [
      [s.claude, '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse'],
      [s.nova, '/model/amazon.nova-lite-v1%3A0/converse'],
    ] as const) {
      for (const [messages, withSystem] of [
        [PLAIN, false],
        [CHAT, true],
      ] as const) {
        const ours = await assaySends(spec, messages);
        const theirs = promptfooSent(path, withSystem);
        assert.equal(ours.path, path);
        assert.deepEqual(ours.body, theirs.body);
        assert.equal(ours.headers['x-amz-security-token'], theirs.headers['x-amz-security-token']);
      }
    }
  });

  it('SigV4: assay reproduces every signature the AWS SDK v3 made for promptfoo', () => {
    const bedrock = recorded.requests.filter((r) => r.path.startsWith('/model/'));
    assert.equal(bedrock.length, 4);
    for (const r of bedrock) {
      const auth = r.headers.authorization;
      const signedNames = /SignedHeaders=([^,]+)/.exec(auth)![1].split(';');
      const headers: Record<string, string> = {};
      for (const name of signedNames)
        if (!['host', 'x-amz-date', 'x-amz-security-token'].includes(name)) headers[name] = r.headers[name];
      const signed = signV4({
        method: 'POST',
        host: r.headers.host,
        path: r.path,
        headers,
        body: r.raw,
        region: /\/\d{8}\/([^/]+)\//.exec(auth)![1],
        service: 'bedrock',
        credentials: {
          accessKeyId: recorded.env.AWS_ACCESS_KEY_ID,
          secretAccessKey: recorded.env.AWS_SECRET_ACCESS_KEY,
          sessionToken: recorded.env.AWS_SESSION_TOKEN,
        },
        amzDate: r.headers['x-amz-date'],
      });
      assert.equal(signed.authorization, auth);
    }
  });

  it('the same usage and cost for the same answers, and a blocked Gemini prompt an error as in promptfoo', async () => {
    const s = specs();
    const check = async (spec: ProviderSpec, provider: string, messages: Message[], promptStart: string) => {
      const theirs = recorded.outcomes.find(
        (o) => o.provider === provider && o.country === 'Peru' && o.prompt.startsWith(promptStart),
      );
      assert.ok(theirs);
      const p = await createProvider(spec, context());
      const ours = await p.call({ prompt: QUESTION, messages, params: {} });
      assert.equal(replyText(ours), replyText(theirs));
      assert.deepEqual(ours.usage, theirs.usage);
      if (theirs.cost === null) assert.equal(ours.cost, undefined);
      else
        assert.ok(
          Math.abs((ours.cost ?? 0) - theirs.cost) < 1e-15,
          `${provider}: ${ours.cost} vs ${theirs.cost}`,
        );
    };
    await check(s.google, 'google:gemini-2.5-flash', PLAIN, 'What');
    await check(s.google, 'google:gemini-2.5-flash', CHAT, '[');
    await check(s.claude, 'bedrock:converse:anthropic.claude-3-haiku-20240307-v1:0', PLAIN, 'What');
    await check(s.nova, 'bedrock:converse:amazon.nova-lite-v1:0', CHAT, '[');
    await check(s.hfChat, 'huggingface:chat:meta-llama/Llama-3.3-70B-Instruct', PLAIN, 'What');
    const blocked = recorded.outcomes.find(
      (o) => o.provider === 'google:gemini-2.5-flash' && o.country === 'forbidden prompt land',
    );
    assert.match(blocked?.error ?? '', /^Error: Response blocked: SAFETY/);
    // promptfoo reads google:chat:<model> as the model "chat" on the retired PaLM route.
    assert.ok(recorded.requests.some((r) => r.path === '/v1beta3/models/chat:generateMessage'));
  });
});
