// Google AI Studio, Vertex, Hugging Face and Bedrock against the loopback mock: the exact request
// (URL, headers with their credential, body), the parsing of each service's documented answers
// and errors, and messages that name the provider without its secrets.
import assert from 'node:assert/strict';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replyText } from '../../src/core/answer.js';
import { InputError } from '../../src/core/errors.js';
import type { Message, ProviderSpec } from '../../src/core/types.js';
import { signV4 } from '../../src/providers/aws-sigv4.js';
import { createBedrockAttempts } from '../../src/providers/bedrock.js';
import { callPolicyFor, withCallPolicy } from '../../src/providers/call-policy.js';
import { createGoogleAttempts } from '../../src/providers/google.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { createProvider, isKnownProviderId, providerOffersEmbeddings } from '../../src/providers/registry.js';
import type { Provider, ProviderContext, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { readResponse } from '../support/answers.js';
import { MOCK_ACCESS_TOKEN } from '../support/mock-cloud.js';
import { type MockServer, type RecordedRequest, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const FAST_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 20, timeoutMs: 5_000 };
// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };
const GOOGLE_KEY = 'AIzaSy-test-google-key-0123456789';
const HF_KEY = 'hf_test_token_0123456789abcdef';
const AWS_ID = 'AKIDTESTEXAMPLE0001';
const AWS_SECRET = 'aws-secret-access-key-0123456789abcdef';
const AWS_SESSION = 'aws-session-token-0123456789abcdef';

const tmp = tempDir('assay-cloud-providers-');
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let mock: MockServer;
let garbage: Server;
let garbageUrl: string;
let deadUrl: string;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: 'capital of (\\w+)', reply: 'The capital of $1 is unknown to the mock.' },
      { match: 'weather in (\\w+)', toolCall: { name: 'get_weather', arguments: '{"city":"$1"}' } },
      { match: 'forbidden prompt', blocked: 'prompt' },
      { match: 'forbidden answer', blocked: 'answer' },
    ],
  });
  // A server answering 200 with a body that is not JSON, whatever is asked.
  garbage = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>upstream proxy error</html>');
  });
  await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r));
  garbageUrl = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
  // A port nothing listens on.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  deadUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((r) => probe.close(() => r()));
});
after(async () => {
  await closeAllPools();
  await mock.close();
  await new Promise<void>((r) => garbage.close(() => r()));
  tmp.cleanup();
});

function context(env: Record<string, string> = {}): ProviderContext {
  return {
    env: { HOME: join(tmp.dir, 'no-home'), ...env },
    maxConcurrency: 2,
    retry: FAST_RETRY,
    basePath: tmp.dir,
  };
}

function make(spec: ProviderSpec, env: Record<string, string> = {}): Promise<Provider> {
  return createProvider(spec, context(env));
}

function ask(messages: Message[] | string, params: Record<string, unknown> = {}): ProviderRequest {
  const list: Message[] = typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages;
  const text = list.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  return { prompt: text, messages: list, params };
}

/** The last request the mock recorded whose path starts with `path` and whose raw body holds `marker`. */
function sent(path: string, marker: string): RecordedRequest & { body: Record<string, unknown> } {
  const found = mock.requests.findLast((r) => r.path.startsWith(path) && r.raw.includes(marker));
  assert.ok(found, `no request to ${path} with "${marker}"`);
  return found as RecordedRequest & { body: Record<string, unknown> };
}

function noSecret(text: string | undefined, ...secrets: string[]): void {
  for (const s of secrets) assert.ok(!text?.includes(s), `"${text}" holds a secret`);
}

