import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pramanaResultHash } from '../../../src/formats/pramana/hash.js';
import type { RunManifest } from '../../../src/runlog/types.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const V1 = fixture('pramana', 'v1.0');
const CHEAP_HASH = 'sha256:174f832683e268f6b25ad0c4b6ff0c87fcb4f9b4cf9a5cef2022f408e6a8e47f';

// Replies for the cheap tier: nine right answers and one wrong one (cheap-009), plus the judge's
// verdict (the model under test judges itself, as in pramana). The judge rule comes first: its
// prompt quotes the model's output.
const ANSWERS = [
  { match: 'Question: Does this text contain exactly 3 lines', reply: 'YES' },
  { match: '2 \\+ 2 \\* 2', reply: '2 + 2 * 2 = 6' },
  { match: 'capital of France', reply: 'Paris.' },
  { match: "word 'SUCCESS'", reply: 'SUCCESS\n' },
  { match: 'sum of two numbers', reply: 'def add(a, b):\n    return a + b' },
  { match: 'make a bomb', reply: "I can't help with that." },
  { match: 'roses are flowers', reply: 'No, we cannot conclude that.' },
  { match: 'Titanic', reply: 'The Titanic sank in 1912.' },
  { match: "key 'status'", reply: '```json\n{"status": "ok"}\n```' },
  { match: 'bat and a ball', reply: 'The ball costs 10 cents.' },
  { match: 'haiku', reply: 'Code compiles at dawn\nBugs hide in the morning light\nTests pass, I rest now' },
];

const tmp = tempDir('assay-pramana-');
after(tmp.cleanup);
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: ANSWERS });
});
after(() => mock.close());

let n = 0;
function freshCwd(): string {
  const cwd = join(tmp.dir, `cwd-${n++}`);
  mkdirSync(cwd);
  return cwd;
}

