// Issue 30's property: whatever a credential is made of, no spelling of it leaves the process.
// Random secrets, drawn (seeded) with the characters that need escaping — quotes, backslash, +, /,
// =, %, &, <, >, space, non-ASCII — are given to every provider kind, each the way that kind takes a
// credential (a header, a query parameter, a form body, an id's URL, a config field, a variable),
// and sent to the loopback mock, which echoes the whole request (request line, headers, body) in
// five spellings into every answer; script and exec providers echo theirs in as many. Afterwards no
// spelling of any secret (test/support/spellings.ts: as written, JSON-escaped 1–5 times, Python's
// and PHP's JSON, percent-encoded four ways, base64 and base64url, HTML, the report's script JSON)
// is found in any file under the run directory, the response cache and its write-ahead log (read
// before SQLite checkpoints it and after), any -o file, or what the CLI printed (--verbose, --table).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { seededRandom } from '../../src/core/random.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { filesUnder, leaks } from '../support/spellings.js';
import { tempDir } from '../support/tmp.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

const tmp = tempDir('assay-secrets-property-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

/** Seeds of the cases: each is one run with a fresh secret for every provider kind. */
const SEEDS = [20261101, 7, 424242];

const PLAIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** What an HTTP header may carry (Latin-1): the characters that need escaping among them. */
const HEADER_SPECIAL = `"\\+/=%&<> 'é~ß`;
/** A query, a form body, a variable or a config field also takes any Unicode. */
const ANY_SPECIAL = `${HEADER_SPECIAL}€日😀`;

/** A secret of 12–23 characters, about half of them special, never starting or ending in a space (a header would lose it). */
function secretFrom(random: () => number, special: string): string {
  const chars = [...special];
  const length = 12 + Math.floor(random() * 12);
  let out = '';
  for (let i = 0; i < length; i++) {
    const edge = i === 0 || i === length - 1;
    out +=
      !edge && random() < 0.5
        ? chars[Math.floor(random() * chars.length)]
        : PLAIN[Math.floor(random() * PLAIN.length)];
  }
  return out;
}

/** A script that answers with a credential in several spellings (for exec and script providers). */
const ECHO_SPELLINGS = `const spell = (s) => [s, JSON.stringify(s), JSON.stringify(JSON.stringify(s)), encodeURIComponent(s), new URLSearchParams({ k: s }).toString(), Buffer.from(s).toString('base64'), s.replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';')].join(' | ');`;

interface Case {
  dir: string;
  secrets: Record<string, string>;
  config: { providers: unknown[] };
  env: Record<string, string>;
}

/** One case: the suite (every provider kind, each with its own secret), its files and environment. */
function makeCase(seed: number): Case {
  const random = seededRandom(seed);
  const header = () => secretFrom(random, HEADER_SPECIAL);
  const any = () => secretFrom(random, ANY_SPECIAL);
  const s = {
    openai: header(),
    azureKey: header(),
    azureEntra: any(),
    anthropic: header(),
    googleAiStudio: header(),
    vertexExpress: header(),
    bedrockSecretKey: any(),
    bedrockSessionToken: header(),
    bedrockApiKey: header(),
    ollama: header(),
    huggingfaceText: header(),
    huggingfaceChat: header(),
    httpIdToken: any(),
    httpUrlToken: any(),
    httpQueryParam: any(),
    httpHeader: header(),
    execVariable: any(),
    scriptConfig: any(),
    uncachedKey: header(),
  };
  const dir = join(tmp.dir, `case-${seed}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'echo-exec.js'),
    `${ECHO_SPELLINGS}\nprocess.stdout.write('exec got ' + spell(process.env.EXEC_SERVICE_TOKEN) + ' for ' + process.argv[2]);\n`,
  );
  writeFileSync(
    join(dir, 'echo-script.js'),
    `${ECHO_SPELLINGS}\nmodule.exports = async (prompt, context, options) => ({ output: 'script got ' + spell(options.config.apiKey) + ' for ' + prompt });\n`,
  );
  const echo = `${mock.url}/_/echo_request=1`;
  const chatBody = { model: 'm', messages: [{ role: 'user', content: '{{prompt}}' }] };
  const clientId = `client-${seed}`;
  const providers = [
    { id: 'openai:chat:m', config: { apiBaseUrl: `${echo}/v1`, apiKey: s.openai } },
    { id: 'azure:chat:with-key', config: { apiBaseUrl: echo, apiKey: s.azureKey } },
    {
      id: 'azure:chat:with-entra',
      config: {
        apiBaseUrl: echo,
        azureClientId: clientId,
        azureTenantId: 'tenant-0001',
        azureClientSecret: s.azureEntra,
        azureAuthorityHost: mock.url,
      },
    },
    { id: 'anthropic:messages:claude-3-haiku-20240307', config: { apiBaseUrl: echo, apiKey: s.anthropic } },
    { id: 'google:gemini-2.5-flash', config: { apiBaseUrl: echo, apiKey: s.googleAiStudio } },
    {
      id: 'vertex:gemini-2.0-flash',
      config: { apiHost: echo, region: 'us-central1', apiKey: s.vertexExpress },
    },
    {
      id: 'bedrock:anthropic.claude-3-haiku-20240307-v1:0',
      label: 'bedrock-sigv4',
      config: {
        endpoint: echo,
        region: 'us-east-1',
        accessKeyId: 'AKIDPROPERTY0001',
        secretAccessKey: s.bedrockSecretKey,
        sessionToken: s.bedrockSessionToken,
      },
    },
    {
      id: 'bedrock:anthropic.claude-3-haiku-20240307-v1:0',
      label: 'bedrock-api-key',
      config: { endpoint: echo, region: 'us-east-1', apiKey: s.bedrockApiKey },
    },
    { id: 'ollama:chat:llama3', config: { apiBaseUrl: echo, apiKey: s.ollama } },
    {
      id: 'huggingface:text-generation:gpt2',
      config: { apiEndpoint: `${echo}/hf-inference/models/gpt2`, apiKey: s.huggingfaceText },
    },
    {
      id: 'huggingface:chat:meta-llama/Llama-3.1-8B-Instruct',
      config: { apiBaseUrl: `${echo}/v1`, apiKey: s.huggingfaceChat },
    },
    {
      id: `${echo}/v1/chat/completions?access_token=${encodeURIComponent(s.httpIdToken)}`,
      config: { method: 'POST', body: chatBody, transformResponse: 'json.choices[0].message.content' },
    },
    {
      id: 'http',
      config: {
        url: `${echo}/v1/chat/completions?token=${encodeURIComponent(s.httpUrlToken)}`,
        method: 'POST',
        queryParams: { api_key: s.httpQueryParam },
        headers: { 'X-Api-Key': s.httpHeader },
        body: chatBody,
        transformResponse: 'json.choices[0].message.content',
      },
    },
    { id: 'exec:node echo-exec.js' },
    { id: 'file://echo-script.js', config: { apiKey: s.scriptConfig } },
    // An answer that echoes nothing is cached: the cache is not empty, and holds no key either.
    { id: 'openai:chat:plain', config: { apiBaseUrl: `${mock.url}/v1`, apiKey: s.uncachedKey } },
  ];
  for (const p of providers)
    (p as { config?: Record<string, unknown> }).config = { ...p.config, maxRetries: 0 };
  const config = {
    prompts: ['Say {{ q }}'],
    providers,
    tests: ['hello', 'world'].map((q) => ({
      vars: { q },
      assert: [{ type: 'contains', value: 'nothing-like-this' }],
    })),
  };
  // JSON is YAML: no secret needs quoting rules of its own.
  writeFileSync(join(dir, 'promptfooconfig.yaml'), JSON.stringify(config, null, 2));
  return {
    dir,
    config,
    // The Entra ID access token the mock issues for the client is a secret from when it is obtained.
    secrets: { ...s, entraAccessToken: `mock-token-for-${clientId}` },
    env: { EXEC_SERVICE_TOKEN: s.execVariable },
  };
}

const OUTPUTS = ['out.json', 'out.jsonl', 'out.csv', 'out.xml', 'out.md', 'out.html'];

describe('no spelling of a random secret leaves the process, through any provider kind (issue 30)', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: every provider kind, every sink`, async () => {
      const c = makeCase(seed);
      const cache = join(c.dir, 'cache.sqlite');
      // Held open across the run: SQLite then never checkpoints the write-ahead log, which keeps
      // every page the run wrote, to be read as it was.
      const holder = new Database(cache);
      holder.pragma('journal_mode = WAL');
      // A read opens the log's index: from then on this connection keeps the log from a checkpoint.
      holder.prepare('SELECT count(*) FROM sqlite_master').get();
      let wal: Buffer | undefined;
      let run: Awaited<ReturnType<typeof runCli>>;
      try {
        run = await runCli(
          [
            'eval',
            '--no-progress',
            '--verbose',
            '--table',
            '-j',
            '4',
            '--runs-dir',
            join(c.dir, 'runs'),
            '--cache-path',
            cache,
            ...OUTPUTS.flatMap((o) => ['-o', o]),
          ],
          { cwd: c.dir, env: { ...cleanEnv, ...c.env } },
        );
        wal = existsSync(`${cache}-wal`) ? readFileSync(`${cache}-wal`) : undefined;
        const rows = holder.prepare('SELECT count(*) AS n FROM responses').get() as { n: number };
        assert.ok(rows.n >= 2, `the cache holds the answers that echo nothing (${rows.n} rows)`);
      } finally {
        holder.close();
      }
      assert.ok(wal && wal.length > 0, 'the write-ahead log was read before its checkpoint');
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      const files = [
        ...filesUnder(join(c.dir, 'runs')),
        ...OUTPUTS.map((o) => join(c.dir, o)),
        ...[cache, `${cache}-wal`].filter((f) => existsSync(f)),
      ];
      assert.deepEqual(
        leaks(c.secrets, {
          files,
          texts: { stdout: run.stdout, stderr: run.stderr, 'the write-ahead log before its checkpoint': wal },
        }),
        [],
      );
      const log = readFileSync(files.find((f) => f.endsWith('results.jsonl'))!, 'utf8');
      const results = log
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as { providerId: string; status: string; output: string | null; error?: string },
        );
      // Every provider answered (an error would send nothing to echo), and its answer was redacted.
      assert.equal(results.length, 2 * c.config.providers.length, log);
      for (const r of results) assert.equal(r.status, 'fail', `${r.providerId}: ${r.error}`);
      const echoed = results.filter((r) => !r.providerId.endsWith(':plain'));
      for (const r of echoed)
        assert.ok(r.output?.includes('[redacted]'), `${r.providerId} answered ${r.output}`);
      // The secrets did reach the server, as the provider sends them.
      const sent = mock.requests
        .map((q) => [q.url, ...Object.values(q.headers), q.raw].join('\n'))
        .join('\n');
      for (const name of ['openai', 'azureKey', 'anthropic', 'googleAiStudio', 'ollama', 'httpHeader'])
        assert.ok(sent.includes(c.secrets[name]), `the mock got ${name}`);
      assert.ok(sent.includes(new URLSearchParams({ api_key: c.secrets.httpQueryParam }).toString()));
    });
  }

  it('an Entra ID refusal quoting a random client secret in its form, and a native output written later', async () => {
    const random = seededRandom(99);
    const secret = secretFrom(random, ANY_SPECIAL);
    const dir = join(tmp.dir, 'entra');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      JSON.stringify({
        prompts: ['Say {{ q }}'],
        providers: [
          {
            id: 'azure:chat:dep',
            config: {
              apiBaseUrl: mock.url,
              azureClientId: 'client-entra',
              azureTenantId: 'tenant-0001',
              azureClientSecret: secret,
              azureAuthorityHost: `${mock.url}/_/echo_request=1`,
              maxRetries: 0,
            },
          },
        ],
        tests: [{ vars: { q: 'hello' } }],
      }),
    );
    const run = await runCli(
      ['eval', '--no-progress', '--verbose', '--runs-dir', join(dir, 'runs'), '-o', 'out.json'],
      {
        cwd: dir,
        env: cleanEnv,
      },
    );
    assert.ok(run.code !== 2, run.stderr);
    const runDir = filesUnder(join(dir, 'runs'))
      .find((f) => f.endsWith('manifest.json'))!
      .replace(/\/manifest\.json$/, '');
    // A native output written from the run afterwards, by a process that never knew the secret.
    const report = await runCli(['report', runDir, '--format', 'promptfoo', '-o', join(dir, 'pf.json')], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(report.code, 0, report.stderr);
    assert.deepEqual(
      leaks(
        { secret },
        {
          files: [...filesUnder(join(dir, 'runs')), join(dir, 'out.json'), join(dir, 'pf.json')],
          texts: { stdout: run.stdout, stderr: run.stderr, report: report.stdout + report.stderr },
        },
      ),
      [],
    );
    // The refusal quoting the form is the run's error, redacted.
    assert.match(readFileSync(join(runDir, 'results.jsonl'), 'utf8'), /client_secret=\[redacted\]/);
  });
});