describe('Google AI Studio (google:<model>)', () => {
  const spec = (config: Record<string, unknown> = {}, id = 'google:gemini-2.5-flash'): ProviderSpec => ({
    id,
    config: { apiBaseUrl: mock.url, ...config },
  });

  it('knows promptfoo id forms and refuses the ones it cannot serve, saying why', async () => {
    assert.ok(isKnownProviderId('google:gemini-2.5-flash'));
    assert.ok(isKnownProviderId('palm:gemini-pro'));
    await assert.rejects(make(spec({}, 'google:chat:gemini-2.5-flash')), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(
        e.message,
        /Google AI Studio: .*model of google:chat:<model> as "chat" \(on the retired PaLM route.*write google:gemini-2\.5-flash/,
      );
      return true;
    });
    await assert.rejects(
      make(spec({}, 'google:image:imagen-4')),
      /google:image: providers are not supported/,
    );
    await assert.rejects(make(spec({}, 'google:text-bison')), /PaLM's generateMessage API is retired/);
  });

  it(
    'sends generateContent with the key header, system instruction and generation config',
    TIMEOUT,
    async () => {
      const p = await make(
        spec({
          temperature: 0.2,
          maxOutputTokens: 64,
          topK: 5,
          stopSequences: ['END'],
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'BLOCK_NONE' }],
          systemInstruction: 'Answer in English.',
        }),
        { GOOGLE_API_KEY: GOOGLE_KEY },
      );
      const res = await p.call(
        ask([
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'what is the capital of Peru' },
          { role: 'assistant', content: 'Lima?' },
          { role: 'user', content: 'and the capital of Chile' },
        ]),
      );
      assert.equal(res.error, undefined);
      assert.equal(replyText(res), 'The capital of Chile is unknown to the mock.');
      assert.equal(readResponse(res).finishReason, 'STOP');
      const req = sent('/v1beta/models/gemini-2.5-flash:generateContent', 'Chile');
      assert.equal(req.method, 'POST');
      assert.equal(req.headers['x-goog-api-key'], GOOGLE_KEY);
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers.authorization, undefined);
      assert.equal(
        req.raw,
        JSON.stringify({
          contents: [
            { role: 'user', parts: [{ text: 'what is the capital of Peru' }] },
            { role: 'model', parts: [{ text: 'Lima?' }] },
            { role: 'user', parts: [{ text: 'and the capital of Chile' }] },
          ],
          generationConfig: { temperature: 0.2, topK: 5, stopSequences: ['END'], maxOutputTokens: 64 },
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
          system_instruction: { parts: [{ text: 'Answer in English.' }, { text: 'Be brief.' }] },
        }),
      );
      // Usage from usageMetadata; cost at promptfoo's gemini-2.5-flash price ($0.30 / $2.50 per M).
      // (The mock counts words: 16 in the conversation, its system parts joined; 9 in the answer.)
      assert.deepEqual(res.usage, { prompt: 16, completion: 9, total: 25 });
      assert.ok(Math.abs((res.cost ?? 0) - (16 * 0.3 + 9 * 2.5) / 1e6) < 1e-12);
    },
  );

  it('reads GEMINI_API_KEY and answers a function call as its parts in JSON', TIMEOUT, async () => {
    const p = await make(
      spec({
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Weather',
              parameters: {
                type: 'object',
                properties: { city: { type: 'string', default: 'x' } },
                additionalProperties: false,
              },
            },
          },
        ],
        tool_choice: 'required',
      }),
      { GEMINI_API_KEY: GOOGLE_KEY },
    );
    const res = await p.call(ask('what is the weather in Oslo'));
    assert.equal(res.error, undefined);
    assert.equal(readResponse(res).nonText, 'tool calls');
    assert.deepEqual(JSON.parse(replyText(res) ?? ''), [
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
    ]);
    const req = sent('/v1beta/models/gemini-2.5-flash:generateContent', 'Oslo');
    assert.equal(req.headers['x-goog-api-key'], GOOGLE_KEY);
    assert.deepEqual(req.body.tools, [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
          },
        ],
      },
    ]);
    assert.deepEqual(req.body.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
  });

  it('reports a blocked prompt and a blocked answer as errors, as promptfoo does', TIMEOUT, async () => {
    const p = await make(spec(), { GOOGLE_API_KEY: GOOGLE_KEY });
    const prompt = await p.call(ask('a forbidden prompt'));
    assert.match(
      prompt.error ?? '',
      /^Google AI Studio: the prompt was blocked: SAFETY \(safety ratings: HARM_CATEGORY_DANGEROUS_CONTENT: HIGH\)/,
    );
    assert.equal(replyText(prompt), null);
    const answer = await p.call(ask('a forbidden answer'));
    assert.match(
      answer.error ?? '',
      /^Google AI Studio: the answer was blocked \(finish reason SAFETY\); safety ratings: HARM_CATEGORY_DANGEROUS_CONTENT: HIGH \(BLOCKED\)/,
    );
  });

  it(
    'a wrong key (400 API_KEY_INVALID) stops the run, naming the provider, not the key',
    TIMEOUT,
    async () => {
      const p = await make(spec({ apiBaseUrl: `${mock.url}/_/require_key=the-right-key` }), {
        GOOGLE_API_KEY: GOOGLE_KEY,
      });
      const res = await p.call(ask('what is the capital of Peru'));
      assert.equal(res.fatal, true);
      assert.equal(res.attempts, 1);
      assert.match(
        res.error ?? '',
        /^Google AI Studio: the API key was refused \(HTTP 400 .*API key not valid.*check GOOGLE_API_KEY/,
      );
      noSecret(res.error, GOOGLE_KEY);
    },
  );

  it('no key at all is refused before any request', async () => {
    const p = await make(spec(), {});
    const before = mock.requests.length;
    const res = await p.call(ask('what is the capital of Peru'));
    assert.equal(res.fatal, true);
    assert.match(res.error ?? '', /^Google AI Studio: no API key .*set GOOGLE_API_KEY/);
    assert.equal(mock.requests.length, before);
  });

  it('an unreachable host and a malformed answer each name the provider', TIMEOUT, async () => {
    const dead = await make(spec({ apiBaseUrl: deadUrl }), { GOOGLE_API_KEY: GOOGLE_KEY });
    const down = await dead.call(ask('what is the capital of Peru'));
    assert.equal(down.fatal, true);
    assert.match(down.error ?? '', /^Google AI Studio: connection error ECONNREFUSED/);
    const bad = await make(spec({ apiBaseUrl: garbageUrl }), { GOOGLE_API_KEY: GOOGLE_KEY });
    const res = await bad.call(ask('what is the capital of Peru'));
    assert.match(
      res.error ?? '',
      /^Google AI Studio: malformed response \(not JSON\): <html>upstream proxy error/,
    );
  });
});

