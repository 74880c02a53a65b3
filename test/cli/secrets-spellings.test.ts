// Issue 30, "a secret in any spelling never leaves the process": the five ways a credential still
// reached a file or the terminal, each through the real CLI, real files and the loopback mock.
// - a credential query parameter in an http provider's id (promptfoo's `http://host/api?token=…`),
//   and in a connection error naming that URL;
// - a key sent percent-encoded (queryParams) and echoed in that spelling; an Entra ID token
//   endpoint answering 400 and quoting the form it got (`client_secret=…%7E…%2B…`);
// - a key holding `"`, `\` and `<`, echoed inside JSON by the server and escaped again by the log;
// - `--verbose` printing a secret from `--env-file` rendered into a prompt.
// And what is deliberately not redacted: a declared credential under 8 characters (a warning names
// it), and what a rendered `{{ env.X }}` sends to the model (promptfoo does the same).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { filesUnder, inJson, leaks } from '../support/spellings.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-secrets-spellings-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

const OUTPUTS = ['out.json', 'out.jsonl', 'out.csv', 'out.xml', 'out.md', 'out.html'];

/** Runs `assay eval` in a fresh folder holding `config`, with every -o output and a cache of its own. */
async function evalSuite(
  name: string,
  config: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; console: string; files: string[]; dir: string; cache: string }> {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const cache = join(dir, 'cache.sqlite');
  const r = await runCli(
    [
      'eval',
      '--no-progress',
      '-j',
      '1',
      '--runs-dir',
      join(dir, 'runs'),
      '--cache-path',
      cache,
      ...OUTPUTS.flatMap((o) => ['-o', o]),
      ...extra,
    ],
    { cwd: dir, env: { ...cleanEnv, ...env } },
  );
  const files = [
    ...filesUnder(join(dir, 'runs')),
    ...OUTPUTS.map((o) => join(dir, o)),
    ...[cache, `${cache}-wal`].filter((f) => existsSync(f)),
  ];
  assert.ok(
    files.some((f) => f.endsWith('results.jsonl')),
    `the run wrote its log (exit ${r.code}): ${r.stderr}`,
  );
  return { code: r.code, console: `${r.stdout}\n${r.stderr}`, files, dir, cache };
}