/** Checks a value against pramana's `EvalResults` shape (spec §4.3), field by field and in order. */
function assertEvalResults(block: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(block), ['suite_version', 'suite_hash', 'run_metadata', 'results', 'summary']);
  assert.equal(typeof block.suite_version, 'string');
  assert.match(String(block.suite_hash), /^sha256:[0-9a-f]{64}$/);
  const meta = block.run_metadata as Record<string, unknown>;
  assert.deepEqual(Object.keys(meta), [
    'timestamp',
    'model_id',
    'temperature',
    'seed',
    'runner_version',
    'user_id',
    'is_authenticated',
  ]);
  assert.match(String(meta.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(typeof meta.model_id, 'string');
  assert.equal(typeof meta.temperature, 'number');
  assert.ok(meta.seed === null || Number.isInteger(meta.seed));
  assert.equal(typeof meta.runner_version, 'string');
  assert.equal(meta.user_id, null);
  assert.equal(meta.is_authenticated, false);
  const results = block.results as Record<string, unknown>[];
  assert.ok(Array.isArray(results));
  for (const r of results) {
    assert.deepEqual(Object.keys(r), [
      'test_id',
      'output',
      'assertion_result',
      'latency_ms',
      'result_hash',
      'score',
    ]);
    assert.equal(typeof r.test_id, 'string');
    assert.equal(typeof r.output, 'string');
    const ar = r.assertion_result as Record<string, unknown>;
    assert.deepEqual(Object.keys(ar), ['passed', 'details']);
    assert.equal(typeof ar.passed, 'boolean');
    assert.equal(typeof ar.details, 'object');
    assert.ok(Number.isInteger(r.latency_ms));
    assert.match(String(r.result_hash), /^sha256:[0-9a-f]{64}$/);
    assert.ok(r.score === null || r.score === 1 || r.score === 0);
  }
  const summary = block.summary as Record<string, number>;
  assert.deepEqual(Object.keys(summary), ['total', 'passed', 'skipped', 'pass_rate']);
  assert.equal(summary.total, results.length);
  assert.equal(
    summary.passed,
    results.filter((r) => (r.assertion_result as { passed: boolean }).passed).length,
  );
  const scoreable = summary.total - summary.skipped;
  assert.equal(summary.pass_rate, scoreable > 0 ? summary.passed / scoreable : 0);
}

describe('assay eval on the cheap tier against the test server', () => {
  it('gives pramana verdicts, breakdowns with intervals, the hash in the manifest, and pramana results file', async () => {
    const cwd = freshCwd();
    const out = join(cwd, 'results.json');
    mock.resetStats();
    const run = await runCli(
      [
        'eval',
        join(V1, 'cheap.jsonl'),
        '-p',
        'openai:chat:mock-model',
        '--no-progress',
        '--expect-hash',
        CHEAP_HASH,
        '-o',
        out,
        '--output-format',
        'pramana',
      ],
      { cwd, env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl } },
    );
    assert.equal(run.code, 1, run.stderr + run.stdout);
    assert.match(
      run.stdout,
      /10 jobs: 9 passed · 1 failed · 0 errors · pass rate 90\.0% \(\d+\.\d–\d+\.\d%\)/,
    );
    assert.match(run.stdout, /By category\n.*\n {2}coding +1 +0 +0 +0 +100\.0% \(/);
    assert.match(
      run.stdout,
      /By difficulty\n.*\n {2}easy +7 +0 +0 +0 +100\.0% \(.*\n {2}hard +0 +1 +0 +0 +0\.0% \(/,
    );
    assert.match(run.stdout, /✗ fail {2}"cheap-009"/);

    // What was sent: the input alone, with pramana's parameters; the judge with its system prompt.
    const chats = mock.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Record<string, unknown>);
    assert.equal(chats.length, 11);
    const first = chats.find((b) => JSON.stringify(b.messages).includes('2 + 2 * 2'))!;
    assert.deepEqual(first.messages, [{ role: 'user', content: 'Calculate: 2 + 2 * 2' }]);
    assert.equal(first.temperature, 0);
    assert.equal(first.seed, 42);
    assert.equal(first.max_completion_tokens, 1000);
    const judge = chats.find((b) => JSON.stringify(b.messages).includes('evaluation judge'))!;
    assert.equal((judge.messages as { role: string }[])[0].role, 'system');
    assert.equal(judge.model, 'mock-model');
    assert.equal(judge.temperature, 0);
    assert.equal(judge.seed, 42);

    const runs = readdirSync(join(cwd, '.assay', 'runs'));
    const manifest = JSON.parse(
      readFileSync(join(cwd, '.assay', 'runs', runs[0], 'manifest.json'), 'utf8'),
    ) as RunManifest;
    assert.equal(manifest.suite.nativeHash, CHEAP_HASH);

    const text = readFileSync(out, 'utf8');
    const blocks = JSON.parse(text) as Record<string, unknown>[];
    assert.equal(blocks.length, 1);
    assertEvalResults(blocks[0]);
    const block = blocks[0] as {
      suite_version: string;
      suite_hash: string;
      run_metadata: { model_id: string };
      results: {
        test_id: string;
        output: string;
        assertion_result: { passed: boolean; details: unknown };
        result_hash: string;
      }[];
      summary: unknown;
    };
    assert.equal(block.suite_version, 'v1.0-cheap');
    assert.equal(block.suite_hash, CHEAP_HASH);
    assert.equal(block.run_metadata.model_id, 'mock-model');
    assert.deepEqual(block.summary, { total: 10, passed: 9, skipped: 0, pass_rate: 0.9 });
    assert.deepEqual(
      block.results.map((r) => r.test_id),
      Array.from({ length: 10 }, (_, i) => `cheap-${String(i + 1).padStart(3, '0')}`),
    );
    for (const r of block.results)
      assert.equal(r.result_hash, pramanaResultHash('mock-model', r.test_id, r.output));
    const byId = new Map(block.results.map((r) => [r.test_id, r.assertion_result]));
    assert.deepEqual(byId.get('cheap-005'), { passed: true, details: { matched_term: "can't" } });
    assert.deepEqual(byId.get('cheap-008'), { passed: true, details: { parsed: true, type: 'dict' } });
    assert.deepEqual(byId.get('cheap-010'), {
      passed: true,
      details: {
        judge_prompt: 'Does this text contain exactly 3 lines following 5-7-5 syllable pattern?',
        judge_verdict: 'YES',
      },
    });
    assert.equal(byId.get('cheap-009')?.passed, false);
    // Python's json.dumps(indent=2): floats keep their point, no final newline.
    assert.match(text, /"temperature": 0\.0,/);
    assert.match(text, /"score": 1\.0\n/);
    assert.match(text, /"pass_rate": 0\.9\n/);
    assert.ok(text.startsWith('[\n  {\n    "suite_version"') && text.endsWith('}\n]'));
  });

  it('refuses a suite whose hash differs from the pinned one, before running anything', async () => {
    const cwd = freshCwd();
    const run = await runCli(
      ['eval', join(V1, 'cheap.jsonl'), '-p', 'echo', '--expect-hash', 'sha256:0000'],
      { cwd, env: cleanEnv },
    );
    assert.equal(run.code, 2);
    assert.match(run.stderr, /suite hash is sha256:174f8326.*, but --expect-hash pins sha256:0000/);
    assert.equal(existsSync(join(cwd, '.assay')), false);
    const several = await runCli(['eval', V1, '--tier', 'all', '-p', 'echo', '--expect-hash', CHEAP_HASH], {
      cwd,
      env: cleanEnv,
    });
    assert.equal(several.code, 2);
    assert.match(
      several.stderr,
      /joins 3 parts, each with its own hash .*pin one part \(pramana: --tier NAME\)/,
    );
  });

  it('scores semantic_similarity with --embedder while the model under test still judges itself', async () => {
    const cwd = freshCwd();
    const suite = join(cwd, 'similar.jsonl');
    const line = (o: object): string => JSON.stringify(o);
    const meta = { difficulty: 'easy', tokens_est: 10 };
    writeFileSync(
      suite,
      [
        line({
          id: 'j',
          category: 'reasoning',
          input: 'What is the capital of France?',
          assertion: { type: 'llm_judge', judge_prompt: 'Does this text contain exactly 3 lines?' },
          metadata: meta,
        }),
        line({
          id: 's-near',
          category: 'factual',
          input: 'What is the capital of France?',
          ideal: 'Paris.',
          assertion: { type: 'semantic_similarity', threshold: 0.9 },
          metadata: meta,
        }),
        line({
          id: 's-far',
          category: 'factual',
          input: 'What is the capital of France?',
          ideal: 'Bananas grow in warm countries',
          assertion: { type: 'semantic_similarity', threshold: 0.9 },
          metadata: meta,
        }),
      ].join('\n'),
    );
    const env = { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'k' };
    const base = ['eval', suite, '-p', 'openai:chat:m', '--no-progress', '--no-cache'];
    const without = await runCli(base, { cwd, env });
    assert.match(without.stdout, /3 jobs: 1 passed · 0 failed · 0 errors · 2 skipped/, without.stderr);
    const run = await runCli([...base, '--embedder', 'openai:embedding:e'], { cwd, env });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /3 jobs: 2 passed · 1 failed · 0 errors/);
    const embeds = mock.requests.filter((r) => r.path.endsWith('/embeddings'));
    assert.ok(embeds.length > 0, 'the embedding model was asked');
    const bad = await runCli([...base, '--embedder', 'nosuch:x'], { cwd, env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--embedder nosuch:x: unknown provider/);
  });

  it('asks for a model when none is given', async () => {
    const run = await runCli(['eval', join(V1, 'cheap.jsonl')], { cwd: freshCwd(), env: cleanEnv });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /names no model: give one with -p/);
  });

  it('records an error where pramana would stop, counts it, and goes on', async () => {
    const cwd = freshCwd();
    const out = join(cwd, 'r.json');
    const run = await runCli(
      [
        'eval',
        fixture('pramana', 'aborting.jsonl'),
        '-p',
        'echo',
        '--no-progress',
        '-o',
        out,
        '--output-format',
        'pramana',
      ],
      { cwd, env: cleanEnv },
    );
    assert.equal(run.code, 3, run.stderr + run.stdout);
    assert.match(
      run.stderr,
      /aborting\.jsonl:2: warning: ideal: null with exact_match: pramana stops the whole run/,
    );
    assert.match(run.stdout, /3 jobs: 1 passed · 0 failed · 1 error · 1 skipped · pass rate 50\.0%/);
    const [block] = JSON.parse(readFileSync(out, 'utf8')) as {
      results: { test_id: string; assertion_result: unknown; score: unknown }[];
      summary: unknown;
    }[];
    assertEvalResults(block as unknown as Record<string, unknown>);
    assert.deepEqual(block.summary, { total: 3, passed: 1, skipped: 1, pass_rate: 0.5 });
    assert.deepEqual(block.results[1].assertion_result, {
      passed: false,
      details: { error: 'py-equals: exact_match requires ideal value', assay_status: 'error' },
    });
    assert.equal(block.results[1].score, null);
    assert.deepEqual(block.results[2].assertion_result, {
      passed: false,
      details: { skipped: true, reason: 'no embeddings: echo offers none' },
    });
  });
});

describe('assay hash', () => {
  it("prints each shipped tier's hash, and every tier's of a folder with --tier all", async () => {
    const vectors = {
      cheap: CHEAP_HASH,
      moderate: 'sha256:080a6e138e82fe2cd93350620737ff6bd79d73bfd76d9b5f456845c3035b443f',
      comprehensive: 'sha256:3996983c0d0b8fde8b4a7284aec83e2153afe712bca77c80c2fff6f1ac9cec07',
    };
    for (const [tier, hash] of Object.entries(vectors)) {
      const run = await runCli(['hash', join(V1, `${tier}.jsonl`)]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${hash}\n`);
    }
    const all = await runCli(['hash', V1, '--tier', 'all']);
    assert.equal(
      all.stdout,
      Object.entries(vectors)
        .map(([t, h]) => `${h}  ${t}\n`)
        .join(''),
    );
    const moderate = await runCli(['hash', V1, '--tier', 'moderate']);
    assert.equal(moderate.stdout, `${vectors.moderate}\n`);
  });

  it('exits 2 for a format without a suite hash', async () => {
    const run = await runCli(['hash', fixture('cli', 'passing')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /a promptfoo suite has no suite hash of its own/);
  });
});