describe('Vertex (vertex:<model>)', () => {
  const keyFile = join(tmp.dir, 'sa.json');
  const serviceAccount = {
    type: 'service_account',
    project_id: 'key-project',
    private_key_id: 'kid-1',
    private_key: PEM,
    client_email: 'evals@key-project.iam.gserviceaccount.com',
    token_uri: '',
  };
  before(() => {
    serviceAccount.token_uri = `${mock.url}/token`;
    writeFileSync(keyFile, JSON.stringify(serviceAccount));
  });

  it('refuses what it does not serve', async () => {
    await assert.rejects(
      make({ id: 'vertex:claude-3-5-sonnet-v2@20241022' }),
      /Vertex AI: .*only Gemini models/,
    );
    await assert.rejects(make({ id: 'vertex:live:gemini-live' }), /vertex:live: providers are not supported/);
  });

  it(
    'signs a JWT with the service-account key, exchanges it once, and calls with the token',
    TIMEOUT,
    async () => {
      const p = await make(
        {
          id: 'vertex:gemini-2.0-flash',
          config: { apiHost: mock.url, region: 'us-east5', maxOutputTokens: 50 },
        },
        { GOOGLE_APPLICATION_CREDENTIALS: keyFile },
      );
      const first = await p.call(
        ask([
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'the capital of Peru' },
        ]),
      );
      const second = await p.call(ask('the capital of Chile'));
      assert.equal(first.error, undefined);
      assert.equal(replyText(first), 'The capital of Peru is unknown to the mock.');
      assert.equal(replyText(second), 'The capital of Chile is unknown to the mock.');
      const tokenRequests = mock.requests.filter((r) => r.path === '/token' && r.raw.includes('jwt-bearer'));
      assert.equal(tokenRequests.length, 1, 'the token is reused while it is valid');
      const token = tokenRequests[0];
      assert.equal(token.headers['content-type'], 'application/x-www-form-urlencoded');
      const form = token.body as Record<string, string>;
      assert.equal(form.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer');
      const [h, c, s] = form.assertion.split('.');
      assert.ok(
        createVerify('RSA-SHA256').update(`${h}.${c}`).verify(publicKey, Buffer.from(s, 'base64url')),
      );
      const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
      assert.equal(claims.iss, serviceAccount.client_email);
      assert.equal(claims.aud, `${mock.url}/token`);
      assert.equal(claims.scope, 'https://www.googleapis.com/auth/cloud-platform');
      const req = sent(
        '/v1/projects/key-project/locations/us-east5/publishers/google/models/gemini-2.0-flash:generateContent',
        'Peru',
      );
      assert.equal(req.headers.authorization, `Bearer ${MOCK_ACCESS_TOKEN}`);
      assert.equal(
        req.raw,
        JSON.stringify({
          contents: [{ role: 'user', parts: [{ text: 'the capital of Peru' }] }],
          generationConfig: { maxOutputTokens: 50 },
          systemInstruction: { parts: [{ text: 'Be brief.' }] },
        }),
      );
      // Vertex's own gemini-2.0-flash price ($0.15 / $0.60 per M).
      assert.deepEqual(first.usage, { prompt: 6, completion: 9, total: 15 });
      assert.ok(Math.abs((first.cost ?? 0) - (6 * 0.15 + 9 * 0.6) / 1e6) < 1e-12);
    },
  );

  it(
    'express mode: an API key and no credential goes to the publisher route with x-goog-api-key',
    TIMEOUT,
    async () => {
      const p = await make(
        { id: 'vertex:chat:gemini-2.5-flash', config: { apiHost: mock.url } },
        { VERTEX_API_KEY: GOOGLE_KEY, HOME: join(tmp.dir, 'nobody') },
      );
      const res = await p.call(ask('the capital of Peru'));
      assert.equal(res.error, undefined);
      const req = sent('/v1/publishers/google/models/gemini-2.5-flash:generateContent', 'Peru');
      assert.equal(req.headers['x-goog-api-key'], GOOGLE_KEY);
      assert.equal(req.headers.authorization, undefined);
    },
  );

  it(
    'a blocked prompt is the output, a blocked answer an error (promptfoo Vertex rules)',
    TIMEOUT,
    async () => {
      const p = await make(
        { id: 'vertex:gemini-2.0-flash', config: { apiHost: mock.url, projectId: 'p1' } },
        {
          GOOGLE_APPLICATION_CREDENTIALS: keyFile,
        },
      );
      const prompt = await p.call(ask('a forbidden prompt'));
      assert.equal(prompt.error, undefined);
      assert.equal(replyText(prompt), 'Content was blocked due to safety settings: SAFETY');
      const answer = await p.call(ask('a forbidden answer'));
      assert.match(answer.error ?? '', /^Vertex AI: the answer was blocked \(finish reason SAFETY\)/);
      sent(
        '/v1/projects/p1/locations/global/publishers/google/models/gemini-2.0-flash:generateContent',
        'forbidden',
      );
    },
  );

  it('a refused grant stops the run, naming the key file and no secret', TIMEOUT, async () => {
    const refused = { ...serviceAccount, token_uri: `${mock.url}/_/require_key=someone-else/token` };
    const file = join(tmp.dir, 'sa-refused.json');
    writeFileSync(file, JSON.stringify(refused));
    const p = await make({ id: 'vertex:gemini-2.0-flash', config: { apiHost: mock.url, keyFilename: file } });
    const res = await p.call(ask('the capital of Peru'));
    assert.equal(res.fatal, true);
    assert.match(
      res.error ?? '',
      /^Vertex AI: token exchange at .*\/token failed \(HTTP 400: invalid_grant\); check .*sa-refused\.json/,
    );
    noSecret(res.error, PEM, PEM.split('\n')[1]);
    // A token the API refuses (401 UNAUTHENTICATED) stops the run too, naming the key file.
    const api = await make({
      id: 'vertex:gemini-2.0-flash',
      config: { apiHost: `${mock.url}/_/require_key=another-token`, keyFilename: keyFile },
    });
    const refusedToken = await api.call(ask('the capital of Peru'));
    assert.equal(refusedToken.fatal, true);
    assert.match(
      refusedToken.error ?? '',
      /^Vertex AI: authentication failed \(401\) at .*Request had invalid authentication credentials.*; check .*sa\.json$/,
    );
    noSecret(refusedToken.error, MOCK_ACCESS_TOKEN);
  });

  it('no credential anywhere is refused with what to set', async () => {
    const p = await make(
      { id: 'vertex:gemini-2.0-flash', config: { apiHost: mock.url } },
      { HOME: join(tmp.dir, 'nobody') },
    );
    const res = await p.call(ask('the capital of Peru'));
    assert.equal(res.fatal, true);
    assert.match(res.error ?? '', /^Vertex AI: no Google credential: set GOOGLE_APPLICATION_CREDENTIALS/);
  });

  it('an unreachable API and a malformed answer name the provider', TIMEOUT, async () => {
    const down = await make({
      id: 'vertex:gemini-2.0-flash',
      config: { apiHost: deadUrl, apiKey: GOOGLE_KEY },
    });
    const res = await down.call(ask('the capital of Peru'));
    assert.match(res.error ?? '', /^Vertex AI: connection error ECONNREFUSED/);
    const bad = await make({
      id: 'vertex:gemini-2.0-flash',
      config: { apiHost: garbageUrl, apiKey: GOOGLE_KEY },
    });
    assert.match(
      (await bad.call(ask('the capital of Peru'))).error ?? '',
      /^Vertex AI: malformed response \(not JSON\)/,
    );
  });
});