describe('a secret in any spelling never leaves the process (issue 30)', () => {
  it('a credential query parameter in an http provider id is masked in every file, the console table and a connection error', async () => {
    const token = 'tok-in-the-id-0123456789';
    const closed = 'closed-port-key-0123456789';
    const id = `${mock.url}/v1/chat/completions?token=${token}&sig=s1x`;
    const run = await evalSuite(
      'http-id',
      `prompts: ['Say {{ q }}']
providers:
  - id: '${id}'
    config:
      method: POST
      body: {model: m, messages: [{role: user, content: '{{prompt}}'}]}
      transformResponse: json.choices[0].message.content
      maxRetries: 0
  - id: 'http://127.0.0.1:1/api?api_key=${closed}'
    config: {method: POST, body: {q: '{{prompt}}'}, maxRetries: 0}
tests:
  - vars: {q: hello}
    assert: [{type: contains, value: hello}]
`,
      ['--table'],
    );
    assert.ok(run.code !== 2, run.console);
    // The mock was called with the token: the URL is the provider's, as given.
    assert.ok(mock.requests.some((q) => q.url.includes(token)));
    assert.deepEqual(leaks({ token, closed }, { files: run.files, texts: { console: run.console } }), []);
    // The short `sig` is masked where it follows its name: in the id shown everywhere.
    for (const f of run.files.filter((f) => /manifest\.json$|results\.jsonl$|out\.json$/.test(f)))
      assert.ok(!readFileSync(f, 'utf8').includes('sig=s1x'), f);
    const masked = `${mock.url}/v1/chat/completions?token=[redacted]&sig=[redacted]`;
    const manifest = readFileSync(run.files.find((f) => f.endsWith('manifest.json'))!, 'utf8');
    assert.ok(manifest.includes(JSON.stringify(masked)), manifest);
    const log = readFileSync(run.files.find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    assert.ok(log.includes(`"providerId":${JSON.stringify(masked)}`), log);
    // The connection error names the URL, masked.
    assert.match(log, /127\.0\.0\.1:1\/api\?api_key=\[redacted\]/);
    assert.ok(run.console.includes('token=[redacted]'), run.console);
  });

  it('a key sent percent-encoded and echoed in that spelling reaches no file, the cache or the console', async () => {
    const key = 'k3y+a/b=c~x 0123';
    const run = await evalSuite(
      'percent',
      `prompts: ['Say {{ q }}']
providers:
  - id: http
    config:
      url: '${mock.url}/_/echo_request=1/v1/chat/completions'
      method: POST
      queryParams: {api_key: '${key}'}
      body: {model: m, messages: [{role: user, content: '{{prompt}}'}]}
      # The answer's second line: the request line as the server got it, the key percent-encoded only.
      transformResponse: "json.choices[0].message.content.split('\\\\n')[1]"
      maxRetries: 0
tests:
  - vars: {q: hello}
    assert: [{type: contains, value: nothing-like-this}]
`,
      ['--verbose'],
    );
    assert.equal(run.code, 1, run.console);
    const sent = mock.requests.at(-1)?.url ?? '';
    assert.ok(sent.includes(new URLSearchParams({ api_key: key }).toString()), sent);
    const log = readFileSync(run.files.find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    assert.match(log, /api_key=\[redacted\]/, 'the echoed request line reached the log, redacted');
    assert.deepEqual(leaks({ key }, { files: run.files, texts: { console: run.console } }), []);
  });

  it('an Entra ID token endpoint answering 400 and quoting the form writes no spelling of the client secret', async () => {
    const secret = 'ent~ra+client/secret=0123 é';
    const run = await evalSuite(
      'entra',
      `prompts: ['Say {{ q }}']
providers:
  - id: azure:chat:my-deployment
    config:
      apiBaseUrl: '${mock.url}'
      azureClientId: client-0001
      azureTenantId: tenant-0001
      azureClientSecret: '${secret}'
      azureAuthorityHost: '${mock.url}/_/echo_request=1'
      maxRetries: 0
tests:
  - vars: {q: hello}
`,
    );
    assert.ok(run.code !== 2, run.console);
    // The endpoint got the form and quoted it in its refusal, which is the run's error.
    const form = mock.requests.find((q) => q.path.endsWith('/oauth2/v2.0/token'))?.raw ?? '';
    assert.ok(form.includes(new URLSearchParams({ client_secret: secret }).toString()), form);
    const log = readFileSync(run.files.find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    assert.match(log, /AADSTS900144[^"]*client_secret=\[redacted\]/, log);
    assert.deepEqual(leaks({ secret }, { files: run.files, texts: { console: run.console } }), []);
  });

  it('a key holding ", \\ and < echoed inside JSON and escaped again is redacted at every depth', async () => {
    const key = 'sk-"quoted"\\back<slash>-0123';
    const run = await evalSuite(
      'escaped',
      `prompts: ['Say {{ q }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${mock.url}/_/echo_headers=1/v1', apiKey: ${JSON.stringify(key)}, maxRetries: 0}
tests:
  - vars: {q: hello}
    assert: [{type: contains, value: nothing-like-this}]
`,
    );
    assert.equal(run.code, 1, run.console);
    const log = readFileSync(run.files.find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    // The answer quotes the headers as JSON: the log holds them escaped once more, redacted.
    assert.ok(log.includes(inJson('"authorization":"Bearer [redacted]"', 1)), log);
    assert.deepEqual(leaks({ key }, { files: run.files, texts: { console: run.console } }), []);
  });

  it('--verbose prints no secret from --env-file rendered into a prompt', async () => {
    const envKey = 'sk-envfile-0123456789abcdef';
    const dir = join(tmp.dir, 'verbose');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'secrets.env'), `MY_API_KEY=${envKey}\n`);
    const run = await evalSuite(
      'verbose',
      `prompts: ['Key {{ env.MY_API_KEY }} and {{ q }}']
providers: [echo]
tests:
  - vars: {q: hello}
    assert: [{type: contains, value: nothing-like-this}]
`,
      ['--verbose', '--env-file', join(dir, 'secrets.env')],
    );
    assert.equal(run.code, 1, run.console);
    // The result line was printed (with the failing reason quoting the output), redacted.
    assert.match(run.console, /FAIL .*Key \[redacted\]/);
    assert.deepEqual(leaks({ envKey }, { files: run.files, texts: { console: run.console } }), []);
  });

  it('a configuration error naming an http provider by its id shows the credential masked', async () => {
    const dir = join(tmp.dir, 'config-error');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Say {{ q }}']
providers:
  - id: '${mock.url}/api?token=tok-config-error-0123456789'
    config: {method: POST, body: {q: '{{prompt}}'}, tls: {rejectUnauthorized: false}}
tests:
  - vars: {q: hello}
`,
    );
    const r = await runCli(['eval', '--no-progress', '--runs-dir', join(dir, 'runs')], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /api\?token=\[redacted\]".*tls.* is not supported/);
    assert.deepEqual(
      leaks({ token: 'tok-config-error-0123456789' }, { texts: { stdout: r.stdout, stderr: r.stderr } }),
      [],
    );
  });

  it('two providers whose ids differ only in a credential are refused before any call, asking for labels', async () => {
    const dir = join(tmp.dir, 'twins');
    mkdirSync(dir, { recursive: true });
    const provider = (token: string) => `  - id: '${mock.url}/v1/chat/completions?token=${token}'
    config: {method: POST, body: {q: '{{prompt}}'}}
`;
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Say {{ q }}']\nproviders:\n${provider('tok-first-0123456789')}${provider('tok-second-0123456789')}tests:\n  - vars: {q: hello}\n`,
    );
    const before = mock.requests.length;
    const r = await runCli(['eval', '--no-progress', '--runs-dir', join(dir, 'runs')], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /promptfooconfig\.yaml:\d+.*two providers are both shown as ".*token=\[redacted\]".*give each a label/,
    );
    assert.ok(
      !`${r.stdout}${r.stderr}`.includes('tok-first') && !`${r.stdout}${r.stderr}`.includes('tok-second'),
    );
    assert.equal(mock.requests.length, before, 'no call was made');
  });

  it('a report written to stdout goes through the terminal’s redaction (a value that is a secret here)', async () => {
    const value = 'later-a-secret-0123456789';
    const run = await evalSuite(
      'stdout',
      `prompts: ['Say {{ q }}']
providers: [echo]
tests:
  - vars: {q: '${value}'}
`,
    );
    const runDir = run.files.find((f) => f.endsWith('manifest.json'))!.replace(/[\\/]manifest\.json$/, '');
    // The run did not know it as a secret: its log holds it.
    assert.ok(readFileSync(join(runDir, 'results.jsonl'), 'utf8').includes(value));
    const r = await runCli(['report', runDir, '--format', 'jsonl'], {
      cwd: run.dir,
      env: { ...cleanEnv, SERVICE_API_KEY: value },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[redacted\]/);
    assert.deepEqual(leaks({ value }, { texts: { stdout: r.stdout, stderr: r.stderr } }), []);
  });

  it('a declared credential under 8 characters is written as is, and a warning names it, never its value', async () => {
    const run = await evalSuite(
      'short',
      `prompts: ['Say {{ q }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${mock.url}/v1', apiKey: sk-1x2, maxRetries: 0}
tests:
  - vars: {q: hello}
`,
    );
    assert.equal(run.code, 0, run.console);
    const warning = run.console.split('\n').find((l) => l.includes('characters long'));
    assert.ok(warning, run.console);
    assert.match(warning, /config\.apiKey of provider "openai:chat:m" is 6 characters long/);
    assert.ok(!warning.includes('sk-1x2'), warning);
  });

  it('a var whose value is {{ env.X }} is rendered and sent to the model (as promptfoo does); what assay writes holds [redacted]', async () => {
    const envKey = 'sk-rendered-var-0123456789';
    const run = await evalSuite(
      'env-var',
      `prompts: ['Use {{ key }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${mock.url}/v1', apiKey: none-needed-here, maxRetries: 0}
tests:
  - vars: {key: '{{ env.MY_SERVICE_TOKEN }}'}
`,
      [],
      { MY_SERVICE_TOKEN: envKey },
    );
    assert.equal(run.code, 0, run.console);
    assert.ok(
      JSON.stringify(mock.requests.at(-1)?.body).includes(`Use ${envKey}`),
      'the model got the secret',
    );
    assert.deepEqual(leaks({ envKey }, { files: run.files, texts: { console: run.console } }), []);
  });
});
