// A provider that can make no call at all — no API key for a service that needs one, no cloud
// credential — is refused before the run starts (issue 24): exit 2, one line naming the variable to
// set and the suite that asks for it, no run directory, and not a single request at the server;
// never one identical error row per job and exit 3. A grader without its key is refused the same way.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-unusable-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

let n = 0;
/** Writes a promptfoo config of three tests into a folder of its own and returns the folder. */
function suite(providers: string, extra = ''): string {
  const dir = join(tmp.dir, `s${n++}`);
  mkdirSync(dir, { recursive: true });
  const tests = ['a', 'b', 'c'].map(
    (x) => `  - vars: {x: ${x}}\n    assert: [{type: contains, value: ${x}}]`,
  );
  writeFileSync(
    join(dir, 'promptfooconfig.yaml'),
    `prompts: ['Say {{x}}']\nproviders: ${providers}\n${extra}tests:\n${tests.join('\n')}\n`,
  );
  return dir;
}

/** The environment of a user with no cloud settings at all (and an empty home: no ~/.aws, no gcloud). */
function bareEnv(): Record<string, string | undefined> {
  const home = join(tmp.dir, `home${n++}`);
  mkdirSync(home, { recursive: true });
  const env: Record<string, string | undefined> = { ...cleanEnv, HOME: home };
  for (const name of Object.keys(process.env))
    if (/^(AWS_|GOOGLE_|GEMINI_|VERTEX_|ANTHROPIC_|AZURE_|CLOUDSDK_)/.test(name)) env[name] = undefined;
  return env;
}

describe('a provider that cannot make any call is refused before the run', () => {
  it('openai at api.openai.com with no OPENAI_API_KEY: exit 2 naming the variable and the suite, no run written', async () => {
    const dir = suite('[openai:gpt-4o-mini]');
    const r = await runCli(['eval', '--no-progress'], { cwd: dir, env: bareEnv() });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /promptfooconfig\.yaml: provider openai:gpt-4o-mini: OpenAI: no API key for https:\/\/api\.openai\.com\/v1: set OPENAI_API_KEY.*\(no model was called\)/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(existsSync(join(dir, '.assay', 'runs')), false, 'no run directory is written');
  });

  it('a service whose key is always required (Google AI Studio) asks its server nothing', async () => {
    mock.resetStats();
    const dir = suite(`\n  - id: google:gemini-2.0-flash\n    config: {apiBaseUrl: '${mock.url}'}`);
    const r = await runCli(['eval', '--no-progress'], { cwd: dir, env: bareEnv() });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /provider google:gemini-2\.0-flash: .*no API key .*set GOOGLE_API_KEY/);
    assert.equal(mock.stats().requests, 0, 'not one request reached the server');
  });

  it('Bedrock with no AWS credential anywhere: refused, naming where credentials are looked for', async () => {
    mock.resetStats();
    const dir = suite(
      `\n  - id: bedrock:anthropic.claude-3-haiku-20240307-v1:0\n    config: {endpoint: '${mock.url}', region: us-east-1}`,
    );
    const r = await runCli(['eval', '--no-progress'], { cwd: dir, env: bareEnv() });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /provider bedrock:anthropic\.claude-3-haiku.*no AWS credentials: set AWS_ACCESS_KEY_ID/,
    );
    assert.equal(mock.stats().requests, 0);
  });

  it('a grader without its key is refused the same way, before the provider under test is called', async () => {
    mock.resetStats();
    const dir = suite(
      `\n  - id: openai:gpt-4o-mini\n    config: {apiBaseUrl: '${mock.baseUrl}'}`,
      `defaultTest:\n  options:\n    provider: google:gemini-2.0-flash\n  assert: [{type: llm-rubric, value: is polite}]\n`,
    );
    const r = await runCli(['eval', '--no-progress'], { cwd: dir, env: bareEnv() });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /grader google:gemini-2\.0-flash: .*no API key .*GOOGLE_API_KEY/);
    assert.equal(mock.stats().requests, 0, 'the provider under test was not called either');
  });

  it('a provider no job calls is not refused: its cases filtered away, or every case answered by its own provider', async () => {
    const dir = join(tmp.dir, `s${n++}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Say {{x}}']
providers: [echo, openai:gpt-4o-mini]
tests:
  - description: local
    vars: {x: a}
    providers: [echo]
    assert: [{type: contains, value: a}]
  - description: remote
    vars: {x: b}
    providers: [openai:gpt-4o-mini]
    assert: [{type: contains, value: b}]
`,
    );
    const filtered = await runCli(['eval', '--no-progress', '--filter-pattern', 'local'], {
      cwd: dir,
      env: bareEnv(),
    });
    assert.equal(filtered.code, 0, filtered.stdout + filtered.stderr);
    assert.match(filtered.stdout, /1 jobs?: 1 passed/);
    const unfiltered = await runCli(['eval', '--no-progress'], { cwd: dir, env: bareEnv() });
    assert.equal(unfiltered.code, 2, 'the remote case still needs the key');
    assert.match(unfiltered.stderr, /provider openai:gpt-4o-mini: .*OPENAI_API_KEY/);

    const own = suite('[openai:gpt-4o-mini]', 'defaultTest:\n  provider: echo\n');
    const r = await runCli(['eval', '--no-progress'], { cwd: own, env: bareEnv() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /3 jobs: 3 passed/);
  });

  it('a local OpenAI-compatible server needs no key: the run goes ahead', async () => {
    const dir = suite('[openai:gpt-4o-mini]');
    const r = await runCli(['eval', '--no-progress'], {
      cwd: dir,
      env: { ...bareEnv(), OPENAI_BASE_URL: mock.baseUrl },
    });
    assert.ok(r.code === 0 || r.code === 1, r.stdout + r.stderr);
    assert.match(r.stdout, /3 jobs: .* 0 errors/);
  });
});
