// A promptfoo config naming Google AI Studio, Vertex, Hugging Face (both tasks) and Bedrock runs end
// to end with `assay eval -c` against the loopback mock: outputs, usage, cost, a blocked answer as
// an error row, and no credential in any file written, though the mock echoes every request header
// (the API key, the Vertex access token, the Hugging Face token, the AWS session token) into its
// answers and the AWS keys and the service-account key come from files, not variables.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { MOCK_ACCESS_TOKEN } from '../support/mock-cloud.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cloud-eval-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [
      { match: 'forbidden', blocked: 'answer' },
      { match: 'capital of (\\w+)', reply: 'The capital of $1 is unknown to the mock.' },
    ],
  });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const GEMINI_CRED = 'gemini-cred-0123456789abcdef';
const HF_CRED = 'hf_cred_0123456789abcdef';
const AWS_SECRET = 'aws-file-secret-0123456789abcdef';
const AWS_SESSION = 'aws-file-session-0123456789abcdef';

describe('a promptfoo config naming the cloud providers (assay eval -c)', () => {
  it('runs end to end with outputs, usage, cost, error rows, and every credential redacted', async () => {
    const dir = join(tmp.dir, 'suite');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.aws'), { recursive: true });
    writeFileSync(
      join(home, '.aws', 'credentials'),
      `[default]\naws_access_key_id = AKIDFILE0001\naws_secret_access_key = ${AWS_SECRET}\naws_session_token = ${AWS_SESSION}\n`,
    );
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    writeFileSync(
      join(dir, 'sa.json'),
      JSON.stringify({
        type: 'service_account',
        project_id: 'evals-project',
        private_key: pem,
        client_email: 'evals@evals-project.iam.gserviceaccount.com',
        token_uri: `${mock.url}/token`,
      }),
    );
    const echo = `${mock.url}/_/echo_headers=1`;
    writeFileSync(
      join(dir, 'config.yaml'),
      `prompts: ['What is the capital of {{ country }}?']
providers:
  - id: google:gemini-2.5-flash
    config: {apiBaseUrl: '${echo}', apiKeyEnvar: MY_GEMINI_CRED, maxRetries: 0}
  - id: vertex:gemini-2.0-flash
    config: {apiHost: '${echo}', region: us-central1, credentials: 'file://sa.json', maxRetries: 0}
  - id: huggingface:text-generation:gpt2
    config: {apiEndpoint: '${echo}/hf-inference/models/gpt2', max_new_tokens: 40, maxRetries: 0}
  - id: huggingface:chat:meta-llama/Llama-3.1-8B-Instruct
    config: {apiBaseUrl: '${echo}/v1', maxRetries: 0}
  - id: bedrock:anthropic.claude-3-haiku-20240307-v1:0
    config: {endpoint: '${echo}', maxRetries: 0}
tests:
  - vars: {country: Peru}
    assert: [{type: contains, value: unknown to the mock}]
  - vars: {country: forbidden land}
    assert: [{type: contains, value: unknown to the mock}]
`,
    );
    const cache = join(dir, 'cache.sqlite');
    const r = await runCli(
      [
        'eval',
        '-c',
        'config.yaml',
        '--no-progress',
        '--runs-dir',
        join(dir, 'runs'),
        '--cache-path',
        cache,
        '-o',
        'out.json',
        '-o',
        'out.jsonl',
        '-o',
        'out.csv',
      ],
      { cwd: dir, env: { ...cleanEnv, HOME: home, MY_GEMINI_CRED: GEMINI_CRED, HF_TOKEN: HF_CRED } },
    );
    // Error rows (the blocked answers) make the exit code 3.
    assert.equal(r.code, 3, r.stderr + r.stdout);
    const log = filesUnder(join(dir, 'runs')).find((f) => f.endsWith('results.jsonl'));
    assert.ok(log);
    const rows = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JobResult)
      .filter((row) => typeof row.providerId === 'string');
    const row = (provider: string, country: string): JobResult => {
      const found = rows.find((x) => x.providerId === provider && x.case.vars.country === country);
      assert.ok(found, `no row for ${provider} / ${country}`);
      return found;
    };
    const providers = [
      'google:gemini-2.5-flash',
      'vertex:gemini-2.0-flash',
      'huggingface:text-generation:gpt2',
      'huggingface:chat:meta-llama/Llama-3.1-8B-Instruct',
      'bedrock:anthropic.claude-3-haiku-20240307-v1:0',
    ];
    for (const provider of providers) {
      const ok = row(provider, 'Peru');
      assert.equal(ok.status, 'pass', `${provider}: ${JSON.stringify(ok)}`);
      assert.match(String(ok.output), /^The capital of Peru is unknown to the mock\.\nheaders: /);
    }
    // Usage where the API reports it (the mock counts words, the echoed headers too: exact counts
    // are checked in test/providers/cloud-providers.test.ts); cost where promptfoo knows the price.
    const priced = (provider: string, input: number, output: number): void => {
      const u = row(provider, 'Peru').answer.usage as { prompt: number; completion: number; total: number };
      assert.equal(u.prompt, 6);
      assert.ok(u.completion >= 9);
      assert.equal(u.total, u.prompt + u.completion);
      const cost = Number(row(provider, 'Peru').answer.cost);
      assert.ok(
        Math.abs(cost - (u.prompt * input + u.completion * output) / 1e6) < 1e-12,
        `${provider} cost`,
      );
    };
    priced('google:gemini-2.5-flash', 0.3, 2.5);
    priced('vertex:gemini-2.0-flash', 0.15, 0.6);
    priced('bedrock:anthropic.claude-3-haiku-20240307-v1:0', 0.25, 1.25);
    assert.equal(row('huggingface:text-generation:gpt2', 'Peru').answer.usage, undefined);
    // A blocked answer is an error row naming the provider (promptfoo: an error too).
    const blocked = row('google:gemini-2.5-flash', 'forbidden land');
    assert.equal(blocked.status, 'error');
    assert.match(String(blocked.error), /^Google AI Studio: the answer was blocked \(finish reason SAFETY\)/);
    assert.match(
      String(row('vertex:gemini-2.0-flash', 'forbidden land').error),
      /^Vertex AI: the answer was blocked/,
    );
    assert.equal(row('bedrock:anthropic.claude-3-haiku-20240307-v1:0', 'forbidden land').status, 'fail');

    // Every credential reached the mock (and was echoed into an answer)...
    const received = JSON.stringify(mock.requests.map((q) => q.headers));
    const secrets = { GEMINI_CRED, HF_CRED, AWS_SESSION, MOCK_ACCESS_TOKEN };
    for (const [name, value] of Object.entries(secrets))
      assert.ok(received.includes(value), `mock got ${name}`);
    // ...and none is in any file the run wrote, nor on the console; nor is the AWS secret or the key.
    const written = [
      ...filesUnder(join(dir, 'runs')),
      ...['out.json', 'out.jsonl', 'out.csv'].map((f) => join(dir, f)),
      ...[cache, `${cache}-wal`].filter((f) => existsSync(f)),
    ];
    assert.ok(existsSync(cache));
    const pemLine = pem.split('\n')[1];
    for (const file of written) {
      const bytes = readFileSync(file);
      for (const [name, value] of Object.entries({ ...secrets, AWS_SECRET, pemLine }))
        assert.ok(!bytes.includes(value), `${file} holds ${name}`);
    }
    for (const value of [...Object.values(secrets), AWS_SECRET])
      assert.ok(!r.stdout.includes(value) && !r.stderr.includes(value), 'the console shows a credential');
    assert.match(readFileSync(log, 'utf8'), /headers: .*\[redacted\]/);
  });
});
