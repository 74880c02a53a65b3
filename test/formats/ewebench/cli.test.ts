import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const mini = fixture('ewebench', 'mini');
const { answers } = JSON.parse(readFileSync(join(mini, 'answers.json'), 'utf8'));

interface Category {
  score: number;
  total: number;
  passed: number;
  details: { test_id: string; score: number; response_preview: string; error?: string }[];
  skipped: boolean;
  errors?: { test_id: string; error: string }[];
}

describe('assay eval on an ÈwéBench suite', () => {
  let mock: MockServer;
  const tmp = tempDir('assay-ewebench-cli-');
  let n = 0;
  before(async () => {
    mock = await startMockServer({ answers });
  });
  after(async () => {
    await mock.close();
    tmp.cleanup();
  });

  async function run(args: string[], baseUrl = mock.baseUrl) {
    const name = `r${n++}`;
    const runs = join(tmp.dir, name, 'runs');
    const out = join(tmp.dir, name, 'out');
    const r = await runCli(
      [
        'eval',
        mini,
        '-p',
        'openai:chat:yawo/v1',
        '--runs-dir',
        runs,
        '--no-progress',
        '--max-retries',
        '0',
        '-o',
        `${out}/`,
        '--output-format',
        'ewebench',
        ...args,
      ],
      { env: { ...cleanEnv, OPENAI_BASE_URL: baseUrl } },
    );
    const files = existsSync(out) ? readdirSync(out) : [];
    assert.equal(files.length, 1, r.stderr);
    const runDir = join(runs, readdirSync(runs)[0]);
    const results = readFileSync(join(runDir, 'results.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JobResult);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    const report = JSON.parse(readFileSync(join(out, files[0]), 'utf8'));
    return { ...r, file: files[0], report, results, manifest };
  }

  it('compat mode reproduces the tool: scores, the 0.7 rounded pass mark, category scores and ÈwéScore', async () => {
    const r = await run([]);
    // rs_01 has no expected: an error (the tool would crash), so exit 3.
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.manifest.suite.native.mode, 'compat');
    // A model name with "/" is made safe for the file name; the report keeps it as it is.
    assert.match(r.file, /^ewebench_yawo_v1_\d{8}_\d{6}\.json$/);
    assert.equal(r.report.model, 'yawo/v1');
    const cats = r.report.categories as Record<string, Category>;
    assert.deepEqual(Object.keys(cats), [
      'linguistic_comprehension',
      'text_generation',
      'reasoning',
      'translation',
      'cultural_knowledge',
      'instruction_following',
      'multi_turn',
      'agentic',
      'style_adaptation',
      'robustness',
    ]);
    // Values from the tool's own arithmetic on these replies.
    assert.deepEqual(
      cats.text_generation.details.map((d) => [d.test_id, d.score]),
      [
        ['tg_01', 0.9],
        ['tg_02', 0.717],
        ['tg_03', 0.15],
      ],
    );
    const figures = Object.fromEntries(
      Object.entries(cats).map(([k, c]) => [k, [c.score, c.passed, c.total, c.skipped]]),
    );
    assert.deepEqual(figures, {
      linguistic_comprehension: [100, 3, 3, false],
      text_generation: [58.9, 2, 3, false],
      reasoning: [50, 0, 1, false],
      translation: [0, 0, 0, true],
      cultural_knowledge: [0, 0, 0, true],
      instruction_following: [0, 0, 0, true],
      multi_turn: [100, 1, 1, false],
      agentic: [75, 1, 2, false],
      style_adaptation: [0, 0, 0, true],
      robustness: [0, 0, 0, true],
    });
    assert.equal(r.report.ewe_score, 75.6);
    assert.deepEqual(r.report.summary, {
      total_tests: 10,
      total_passed: 7,
      categories_evaluated: 5,
      categories_skipped: 5,
    });
    // The unscorable test is left out of the figures and listed with its reason.
    assert.deepEqual(
      cats.reasoning.errors?.map((e) => e.test_id),
      ['rs_01'],
    );
    assert.match(cats.reasoning.errors?.[0].error ?? '', /KeyError/);
    // The console says the same, with intervals, and says what was left out.
    assert.match(r.stdout, /text_generation\s+58\.9 \(\d+\.\d–\d+\.\d\)\s+2\/3\s+0\.15/);
    assert.match(r.stdout, /translation\s+not run\s+—\s+0\.12/);
    assert.match(r.stdout, /ÈwéScore: 75\.6 \(\d+\.\d–\d+\.\d\)/);
    assert.match(r.stdout, /1 error results have no score and are left out/);
    assert.match(r.stdout, /rs_01.*\n.*KeyError: 'expected'/);
  });

  it('fixed mode honours contains_function_call: false and counts the unscorable test as an error scoring 0', async () => {
    const r = await run(['--mode', 'fixed']);
    assert.equal(r.code, 3);
    assert.equal(r.manifest.suite.native.mode, 'fixed');
    const cats = r.report.categories as Record<string, Category>;
    assert.deepEqual([cats.agentic.score, cats.agentic.passed], [100, 2]);
    assert.deepEqual([cats.reasoning.score, cats.reasoning.total], [25, 2]);
    const rs01 = cats.reasoning.details.find((d) => d.test_id === 'rs_01');
    assert.equal(rs01?.score, 0);
    assert.match(rs01?.error ?? '', /no "expected"/);
    assert.equal(cats.reasoning.errors, undefined);
    assert.equal(r.report.ewe_score, 73.9);
  });

  it('--category runs only those categories; the others have the skipped shape', async () => {
    const r = await run(['--category', 'agentic']);
    assert.equal(r.code, 1);
    assert.equal(r.results.length, 2);
    const cats = r.report.categories as Record<string, Category>;
    assert.equal(cats.agentic.skipped, false);
    assert.deepEqual(cats.linguistic_comprehension, {
      score: 0,
      total: 0,
      passed: 0,
      details: [],
      skipped: true,
    });
    assert.equal(r.report.ewe_score, 75);
  });

  it('a failed model call is an error; compat mode scores its "[ERROR] …" text as the tool does, fixed mode does not', async () => {
    const failing = `${mock.url}/_/status=500/v1`;
    const compat = await run([], failing);
    assert.equal(compat.code, 3);
    assert.ok(compat.results.every((x) => x.status === 'error'));
    const ag = compat.results.find((x) => x.case.metadata?.test_id === 'ag_02');
    assert.match(ag?.output ?? '', /^\[ERROR\] /);
    assert.equal(ag?.verdicts.length, 1);
    const cats = compat.report.categories as Record<string, Category>;
    assert.match(cats.agentic.details[1].response_preview, /^\[ERROR\] /);
    assert.equal(cats.agentic.details[1].error, undefined);
    assert.equal(cats.text_generation.details[0].score, 0); // ewe_quality of error text
    const fixed = await run(['--mode', 'fixed'], failing);
    const fixedCats = fixed.report.categories as Record<string, Category>;
    assert.ok(fixedCats.agentic.details.every((d) => d.score === 0 && d.error && d.response_preview === ''));
    assert.equal(fixed.report.ewe_score, 0);
  });

  it('refuses to run without a model, before calling anything', async () => {
    const r = await runCli(['eval', mini, '--no-progress'], {
      env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl },
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /names no model: give one with -p/);
  });

  it('validate reports the warnings and runs nothing', async () => {
    const before = mock.stats().requests;
    const r = await runCli(['validate', mini, '--mode', 'fixed'], { env: cleanEnv });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /reasoning\.json:2:3: warning: test "rs_01": exact_match test has no "expected"/);
    assert.match(r.stdout, /ok: .* \(ewebench\): 11 cases/);
    assert.equal(mock.stats().requests, before);
  });
});
