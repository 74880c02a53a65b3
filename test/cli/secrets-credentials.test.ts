// Issue 20, "Secrets never reach disk": a secret is every value a provider is given as a
// credential, whatever variable or header carries it. A mock that echoes the request headers into
// every answer puts each credential into the outputs; no file the run writes may hold one. And the
// opposite fault: an error quoting a path and a locale from the environment keeps them.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-secrets-credentials-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: [{ match: 'Rubric', reply: '{"pass": true, "score": 1, "reason": "fine"}' }],
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

const CREDENTIALS = {
  MY_OPENAI_CRED: 'cred-openai-0123456789',
  MY_ANTHROPIC_CRED: 'cred-anthropic-0123456789',
  MY_OLLAMA_CRED: 'cred-ollama-0123456789',
  MY_GRADER_CRED: 'cred-grader-0123456789',
};
const HEADER_VALUES = {
  Cookie: 'session=cookie-value-0123456789',
  'Ocp-Apim-Subscription-Key': 'apim-subscription-0123456789',
  'X-Auth-Key': 'x-auth-value-0123456789',
};

describe('credentials in what assay writes (issue 20)', () => {
  it('a key read through apiKeyEnvar and each credential header never reach any file, though the server echoes them', async () => {
    const dir = join(tmp.dir, 'echo');
    mkdirSync(dir, { recursive: true });
    const echo = `${mock.url}/_/echo_headers=1`;
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Say {{ q }}']
providers:
  - id: openai:chat:a
    config: {apiBaseUrl: ${echo}/v1, apiKeyEnvar: MY_OPENAI_CRED, maxRetries: 0}
  - id: anthropic:messages:b
    config: {apiBaseUrl: ${echo}, apiKeyEnvar: MY_ANTHROPIC_CRED, maxRetries: 0}
  - id: ollama:chat:c
    config: {apiBaseUrl: ${echo}, apiKeyEnvar: MY_OLLAMA_CRED, maxRetries: 0}
  - id: openai:chat:d
    config:
      apiBaseUrl: ${echo}/v1
      apiKey: none-needed
      maxRetries: 0
      headers: ${JSON.stringify(HEADER_VALUES)}
defaultTest:
  options:
    provider: {id: 'openai:chat:grader', config: {apiBaseUrl: '${echo}/v1', apiKeyEnvar: MY_GRADER_CRED, maxRetries: 0}}
tests:
  - vars: {q: hello}
    assert:
      - {type: contains, value: hello}
      - {type: llm-rubric, value: 'says hello'}
`,
    );
    const cache = join(dir, 'cache.sqlite');
    const r = await runCli(
      [
        'eval',
        '--no-progress',
        '--runs-dir',
        join(dir, 'runs'),
        '--cache-path',
        cache,
        '-o',
        'out.json',
        '-o',
        'out.html',
        '-o',
        'out.jsonl',
        '-o',
        'out.csv',
      ],
      { cwd: dir, env: { ...cleanEnv, ...CREDENTIALS } },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    // The server did receive (and echo) every credential.
    const sent = JSON.stringify(mock.requests.map((q) => q.headers));
    for (const value of [...Object.values(CREDENTIALS), ...Object.values(HEADER_VALUES)])
      assert.ok(sent.includes(value), `the mock received ${value}`);
    const written = [
      ...filesUnder(join(dir, 'runs')),
      ...['out.json', 'out.html', 'out.jsonl', 'out.csv'].map((f) => join(dir, f)),
      ...[cache, `${cache}-wal`].filter((f) => existsSync(f)),
    ];
    assert.ok(written.some((f) => f.endsWith('results.jsonl')));
    assert.ok(existsSync(cache));
    const log = readFileSync(written.find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    assert.match(log, /headers: .*\[redacted\]/, 'the echoed headers reached the log, redacted');
    for (const file of written) {
      const bytes = readFileSync(file);
      for (const [name, value] of [...Object.entries(CREDENTIALS), ...Object.entries(HEADER_VALUES)])
        assert.ok(!bytes.includes(value), `${file} holds ${name}'s value`);
    }
    for (const value of [...Object.values(CREDENTIALS), ...Object.values(HEADER_VALUES)])
      assert.ok(!r.stdout.includes(value) && !r.stderr.includes(value), `the console shows ${value}`);
  });

  it('an error quoting a path and a locale from the environment keeps them (only secrets are redacted)', async () => {
    const dir = join(tmp.dir, 'paths');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'provider.js'),
      `module.exports = async () => { throw new Error('could not read ' + process.env.DATA_DIR + '/data.csv with locale ' + process.env.LC_ALL + ' (key ' + process.env.SERVICE_API_KEY + ')'); };\n`,
    );
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Say {{ q }}']
providers: ['file://provider.js']
tests:
  - vars: {q: hello}
`,
    );
    const dataDir = join(dir, 'datasets-folder');
    const r = await runCli(['eval', '--no-progress', '--runs-dir', join(dir, 'runs'), '-o', 'out.json'], {
      cwd: dir,
      env: {
        ...cleanEnv,
        DATA_DIR: dataDir,
        LC_ALL: 'en_US.UTF-8',
        SERVICE_API_KEY: 'secret-key-0123456789',
      },
    });
    assert.ok(r.code !== 2, r.stderr);
    const log = readFileSync(filesUnder(join(dir, 'runs')).find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    assert.ok(log.includes(`could not read ${dataDir}/data.csv with locale en_US.UTF-8`), log);
    assert.ok(log.includes('(key [redacted])'), log);
    assert.ok(!log.includes('secret-key-0123456789'));
  });
});
