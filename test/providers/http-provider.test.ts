// promptfoo's generic `http` provider, run by the real CLI against a loopback target
// (test/support/mock-http.ts): the requests assay sends and the rows it writes must be the ones
// promptfoo 0.123.1 sent and wrote for the same config (test/fixtures/promptfoo/http/expected.json,
// recorded by scripts/promptfoo-http-record.js), and no credential may reach the run's files.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import {
  type RecordedRequest,
  type RecordedRow,
  recordedRequest,
  recordedRow,
} from '../support/http-record.js';
import { type HttpTarget, startHttpTarget } from '../support/mock-http.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const fixtureDir = (name: string) => join(repoRoot, 'test', 'fixtures', 'promptfoo', name);
const FIXTURE = fixtureDir('http');
const expectedOf = (name: string) =>
  JSON.parse(readFileSync(join(fixtureDir(name), 'expected.json'), 'utf8')) as {
    requests: RecordedRequest[];
    rows: RecordedRow[];
  };
const SECRETS = [
  'sk-http-secret-123',
  'xk-secret-4567',
  'cookie-secret-89',
  'raw-secret-7777',
  'tok-secret-2468',
];

let target: HttpTarget;
const tmp = tempDir('assay-http-');

before(async () => {
  target = await startHttpTarget();
});
after(async () => {
  await target.close();
  tmp.cleanup();
});

/** The fixture suite in a folder of its own, with the target's address written in. */
function suiteAt(name: string, edit: (config: string) => string = (c) => c, fixture = FIXTURE): string {
  const dir = join(tmp.dir, name);
  cpSync(fixture, dir, { recursive: true });
  const config = readFileSync(join(fixture, 'promptfooconfig.yaml'), 'utf8')
    .replaceAll('TARGETHOST', new URL(target.url).host)
    .replaceAll('TARGET', target.url);
  writeFileSync(join(dir, 'promptfooconfig.yaml'), edit(config));
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);

