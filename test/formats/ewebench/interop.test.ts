// ÈwéBench's real test files and golden values (../shared/fixtures/ewebench, CC BY-NC 4.0: read in
// place, never copied into the project) run through assay's whole pipeline: CLI, OpenAI provider,
// the test server answering as the golden "echo mock", scoring, run log, native results file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pyRound } from '../../../src/core/python/text.js';
import type { JobResult } from '../../../src/core/types.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import { fixture, sharedDir } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';
import { echoAnswers, echoReply } from './echo-mock.js';

const goldenDir = join(sharedDir, 'fixtures', 'ewebench');
const goldenPath = join(goldenDir, 'SCORING_GOLDEN.json');
const present = existsSync(goldenPath);

interface PerTest {
  category: string;
  id: string;
  eval_method: string;
  response: string;
  score: number | null;
  reference_error?: string;
  request?: { messages: { role: string; content: string }[]; temperature: number; max_tokens: number };
}

interface CategoryReport {
  score: number;
  total: number;
  passed: number;
  details: { test_id: string; score: number; response_preview: string }[];
  skipped: boolean;
  errors?: { test_id: string; error: string }[];
}

if (!present) {
  describe('ÈwéBench interop with the real suite and golden values', () => {
    it(`needs ${goldenDir}`, {
      skip: `not run: ${goldenDir} is not present (the real ÈwéBench files live beside the repository in ../shared)`,
    }, () => {});
  });
} else {
  const golden = JSON.parse(readFileSync(goldenPath, 'utf8'));
  let mock: MockServer;
  const tmp = tempDir('assay-ewebench-interop-');

  /** Runs `assay eval` on a folder as the golden mock model; returns the exit code, run dir and ewebench report. */
  async function run(suite: string, extra: string[], name: string) {
    const runs = join(tmp.dir, `runs-${name}`);
    const out = join(tmp.dir, `out-${name}`);
    const r = await runCli(
      [
        'eval',
        suite,
        '-p',
        'openai:chat:golden-mock',
        '--runs-dir',
        runs,
        '--no-progress',
        '-o',
        `${out}/`,
        '--output-format',
        'ewebench',
        ...extra,
      ],
      { env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl } },
    );
    const runDirs = existsSync(runs) ? readdirSync(runs) : [];
    assert.equal(runDirs.length, 1, `one run directory expected; stderr: ${r.stderr}`);
    const files = existsSync(out) ? readdirSync(out) : [];
    assert.equal(files.length, 1, `one report expected; stdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const reportText = readFileSync(join(out, files[0]), 'utf8');
    return {
      ...r,
      runDir: join(runs, runDirs[0]),
      reportName: files[0],
      reportText,
      report: JSON.parse(reportText),
    };
  }

  function results(runDir: string): JobResult[] {
    return readFileSync(join(runDir, 'results.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JobResult);
  }

  describe('ÈwéBench interop with the real suite and golden values', () => {
    before(async () => {
      mock = await startMockServer({ answers: echoAnswers(join(goldenDir, 'tests')) });
    });
    after(async () => {
      await mock.close();
      tmp.cleanup();
    });

    it('the project keeps the same golden unit cases as the shared file', () => {
      const ours = JSON.parse(readFileSync(fixture('ewebench', 'unit-cases.json'), 'utf8'));
      assert.deepEqual(ours.unit_cases, golden.unit_cases);
    });

    it('per_test_echo_mock: all 107 tests score as upstream, with the exact requests upstream sends', async () => {
      const r = await run(goldenDir, [], 'full');
      // The 7 reasoning tests that upstream crashes on are errors, so the run exits 3.
      assert.equal(r.code, 3, r.stderr);
      const byId = new Map(
        results(r.runDir).map((x) => [`${x.case.metadata?.category}/${x.case.metadata?.test_id}`, x]),
      );
      const perTest = golden.per_test_echo_mock as PerTest[];
      assert.equal(perTest.length, 107);
      assert.equal(byId.size, 107);
      const requests = mock.requests.map(
        (q) => q.body as { model: string; messages: unknown[]; temperature: number; max_tokens: number },
      );
      for (const g of perTest) {
        const res = byId.get(`${g.category}/${g.id}`);
        assert.ok(res, `${g.category}/${g.id} missing`);
        assert.equal(res.output, g.response, `${g.id}: the echo mock's reply`);
        if (g.reference_error) {
          assert.equal(res.status, 'error', g.id);
          assert.match(res.reason, /no "expected".*KeyError: 'expected'/, g.id);
          continue;
        }
        assert.ok(
          Object.is(pyRound(res.score, 3), g.score),
          `${g.id}: score ${res.score}, golden ${g.score}`,
        );
        const sent = requests.find((q) => JSON.stringify(q.messages) === JSON.stringify(g.request?.messages));
        assert.ok(sent, `${g.id}: no request with the golden messages`);
        assert.equal(sent.temperature, g.request?.temperature);
        assert.equal(sent.max_tokens, g.request?.max_tokens);
        assert.equal(sent.model, 'golden-mock');
        assert.deepEqual(Object.keys(sent).sort(), ['max_tokens', 'messages', 'model', 'temperature']);
      }
    });

    it('category_runs_echo_mock: each --category run gives upstream score, total and passed', async () => {
      for (const [category, want] of Object.entries(golden.category_runs_echo_mock) as [
        string,
        Record<string, unknown>,
      ][]) {
        const r = await run(goldenDir, ['--category', category], `cat-${category}`);
        const got = r.report.categories[category] as CategoryReport;
        if (want.reference_error) {
          // Upstream stops; assay scores the other 5 tests and lists the 7 it could not score.
          assert.equal(r.code, 3);
          assert.equal(got.errors?.length, 7);
          assert.equal(got.total, 5);
          assert.equal(got.details.length, 5);
          continue;
        }
        assert.deepEqual({ score: got.score, total: got.total, passed: got.passed }, want, category);
        assert.ok(r.code === 0 || r.code === 1, `${category}: exit ${r.code}`);
        // Only the chosen category ran; the others have the tool's skipped shape.
        for (const [other, c] of Object.entries(r.report.categories) as [string, CategoryReport][])
          if (other !== category)
            assert.deepEqual(c, { score: 0, total: 0, passed: 0, details: [], skipped: true });
      }
    });

    it('full_report_without_reasoning: the results file matches upstream field by field, and byte for byte', async () => {
      const dir = join(tmp.dir, 'no-reasoning');
      cpSync(join(goldenDir, 'tests'), join(dir, 'tests'), { recursive: true });
      rmSync(join(dir, 'tests', 'reasoning.json'));
      const r = await run(dir, [], 'no-reasoning');
      assert.equal(r.code, 1, r.stderr); // tests failed, nothing errored
      const want = golden.full_report_without_reasoning;
      const got = r.report;
      assert.match(got.run_id, /^\d{8}_\d{6}$/);
      assert.match(got.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
      assert.equal(got.endpoint, `${mock.baseUrl}/chat/completions`);
      assert.equal(r.reportName, `ewebench_golden-mock_${got.run_id}.json`);
      const aside = { run_id: want.run_id, timestamp: want.timestamp, endpoint: want.endpoint };
      assert.deepEqual(Object.keys(got), Object.keys(want));
      assert.deepEqual({ ...got, ...aside }, want);
      // Byte for byte: Python's json.dump(indent=2, ensure_ascii=False), floats as 100.0.
      const python = spawnSync(
        'python3',
        [
          '-c',
          'import json,sys; d=json.load(open(sys.argv[1]))["full_report_without_reasoning"]; d.update(json.loads(sys.argv[2])); sys.stdout.write(json.dumps(d, ensure_ascii=False, indent=2))',
          goldenPath,
          JSON.stringify({ run_id: got.run_id, timestamp: got.timestamp, endpoint: got.endpoint }),
        ],
        { encoding: 'utf8' },
      );
      if (python.status === 0) assert.equal(r.reportText, python.stdout);
      else assert.fail(`python3 is needed to render the golden report: ${python.stderr || python.error}`);
      // The console shows the same figures (category scores, passed/total, ÈwéScore).
      assert.match(r.stdout, /text_generation\s+54\.6 \(/);
      assert.match(r.stdout, /agentic\s+30\.0 \(.*0\/10\s+0\.08/);
      assert.match(r.stdout, /reasoning\s+not run/);
      assert.match(r.stdout, /ÈwéScore: 73\.5 \(\d+\.\d–\d+\.\d\)/);
    });

    it('the echo mock replies are the golden responses', () => {
      const tests = (golden.per_test_echo_mock as PerTest[]).map((g) => g.response);
      const files = readdirSync(join(goldenDir, 'tests')).sort();
      const replies = files.flatMap((f) =>
        (JSON.parse(readFileSync(join(goldenDir, 'tests', f), 'utf8')) as object[]).map(echoReply),
      );
      assert.deepEqual([...replies].sort(), [...tests].sort());
    });
  });
}