describe('Hugging Face (huggingface:text-generation:, huggingface:chat:)', () => {
  it(
    'text-generation posts inputs and the parameters promptfoo copies, with the bearer token',
    TIMEOUT,
    async () => {
      const p = await make(
        {
          id: 'huggingface:text-generation:gpt2',
          config: {
            apiEndpoint: `${mock.url}/hf-inference/models/gpt2`,
            max_new_tokens: 20,
            temperature: 0.5,
            unrelated: 1,
          },
        },
        { HF_API_TOKEN: HF_KEY },
      );
      const res = await p.call(ask('the capital of Peru'));
      assert.equal(res.error, undefined);
      assert.equal(replyText(res), 'The capital of Peru is unknown to the mock.');
      const req = sent('/hf-inference/models/gpt2', 'Peru');
      assert.equal(req.headers.authorization, `Bearer ${HF_KEY}`);
      assert.equal(req.headers.accept, 'application/json');
      assert.equal(
        req.raw,
        JSON.stringify({
          inputs: 'the capital of Peru',
          parameters: { return_full_text: false, temperature: 0.5, max_new_tokens: 20 },
        }),
      );
    },
  );

  it(
    'chat goes to the OpenAI-compatible router with the inference provider and max_new_tokens',
    TIMEOUT,
    async () => {
      const p = await make(
        {
          id: 'huggingface:chat:meta-llama/Llama-3.3-70B-Instruct',
          config: { apiBaseUrl: `${mock.url}/v1`, inferenceProvider: 'together', max_new_tokens: 30 },
        },
        { HF_TOKEN: HF_KEY },
      );
      const res = await p.call(ask('the capital of Peru'));
      assert.equal(replyText(res), 'The capital of Peru is unknown to the mock.');
      const req = sent('/v1/chat/completions', 'Llama-3.3');
      assert.equal(req.headers.authorization, `Bearer ${HF_KEY}`);
      assert.equal(req.body.model, 'meta-llama/Llama-3.3-70B-Instruct:together');
      assert.equal(req.body.max_tokens, 30);
    },
  );

  it('a wrong token stops the run naming the provider; other tasks are refused', TIMEOUT, async () => {
    const p = await make(
      {
        id: 'hf:text-generation:gpt2',
        config: { apiEndpoint: `${mock.url}/_/require_key=hf_right/models/gpt2` },
      },
      { HF_TOKEN: HF_KEY },
    );
    const res = await p.call(ask('the capital of Peru'));
    assert.equal(res.fatal, true);
    assert.match(
      res.error ?? '',
      /^Hugging Face: authentication failed \(401\).*Invalid credentials in Authorization header; check HF_TOKEN/,
    );
    noSecret(res.error, HF_KEY);
    await assert.rejects(
      make({ id: 'huggingface:feature-extraction:bge' }),
      /Hugging Face: .*huggingface:feature-extraction: is not supported/,
    );
  });

  it('an unreachable endpoint and a malformed answer name the provider', TIMEOUT, async () => {
    const down = await make({
      id: 'huggingface:text-generation:gpt2',
      config: { apiEndpoint: `${deadUrl}/models/gpt2` },
    });
    assert.match((await down.call(ask('hi'))).error ?? '', /^Hugging Face: connection error ECONNREFUSED/);
    const bad = await make({
      id: 'huggingface:text-generation:gpt2',
      config: { apiEndpoint: `${garbageUrl}/models/gpt2` },
    });
    assert.match((await bad.call(ask('hi'))).error ?? '', /^Hugging Face: malformed response \(not JSON\)/);
  });
});