describe('the http provider against promptfoo 0.123.1', { timeout: 300_000 }, () => {
  // http: the shapes (bodies, transforms, status, sessions, raw requests, auth); http-edge: nunjucks
  // filters in a JSON body, named file functions, text answers, full responses, number outputs,
  // error fields, lower-case methods, a GET with a body, an empty answer, a block-scalar form body.
  for (const name of ['http', 'http-edge'])
    it(`sends the requests promptfoo sends and writes the rows promptfoo writes (${name})`, async () => {
      await sameAsPromptfoo(name);
    });

  async function sameAsPromptfoo(name: string): Promise<void> {
    const expected = expectedOf(name);
    const dir = suiteAt(`same-${name}`, undefined, fixtureDir(name));
    const out = join(dir, 'out.json');
    const runs = join(dir, 'runs');
    const first = target.requests.length;
    const r = await runCli(
      [
        'eval',
        join(dir, 'promptfooconfig.yaml'),
        '-j',
        '1',
        '--no-progress',
        '--runs-dir',
        runs,
        '--output-format',
        'promptfoo',
        '-o',
        out,
      ],
      { env: { ASSAY_CACHE_PATH: join(dir, 'cache.sqlite') } },
    );
    assert.equal(r.code, 3, r.stderr); // rows fail and two are errors, as in promptfoo (exit 100 there)

    // Requests: the same multiset (assay may interleave them differently).
    const key = (q: RecordedRequest) => ({ key: JSON.stringify(q), q });
    const sent = target.requests
      .slice(first)
      .map((q) => key(recordedRequest(q, target.url)))
      .sort(byKey);
    const want = expected.requests.map(key).sort(byKey);
    assert.deepEqual(
      sent.map((s) => s.q),
      want.map((w) => w.q),
    );

    // Rows: output, error and verdict per provider and test.
    const rows = JSON.parse(readFileSync(out, 'utf8'))
      .results.results.map((row: unknown) => recordedRow(row, target.url))
      .map((row: RecordedRow) => ({ key: `${row.provider}/${row.description}`, row }))
      .sort(byKey);
    const wantRows = expected.rows
      .map((row) => ({ key: `${row.provider}/${row.description}`, row }))
      .sort(byKey);
    assert.equal(rows.length, wantRows.length);
    for (const [i, w] of wantRows.entries()) {
      const got = rows[i].row as RecordedRow;
      assert.equal(rows[i].key, w.key);
      assert.equal(got.success, w.row.success, w.key);
      if (w.row.error !== undefined) {
        // promptfoo prefixes the thrown error's class name, and its fetch wrapper the retries it made.
        const want = w.row.error
          .replace(/^Error: /, '')
          .replace(/^Request failed after \d+ retries: TypeError: /, '');
        assert.equal(got.error, want, w.key);
      } else {
        assert.equal(got.error, undefined, w.key);
        assert.equal(got.output, w.row.output, w.key);
      }
    }

    // No credential in any file the run wrote (results, manifest, reports) nor in the cache.
    for (const file of [...filesUnder(runs), out, join(dir, 'cache.sqlite')]) {
      const text = readFileSync(file, 'latin1');
      for (const s of SECRETS) assert.ok(!text.includes(s), `${s} in ${file}`);
    }
  }

  it('keeps credentials in the query (URL or queryParams) out of every file the run writes', async () => {
    const dir = suiteAt('query-secrets');
    writeFileSync(
      join(dir, 'q.yaml'),
      [
        'prompts: ["Say {{word}}"]',
        'providers:',
        '  - id: http',
        '    label: query',
        '    config:',
        `      url: '${target.url}/echo?token=url-secret-6666&plain=1'`,
        '      method: POST',
        '      queryParams: {api_key: qs-secret-5555}',
        "      body: {input: '{{prompt}}'}",
        '      transformResponse: json.answer',
        'tests: [{vars: {word: hi}}]',
      ].join('\n'),
    );
    const runs = join(dir, 'runs');
    const out = join(dir, 'q.json');
    const r = await runCli(
      [
        'eval',
        join(dir, 'q.yaml'),
        '--no-progress',
        '--runs-dir',
        runs,
        '--output-format',
        'promptfoo',
        '-o',
        out,
      ],
      { env: { ASSAY_CACHE_PATH: join(dir, 'cache.sqlite') } },
    );
    assert.equal(r.code, 0, r.stderr);
    // They were sent…
    assert.equal(target.requests.at(-1)?.url, '/echo?token=url-secret-6666&plain=1&api_key=qs-secret-5555');
    // …and written nowhere.
    for (const file of [...filesUnder(runs), out, join(dir, 'cache.sqlite')]) {
      const text = readFileSync(file, 'latin1');
      for (const s of ['url-secret-6666', 'qs-secret-5555']) assert.ok(!text.includes(s), `${s} in ${file}`);
    }
    const manifest = JSON.parse(
      readFileSync(join(filesUnder(runs).find((f) => f.endsWith('manifest.json'))!), 'utf8'),
    );
    assert.match(JSON.stringify(manifest.providers), /echo\?token=\[redacted\]&plain=1/);
  });

  it('takes the URL from an http://… id, and a config error is refused before any request', async () => {
    const dir = suiteAt('id');
    const config = [
      'prompts: ["Say {{word}}"]',
      'providers:',
      `  - id: ${target.url}/text?from=id`,
      '    config: {method: POST, body: "w={{word}}"}',
      '  - id: http',
      '    label: no-url',
      '    config: {body: "x"}',
      'tests: [{vars: {word: hi}}]',
    ].join('\n');
    writeFileSync(join(dir, 'bad.yaml'), config);
    const before = target.requests.length;
    const refused = await runCli([
      'eval',
      join(dir, 'bad.yaml'),
      '--no-progress',
      '--runs-dir',
      join(dir, 'runs'),
    ]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /bad\.yaml:7:13: provider "http": set `config\.url`/);
    // `assay validate` says the same, and a transform file that does not exist, where it is written.
    writeFileSync(
      join(dir, 'bad2.yaml'),
      `${config}\n`.replace(
        'config: {body: "x"}',
        'config: {url: "http://x", body: "x", transformResponse: file://nope.js}',
      ),
    );
    const invalid = await runCli(['validate', join(dir, 'bad2.yaml')]);
    assert.equal(invalid.code, 2, invalid.stderr);
    assert.match(
      invalid.stderr,
      /bad2\.yaml:7:\d+: provider "http" `transformResponse` file:\/\/nope\.js: file not found/,
    );
    assert.equal(target.requests.length, before);

    writeFileSync(
      join(dir, 'good.yaml'),
      config.split('\n').slice(0, 4).concat('tests: [{vars: {word: hi}}]').join('\n'),
    );
    const out = join(dir, 'good.json');
    const ok = await runCli([
      'eval',
      join(dir, 'good.yaml'),
      '--no-progress',
      '--runs-dir',
      join(dir, 'runs'),
      '--output-format',
      'promptfoo',
      '-o',
      out,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    const seen = target.requests.at(-1)!;
    assert.equal(seen.url, '/text?from=id');
    assert.equal(seen.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(seen.body, 'w=hi');
    const row = JSON.parse(readFileSync(out, 'utf8')).results.results[0];
    assert.equal(row.response.output, 'heard: w=hi');
  });
});
