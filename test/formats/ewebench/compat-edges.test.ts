import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { tempDir } from '../../support/tmp.js';

interface Category {
  score: number;
  total: number;
  passed: number;
  details: { test_id: unknown; score: number; response_preview: string; error?: string }[];
  skipped: boolean;
  errors?: { test_id: unknown; error: string }[];
}

describe('ÈwéBench runs at the edges the tool handles its own way', () => {
  let mock: MockServer;
  const tmp = tempDir('assay-ewebench-edges-');
  let n = 0;
  before(async () => {
    mock = await startMockServer({
      answers: [
        { match: 'call a tool', toolCall: { name: 'lookup', arguments: '{"q":"x"}' } },
        { match: 'say ewe', reply: 'Ŋdi nyuie. Mele agbe le afi sia.' },
      ],
    });
  });
  after(async () => {
    await mock.close();
    tmp.cleanup();
  });

  /** Writes `tests/<name>.json` for each entry into a fresh folder and returns the folder. */
  function suite(files: Record<string, unknown[]>): string {
    const dir = join(tmp.dir, `s${n++}`);
    mkdirSync(join(dir, 'tests'), { recursive: true });
    for (const [name, tests] of Object.entries(files))
      writeFileSync(join(dir, 'tests', `${name}.json`), JSON.stringify(tests, null, 2));
    return dir;
  }

  /** Runs `assay eval` on `path`; with `report` (default) it writes the ÈwéBench results file too. */
  async function run(path: string, args: string[] = [], opts: { baseUrl?: string; report?: boolean } = {}) {
    const base = join(tmp.dir, `r${n++}`);
    const runs = join(base, 'runs');
    const out = join(base, 'out');
    const baseUrl = opts.baseUrl ?? mock.baseUrl;
    const reportArgs = opts.report === false ? [] : ['-o', `${out}/`, '--output-format', 'ewebench'];
    const r = await runCli(
      [
        'eval',
        path,
        '-p',
        'openai:chat:m',
        '--runs-dir',
        runs,
        '--no-progress',
        '--max-retries',
        '0',
        ...reportArgs,
        ...args,
      ],
      { env: { ...cleanEnv, OPENAI_BASE_URL: baseUrl } },
    );
    const files = existsSync(out) ? readdirSync(out) : [];
    const runDirs = existsSync(runs) ? readdirSync(runs) : [];
    const results =
      runDirs.length === 1
        ? readFileSync(join(runs, runDirs[0], 'results.jsonl'), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as JobResult)
        : [];
    const report = files.length === 1 ? JSON.parse(readFileSync(join(out, files[0]), 'utf8')) : undefined;
    const text = files.length === 1 ? readFileSync(join(out, files[0]), 'utf8') : '';
    return { ...r, report, results, text, out };
  }

  it('compat mode counts a failed call as passed when its "[ERROR]" text scores ≥ 0.7 (rounded), as the tool does', async () => {
    const dir = suite({
      agentic: [
        { id: 'e1', prompt: 'one', eval_method: 'keywords', expected_keywords: ['error'] },
        { id: 'e2', prompt: 'two', eval_method: 'format', expected_format: { max_length: 100000 } },
        { id: 'e3', prompt: 'three', eval_method: 'ewe_quality' },
      ],
    });
    const failing = `${mock.url}/_/fail_500=1&fault_attempts=100/v1`;
    const r = await run(dir, [], { baseUrl: failing });
    assert.equal(r.code, 3, r.stderr);
    const agentic = r.report.categories.agentic as Category;
    assert.deepEqual(
      agentic.details.map((d) => d.score),
      [1, 1, 0],
    );
    assert.equal(agentic.score, 66.7);
    assert.equal(agentic.passed, 2);
    assert.equal(r.report.summary.total_passed, 2);
    // assay's own counts keep them as errors; the ÈwéBench table shows the tool's passed count.
    assert.match(r.stdout, /0 passed · 0 failed · 3 errors/);
    assert.match(r.stdout, /agentic\s+66\.7 \([^)]*\)\s+2\/3/);
    // Fixed mode does not score error text: nothing passes.
    const fixed = await run(dir, ['--mode', 'fixed'], { baseUrl: failing });
    assert.equal(fixed.report.categories.agentic.passed, 0);
  });

  it('compat mode: a scored error passes next to an unscorable test left out of the category', async () => {
    const dir = suite({
      reasoning: [
        { id: 'k1', prompt: 'one', eval_method: 'keywords', expected_keywords: ['error'] },
        { id: 'x1', prompt: 'two', eval_method: 'exact_match', expected_keywords: ['a'] },
      ],
    });
    const failing = `${mock.url}/_/fail_500=1&fault_attempts=100/v1`;
    const r = await run(dir, [], { baseUrl: failing });
    const reasoning = r.report.categories.reasoning as Category;
    assert.deepEqual([reasoning.score, reasoning.total, reasoning.passed], [100, 1, 1]);
    assert.equal(reasoning.errors?.length, 1);
  });

  it('a reply with tool calls and no text is an error for that test (the tool would crash), not scored JSON', async () => {
    const dir = suite({
      agentic: [
        {
          id: 'a1',
          prompt: 'please call a tool',
          eval_method: 'format',
          expected_format: { contains_ewe: true },
        },
        { id: 'a2', prompt: 'say ewe', eval_method: 'ewe_quality' },
      ],
    });
    const r = await run(dir);
    assert.equal(r.code, 3, r.stderr);
    const a1 = r.results.find((x) => x.case.metadata?.test_id === 'a1');
    assert.equal(a1?.status, 'error');
    assert.deepEqual(a1?.verdicts, []);
    assert.match(
      a1?.error ?? '',
      /answered with tool calls and no text \(content: null\); the ÈwéBench tool would crash here/,
    );
    // The tool calls are kept as what came back.
    assert.match(a1?.output ?? '', /"name":"lookup"/);
    const agentic = r.report.categories.agentic as Category;
    assert.deepEqual(
      agentic.details.map((d) => d.test_id),
      ['a2'],
    );
    assert.equal(agentic.total, 1);
    assert.match(agentic.errors?.[0].error ?? '', /tool calls and no text/);
    const fixed = await run(dir, ['--mode', 'fixed']);
    const f1 = fixed.results.find((x) => x.case.metadata?.test_id === 'a1');
    assert.equal(f1?.status, 'error');
    assert.match(f1?.error ?? '', /ÈwéBench tests score text only/);
    assert.equal(fixed.report.categories.agentic.total, 2);
  });

  it('a single file not named after a category: its name is the category; an ÈwéBench results file is refused up front', async () => {
    const dir = join(tmp.dir, `s${n++}`);
    mkdirSync(dir);
    const file = join(dir, 'mytests.json');
    writeFileSync(
      file,
      JSON.stringify([{ id: 'k1', prompt: 'say ewe', eval_method: 'keywords', expected_keywords: ['mele'] }]),
    );
    const before = mock.stats().requests;
    const refused = await run(file);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /"mytests" is not one of the ten ÈwéBench categories, so an ÈwéBench results file cannot hold its tests/,
    );
    assert.equal(mock.stats().requests, before, 'nothing ran');
    const plain = await run(file, [], { report: false });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.results[0].case.metadata?.category, 'mytests');
    assert.match(plain.stdout, /ÈwéScore: no category with a weight ran, so there is no total/);
    assert.doesNotMatch(plain.stdout, /re-normalised/);
  });

  it('a numeric test id is written back as a number, as the tool does', async () => {
    const dir = suite({
      translation: [
        { id: 5, prompt: 'say ewe', eval_method: 'keywords', expected_keywords: ['mele'] },
        { id: 'six', prompt: 'say ewe', eval_method: 'keywords', expected_keywords: ['mele'] },
      ],
    });
    const r = await run(dir);
    assert.equal(r.code, 0, r.stderr);
    const translation = r.report.categories.translation as Category;
    assert.deepEqual(
      translation.details.map((d) => d.test_id),
      [5, 'six'],
    );
    assert.match(r.text, /"test_id": 5,/);
  });
});