describe('AWS Bedrock (bedrock:<model-id>, Converse)', () => {
  const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
  const NOW = Date.UTC(2026, 10, 27, 1, 2, 3);
  const env = {
    AWS_ACCESS_KEY_ID: AWS_ID,
    AWS_SECRET_ACCESS_KEY: AWS_SECRET,
    AWS_SESSION_TOKEN: AWS_SESSION,
  };

  it('refuses the Bedrock APIs it does not speak, saying what it does', async () => {
    assert.ok(isKnownProviderId(`bedrock:${MODEL}`));
    assert.ok(isKnownProviderId(`bedrock:converse:${MODEL}`));
    await assert.rejects(
      make({ id: 'bedrock:kb:ABCDEF' }),
      /AWS Bedrock: "bedrock:kb:ABCDEF": bedrock:kb: is not supported .*Converse/,
    );
    await assert.rejects(
      make({ id: 'bedrock:completion:amazon.titan-text-express-v1' }),
      /bedrock:completion: is not supported/,
    );
    await assert.rejects(make({ id: 'bedrock:openai.gpt-5' }), /Responses or Messages API/);
  });

  it(
    'signs the Converse request with SigV4 (path double-encoded, session token) and reads the answer',
    TIMEOUT,
    async () => {
      const p = createBedrockAttempts(
        { id: `bedrock:${MODEL}`, config: { endpoint: mock.url, region: 'us-west-2', temperature: 0.1 } },
        context(env),
        () => NOW,
      );
      const res = await p.call(
        ask([
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'the capital of Peru' },
        ]),
      );
      assert.equal(res.error, undefined);
      assert.equal(replyText(res), 'The capital of Peru is unknown to the mock.');
      assert.equal(readResponse(res).finishReason, 'end_turn');
      const req = sent('/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse', 'Peru');
      // Converse keys only; Claude's 1024 output tokens as promptfoo's InvokeModel default.
      assert.equal(
        req.raw,
        JSON.stringify({
          messages: [{ role: 'user', content: [{ text: 'the capital of Peru' }] }],
          system: [{ text: 'Be brief.' }],
          inferenceConfig: { maxTokens: 1024, temperature: 0.1 },
        }),
      );
      assert.equal(req.headers['x-amz-date'], '20261127T010203Z');
      assert.equal(req.headers['x-amz-security-token'], AWS_SESSION);
      const auth = String(req.headers.authorization);
      assert.match(
        auth,
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${AWS_ID}/20261127/us-west-2/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$`,
        ),
      );
      // The signature covers exactly what arrived: recomputed from the received bytes and headers.
      const expected = signV4({
        method: 'POST',
        host: String(req.headers.host),
        path: req.path,
        headers: { 'content-type': String(req.headers['content-type']) },
        body: req.raw,
        region: 'us-west-2',
        service: 'bedrock',
        credentials: { accessKeyId: AWS_ID, secretAccessKey: AWS_SECRET, sessionToken: AWS_SESSION },
        amzDate: '20261127T010203Z',
      });
      assert.equal(auth, expected.authorization);
      // promptfoo's claude-3-haiku price ($0.25 / $1.25 per M).
      assert.deepEqual(res.usage, { prompt: 6, completion: 9, total: 15 });
      assert.ok(Math.abs((res.cost ?? 0) - (6 * 0.25 + 9 * 1.25) / 1e6) < 1e-12);
    },
  );

  it(
    'takes a profile from the shared credentials file, and maps tool use and guardrails',
    TIMEOUT,
    async () => {
      const home = join(tmp.dir, 'aws-home');
      mkdirSync(join(home, '.aws'), { recursive: true });
      writeFileSync(
        join(home, '.aws', 'credentials'),
        `[evals]\naws_access_key_id = AKIDPROFILE0001\naws_secret_access_key = ${AWS_SECRET}-profile\n`,
      );
      const p = await make(
        {
          id: 'bedrock:converse:amazon.nova-lite-v1:0',
          config: {
            endpoint: mock.url,
            tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
          },
        },
        { HOME: home, AWS_PROFILE: 'evals' },
      );
      const tool = await p.call(ask('the weather in Oslo'));
      assert.equal(tool.error, undefined);
      assert.equal(readResponse(tool).nonText, 'tool calls');
      assert.deepEqual(JSON.parse(replyText(tool) ?? ''), {
        type: 'tool_use',
        id: 'tooluse_mock_0',
        name: 'get_weather',
        input: { city: 'Oslo' },
      });
      const req = sent('/model/amazon.nova-lite-v1%3A0/converse', 'Oslo');
      assert.match(
        String(req.headers.authorization),
        /Credential=AKIDPROFILE0001\/\d{8}\/us-east-1\/bedrock\//,
      );
      assert.deepEqual(req.body.toolConfig, {
        tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
      });
      const guarded = await p.call(ask('a forbidden prompt'));
      assert.equal(guarded.error, undefined);
      assert.equal(replyText(guarded), 'Sorry, the model cannot answer this question.');
      assert.equal(guarded.finishReason, 'guardrail_intervened');
    },
  );

  it('a Bedrock API key is sent as a bearer token instead of a signature', TIMEOUT, async () => {
    const p = await make(
      { id: `bedrock:${MODEL}`, config: { endpoint: mock.url } },
      { AWS_BEARER_TOKEN_BEDROCK: 'ABSKbedrock-api-key-0123' },
    );
    const res = await p.call(ask('the capital of Bhutan'));
    assert.equal(res.error, undefined);
    assert.equal(sent('/model/', 'Bhutan').headers.authorization, 'Bearer ABSKbedrock-api-key-0123');
  });

  it(
    'refused credentials stop the run naming the provider and where the keys came from',
    TIMEOUT,
    async () => {
      const p = await make(
        { id: `bedrock:${MODEL}`, config: { endpoint: `${mock.url}/_/require_key=AKIDOTHER` } },
        env,
      );
      const res = await p.call(ask('the capital of Peru'));
      assert.equal(res.fatal, true);
      assert.match(
        res.error ?? '',
        /^AWS Bedrock: authentication failed \(403\) at .*: The security token included in the request is invalid\.; check AWS_ACCESS_KEY_ID$/,
      );
      noSecret(res.error, AWS_SECRET, AWS_SESSION);
      const none = await make(
        { id: `bedrock:${MODEL}`, config: { endpoint: mock.url } },
        { HOME: join(tmp.dir, 'nobody') },
      );
      const refused = await none.call(ask('hi'));
      assert.equal(refused.fatal, true);
      assert.match(refused.error ?? '', /^AWS Bedrock: no AWS credentials: set AWS_ACCESS_KEY_ID/);
    },
  );

  it('an unreachable endpoint and a malformed answer name the provider', TIMEOUT, async () => {
    const down = await make({ id: `bedrock:${MODEL}`, config: { endpoint: deadUrl } }, env);
    assert.match((await down.call(ask('hi'))).error ?? '', /^AWS Bedrock: connection error ECONNREFUSED/);
    const bad = await make({ id: `bedrock:${MODEL}`, config: { endpoint: garbageUrl } }, env);
    assert.match((await bad.call(ask('hi'))).error ?? '', /^AWS Bedrock: malformed response \(not JSON\)/);
  });
});

describe('the mock faults, through the cloud providers', () => {
  it(
    'a 429 (Gemini RESOURCE_EXHAUSTED), a 500 (Bedrock) and a failing token endpoint are retried',
    TIMEOUT,
    async () => {
      const gemini = await make(
        {
          id: 'google:gemini-2.5-flash',
          config: { apiBaseUrl: `${mock.url}/_/fail_429=1&fault_attempts=1&retry_after=0` },
        },
        { GOOGLE_API_KEY: GOOGLE_KEY },
      );
      const g = await gemini.call(ask('the capital of Fiji'));
      assert.equal(g.error, undefined);
      assert.equal(g.attempts, 2);
      const refusal = mock.requests.find((r) => r.faults.includes('fail_429') && r.raw.includes('Fiji'));
      assert.ok(refusal);

      const bedrock = await make(
        {
          id: 'bedrock:anthropic.claude-3-haiku-20240307-v1:0',
          config: { endpoint: `${mock.url}/_/fail_500=1&fault_attempts=1` },
        },
        { AWS_ACCESS_KEY_ID: AWS_ID, AWS_SECRET_ACCESS_KEY: AWS_SECRET },
      );
      const b = await bedrock.call(ask('the capital of Fiji'));
      assert.equal(b.error, undefined);
      assert.equal(b.attempts, 2);

      const file = join(tmp.dir, 'sa-flaky.json');
      writeFileSync(
        file,
        JSON.stringify({
          type: 'service_account',
          project_id: 'flaky',
          private_key: PEM,
          client_email: 'flaky@flaky.iam.gserviceaccount.com',
          token_uri: `${mock.url}/_/fail_500=1&fault_attempts=1/token`,
        }),
      );
      // The token request carries a JWT stamped to the second, and the mock counts a request's
      // attempts by its body: a retry that fell in the next second was a new request, failed once
      // more (three token requests; it failed so in a loaded run). A fixed clock keeps the retried
      // request the same, as it is within one second.
      const vertexSpec: ProviderSpec = {
        id: 'vertex:gemini-2.0-flash',
        config: { apiHost: mock.url, keyFilename: file },
      };
      const vertexCtx = context();
      const fixedNow = Date.now();
      const vertex = withCallPolicy(
        createGoogleAttempts(vertexSpec, vertexCtx, () => fixedNow),
        callPolicyFor(vertexSpec, vertexCtx),
      );
      const v = await vertex.call(ask('the capital of Fiji'));
      assert.equal(v.error, undefined, v.error);
      assert.equal(v.attempts, 2);
      assert.equal(
        mock.requests.filter(
          (r) => r.path === '/token' && r.raw.includes('jwt-bearer') && r.faults.includes('fail_500'),
        ).length,
        2,
      );
    },
  );
});

describe('Gemini embeddings (google:embedding:, vertex:embedding:)', () => {
  it('AI Studio embeds every text in one batchEmbedContents call, and answers no chat', TIMEOUT, async () => {
    assert.equal(providerOffersEmbeddings('google:embedding:gemini-embedding-001'), true);
    assert.equal(providerOffersEmbeddings('google:gemini-2.5-flash'), false);
    const p = await make(
      {
        id: 'google:embedding:gemini-embedding-001',
        config: { apiBaseUrl: mock.url, taskType: 'SEMANTIC_SIMILARITY' },
      },
      { GOOGLE_API_KEY: GOOGLE_KEY },
    );
    const res = await p.embed!({ texts: ['red apples', 'green pears'] });
    assert.equal(res.error, undefined);
    assert.equal(res.embeddings?.length, 2);
    assert.notDeepEqual(res.embeddings?.[0], res.embeddings?.[1]);
    const req = sent('/v1beta/models/gemini-embedding-001:batchEmbedContents', 'apples');
    assert.equal(req.headers['x-goog-api-key'], GOOGLE_KEY);
    assert.deepEqual(req.body, {
      requests: [
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'red apples' }] },
          taskType: 'SEMANTIC_SIMILARITY',
        },
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'green pears' }] },
          taskType: 'SEMANTIC_SIMILARITY',
        },
      ],
    });
    const chat = await p.call(ask('hi'));
    assert.match(chat.error ?? '', /is an embeddings model: it cannot answer a chat/);
  });

  it('Vertex embeds through :predict with the access token', TIMEOUT, async () => {
    const file = join(tmp.dir, 'sa-embed.json');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'service_account',
        project_id: 'embed-project',
        private_key: PEM,
        client_email: 'embed@embed-project.iam.gserviceaccount.com',
        token_uri: `${mock.url}/token`,
      }),
    );
    const p = await make({
      id: 'vertex:embedding:gemini-embedding-001',
      config: { apiHost: mock.url, keyFilename: file },
    });
    const res = await p.embed!({ texts: ['blue sky'] });
    assert.equal(res.error, undefined, res.error);
    assert.equal(res.embeddings?.length, 1);
    const req = sent(
      '/v1/projects/embed-project/locations/us-central1/publishers/google/models/gemini-embedding-001:predict',
      'blue sky',
    );
    assert.equal(req.headers.authorization, `Bearer ${MOCK_ACCESS_TOKEN}`);
    assert.deepEqual(req.body, { instances: [{ content: 'blue sky' }], parameters: { autoTruncate: false } });
  });
});
