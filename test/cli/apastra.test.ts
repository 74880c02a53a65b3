// `assay eval` on apastra workspaces, end to end: real files, the real CLI in a child process, the
// OpenAI-compatible mock server. The run folder is checked against apastra's own schemas.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pyJsonDumps } from '../../src/core/python/json-dumps.js';
import { normalizeScorecard } from '../../src/formats/apastra/normalize.js';
import { schemaProblems } from '../../src/formats/apastra/schemas.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const { answers } = JSON.parse(readFileSync(fixture('apastra', 'answers.json'), 'utf8'));
const GRADER = {
  match: '<Rubric>',
  reply: '{"reason": "fine", "pass": true, "score": 0.9}',
};

describe('assay eval on an apastra workspace', () => {
  let mock: MockServer;
  const tmp = tempDir('assay-apastra-cli-');
  let n = 0;
  before(async () => {
    mock = await startMockServer({ answers: [GRADER, ...answers] });
  });
  after(async () => {
    await mock.close();
    tmp.cleanup();
  });

  /** A fresh copy of the test workspace. */
  function workspace(): string {
    const dir = join(tmp.dir, `ws${n++}`);
    cpSync(fixture('apastra', 'ws'), dir, { recursive: true });
    return dir;
  }

  function eval_(ws: string, args: string[], baseUrl = mock.baseUrl) {
    return runCli(['eval', ws, '--no-progress', '--runs-dir', join(ws, '.runs'), '--no-cache', ...args], {
      env: { ...cleanEnv, OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'test' },
    });
  }

  function runFolders(ws: string): string[] {
    const dir = join(ws, 'promptops', 'runs');
    return existsSync(dir) ? readdirSync(dir).map((d) => join(dir, d)) : [];
  }

  it('runs a suite, writes a run folder valid against apastra’s schemas, fails its threshold and its regression gate', async () => {
    const ws = workspace();
    mock.resetStats();
    const flaky = `${mock.url}/_/fail_500=0.4&fail_429=0.2&retry_after=0/v1`;
    const r = await eval_(
      ws,
      ['--suite', 'capitals-smoke', '-p', 'openai:chat:mock-model', '-j', '3'],
      flaky,
    );
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.ok(mock.stats().requests > 3, 'faults made assay retry');
    assert.match(r.stdout, /Suite: capitals-smoke/);
    assert.match(r.stdout, /Status: FAIL ❌/);
    assert.match(r.stdout, /keyword_recall: 0\.67 \(threshold: 0\.80\) ❌/);
    assert.match(r.stdout, /kenya: keyword_recall=0\.00 exact_match=0\.00 0\/1 assertions ❌/);
    const [folder] = runFolders(ws);
    assert.match(folder, /capitals-smoke-\d{4}-\d\d-\d\d-\d{6}$/);
    const manifest = JSON.parse(readFileSync(join(folder, 'run_manifest.json'), 'utf8'));
    assert.deepEqual(schemaProblems('run-manifest', manifest), []);
    assert.equal(manifest.harness_identifier, 'assay');
    assert.deepEqual(manifest.model_ids, ['mock-model']);
    const cases = readFileSync(join(folder, 'cases.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      cases.map((c) => c.case_id),
      ['france', 'japan', 'kenya'],
    );
    for (const c of cases) assert.deepEqual(schemaProblems('run-case', c), []);
    assert.deepEqual(
      cases[0].evaluator_outputs.filter((o: Record<string, number>) => !('latency_ms' in o)),
      [
        { keyword_recall: 1, metric_version: '1.0.0' },
        { exact_match: 1 },
        { assert_icontains: 1 },
        { 'assert_not-contains': 1 },
      ],
    );
    assert.equal(cases[2].per_trial_outputs[0].output.text, "Kenya's capital is Mombasa.");
    const scorecardText = readFileSync(join(folder, 'scorecard.json'), 'utf8');
    assert.deepEqual(schemaProblems('scorecard', JSON.parse(scorecardText)), []);
    // normalize.py's scorecard of the cases.jsonl written, byte for byte.
    assert.equal(pyJsonDumps(normalizeScorecard(cases), { indent: 2 }), scorecardText);
    assert.deepEqual(
      schemaProblems('artifact-refs', JSON.parse(readFileSync(join(folder, 'artifact_refs.json'), 'utf8'))),
      [],
    );
    // The regression gate against derived-index/baselines/capitals-smoke.json.
    assert.match(r.stdout, /Regression: FAIL ❌/);
    const reports = readdirSync(join(ws, 'derived-index', 'regressions'));
    assert.equal(reports.length, 1);
    const report = JSON.parse(readFileSync(join(ws, 'derived-index', 'regressions', reports[0]), 'utf8'));
    assert.deepEqual(schemaProblems('regression-report', report), []);
    assert.equal(report.status, 'fail');
    const kr = report.evidence.find((e: { metric: string }) => e.metric === 'keyword_recall');
    assert.equal(kr.message, 'Value 0.6666666666666666 below floor 0.8.');
  });

  it('runs a quick eval with retries and concurrency and passes its pass_rate', async () => {
    const ws = workspace();
    mock.resetStats();
    const flaky = `${mock.url}/_/fail_500=0.5&fail_429=0.2&retry_after=0/v1`;
    const r = await eval_(
      ws,
      ['--eval', 'capitals-quick', '-p', 'openai:chat:mock-model', '--max-concurrency', '4'],
      flaky,
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /Quick Eval: capitals-quick/);
    assert.match(r.stdout, /france: 2\/2 assertions passed ✅/);
    assert.match(r.stdout, /Pass rate: 1\.00 \(threshold: 1\.00\) ✅/);
    assert.ok(mock.stats().requests > 2, 'faults made assay retry');
    const [folder] = runFolders(ws);
    const card = JSON.parse(readFileSync(join(folder, 'scorecard.json'), 'utf8'));
    assert.equal(card.normalized_metrics.assert_contains, 1);
    assert.equal(card.normalized_metrics['assert_not-icontains'], 1);
  });

  it('reads a quick eval written as apastra’s docs write them, with warnings', async () => {
    const ws = workspace();
    const r = await eval_(ws, ['--eval', 'doc-style', '-p', 'openai:chat:mock-model']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /doc-style\.yaml:4:\d+: warning: "id" used for "case_id"/);
    assert.match(r.stderr, /doc-style\.yaml:8:\d+: warning: assertion has no "value"/);
    assert.match(r.stdout, /ada: 1\/2 assertions passed ❌/);
  });

  it('lists a bare workspace’s suites and quick evals and names the flags', async () => {
    const r = await eval_(workspace(), ['-p', 'openai:chat:mock-model']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--suite ID or --eval ID/);
    assert.match(r.stderr, /suites: capitals-smoke/);
    assert.match(r.stderr, /quick evals: capitals-quick, doc-style/);
    // A suite or quick-eval file, or the promptops/ folder, is taken as it is.
    const ws = workspace();
    for (const [args, expected] of [
      [[join(ws, 'promptops/suites/capitals-smoke.yaml')], /capitals-smoke\.yaml \(apastra\): 3 cases/],
      [[join(ws, 'promptops/evals/capitals-quick.yaml')], /capitals-quick\.yaml \(apastra\): 2 cases/],
      [[join(ws, 'promptops'), '--eval', 'capitals-quick'], /capitals-quick\.yaml \(apastra\): 2 cases/],
    ] as const) {
      const v = await runCli(['validate', ...args], { env: cleanEnv });
      assert.equal(v.code, 0, v.stderr);
      assert.match(v.stdout, expected);
    }
  });

  it('refuses broken references and files with file:line, before any model is called', async () => {
    const cases: [string, (ws: string) => void, RegExp][] = [
      [
        'missing dataset',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/suites/capitals-smoke.yaml'),
            readFileSync(join(ws, 'promptops/suites/capitals-smoke.yaml'), 'utf8').replace(
              '  - capitals\n',
              '  - nowhere\n',
            ),
          ),
        /capitals-smoke\.yaml:7:5: dataset "nowhere" not found/,
      ],
      [
        'missing evaluator',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/suites/capitals-smoke.yaml'),
            readFileSync(join(ws, 'promptops/suites/capitals-smoke.yaml'), 'utf8').replace(
              '  - keywords-v1\n',
              '  - keywordz\n',
            ),
          ),
        /capitals-smoke\.yaml:9:5: evaluator "keywordz" not found/,
      ],
      [
        'template variable no case provides',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/prompts/capitals.yaml'),
            readFileSync(join(ws, 'promptops/prompts/capitals.yaml'), 'utf8').replace(
              '{{country}}?',
              '{{country}} in {{year}}?',
            ),
          ),
        /capitals\.yaml:4:1: template variable "year" is provided by no case's inputs/,
      ],
      [
        'dataset case with a key the schema refuses',
        (ws) =>
          appendFileSync(
            join(ws, 'promptops/datasets/capitals/dataset.jsonl'),
            '{"case_id": "x", "inputs": {"country": "Peru"}, "expected": "Lima"}\n',
          ),
        /dataset\.jsonl:4: not a valid apastra case: key "expected" is not allowed here/,
      ],
      [
        'dataset line that is not JSON',
        (ws) => appendFileSync(join(ws, 'promptops/datasets/capitals/dataset.jsonl'), '{"case_id": "x",\n'),
        /dataset\.jsonl:4:\d+: not JSON/,
      ],
      [
        'a suite that fails its schema',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/suites/capitals-smoke.yaml'),
            readFileSync(join(ws, 'promptops/suites/capitals-smoke.yaml'), 'utf8').replace(
              'trials: 1',
              'trials: 0',
            ),
          ),
        /capitals-smoke\.yaml:13:\d+: not a valid apastra suite: "trials" must be >= 1/,
      ],
      [
        'bad YAML',
        (ws) => writeFileSync(join(ws, 'promptops/evaluators/keywords.yaml'), 'id: [unclosed\n'),
        /keywords\.yaml:\d+:\d+: /,
      ],
      [
        'a policy rule without a severity',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/policies/regression.yaml'),
            'baseline: x\nrules:\n  - metric: keyword_recall\n    floor: 0.8\n',
          ),
        /regression\.yaml:3:\d+: not a valid apastra regression policy: missing required key "severity"/,
      ],
      [
        'a human evaluator',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/evaluators/keywords.yaml'),
            'id: keywords-v1\ntype: human\nmetrics: [keyword_recall]\n',
          ),
        /keywords\.yaml:1:1: evaluator "keywords-v1" is of type human/,
      ],
      [
        'a deterministic metric with no computation',
        (ws) =>
          writeFileSync(
            join(ws, 'promptops/evaluators/keywords.yaml'),
            'id: keywords-v1\ntype: deterministic\nmetrics: [bleu]\n',
          ),
        /keywords\.yaml:3:\d+: deterministic metric "bleu" has no defined computation/,
      ],
    ];
    for (const [name, change, expected] of cases) {
      const ws = workspace();
      change(ws);
      mock.resetStats();
      const r = await eval_(ws, ['--suite', 'capitals-smoke', '-p', 'openai:chat:mock-model']);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, expected, name);
      assert.equal(mock.stats().requests, 0, name);
      assert.equal(runFolders(ws).length, 0, name);
    }
  });

  it('refuses judged assertions without a grader, names --grader, and runs them with one or in compat mode', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws, 'promptops/evals/judged.yaml'),
      'id: judged\nprompt: "What is the capital of {{country}}?"\ncases:\n  - case_id: fr\n    inputs: {country: France}\n    assert:\n      - {type: llm-rubric, value: "Names Paris"}\n      - {type: not-similar, value: "Berlin"}\n',
    );
    const refused = await eval_(ws, ['--eval', 'judged', '-p', 'openai:chat:mock-model']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /judged\.yaml:7:\d+: .*--grader/);
    const graded = await eval_(ws, [
      '--eval',
      'judged',
      '-p',
      'openai:chat:mock-model',
      '--grader',
      'openai:chat:judge',
    ]);
    assert.equal(graded.code, 0, graded.stderr + graded.stdout);
    assert.match(graded.stdout, /fr: 1\/2 assertions passed/);
    // compat: apastra's offline fallback — the rubric text is no substring of the answer (fails);
    // "berlin" is not in it either, so not-similar passes.
    const compat = await eval_(ws, ['--eval', 'judged', '-p', 'openai:chat:mock-model', '--mode', 'compat']);
    assert.equal(compat.code, 0, compat.stderr + compat.stdout);
    assert.match(compat.stdout, /fr: 1\/2 assertions passed ❌/);
  });

  it('assay baseline save writes the apastra baseline; compare --policy reports as compare.py with paired statistics', async () => {
    const ws = workspace();
    const first = await eval_(ws, ['--suite', 'capitals-smoke', '-p', 'openai:chat:mock-model']);
    assert.equal(first.code, 1);
    const runs = readdirSync(join(ws, '.runs')).map((d) => join(ws, '.runs', d));
    const saved = await runCli(['baseline', 'save', runs[0], '--dir', join(ws, '.baselines')], {
      env: cleanEnv,
    });
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /Archived the previous apastra baseline: .*capitals-smoke-\d{8}T\d{6}Z\.json/);
    const baseline = JSON.parse(
      readFileSync(join(ws, 'derived-index/baselines/capitals-smoke.json'), 'utf8'),
    );
    assert.equal(baseline.suite_id, 'capitals-smoke');
    assert.ok(Math.abs(baseline.scorecard.normalized_metrics.keyword_recall - 2 / 3) < 1e-12);
    assert.match(saved.stderr, /fails its thresholds \(keyword_recall\)/);
    // Against its own baseline the suite now regresses on nothing but still fails its thresholds.
    const second = await eval_(ws, ['--suite', 'capitals-smoke', '-p', 'openai:chat:mock-model']);
    assert.match(second.stdout, /Regression: FAIL ❌/, 'keyword_recall is still below its floor');
    // The baseline names its assay run: the gate pairs the two runs too.
    assert.match(second.stdout, /assay compare · baseline baseline → candidate this run/);
    const regressions = readdirSync(join(ws, 'derived-index/regressions')).sort();
    const gateReport = JSON.parse(
      readFileSync(join(ws, 'derived-index/regressions', regressions[regressions.length - 1]), 'utf8'),
    );
    assert.equal(gateReport.paired_statistics.pairs, 3);
    assert.deepEqual(schemaProblems('regression-report', gateReport), []);
    const runs2 = readdirSync(join(ws, '.runs'))
      .sort()
      .map((d) => join(ws, '.runs', d));
    const out = join(ws, 'report.json');
    const cmp = await runCli(
      ['compare', runs2[0], runs2[1], '--policy', join(ws, 'promptops/policies/regression.yaml'), '-o', out],
      { env: cleanEnv },
    );
    assert.equal(cmp.code, 1, cmp.stderr);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(schemaProblems('regression-report', report), []);
    assert.equal(report.status, 'fail');
    assert.equal(report.cost_delta, 0);
    assert.ok(report.paired_statistics, 'two runs are paired');
    assert.match(cmp.stdout, /assay compare · baseline/);
    // Two scorecards (files): compare.py's report, no paired statistics.
    const folders = runFolders(ws).sort();
    const cards = await runCli(
      [
        'compare',
        join(folders[0], 'scorecard.json'),
        folders[1],
        '--policy',
        join(ws, 'promptops/policies/regression.yaml'),
        '--json',
      ],
      { env: cleanEnv },
    );
    const json = JSON.parse(cards.stdout);
    assert.equal(json.paired_statistics, undefined);
    assert.equal(json.evidence[0].message, 'Value 0.6666666666666666 below floor 0.8.');
  });

  it('runs a chat template, a schema evaluator, trials and a two-model matrix: one run folder per model', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws, 'promptops/prompts/chat.yaml'),
      'id: chat-v1\nvariables: {country: {type: string}}\ntemplate:\n  - {role: system, content: "Answer briefly."}\n  - {role: user, content: "What is the capital of {{country}}? Answer in one sentence."}\n',
    );
    writeFileSync(
      join(ws, 'promptops/evaluators/json.yaml'),
      'id: json-shape\ntype: schema\nmetrics: [schema_valid]\nconfig:\n  schema: {type: object}\n',
    );
    writeFileSync(
      join(ws, 'promptops/suites/multi.yaml'),
      'id: multi\nname: Multi\nprompt: chat-v1\ndatasets: [capitals]\nevaluators: [json-shape, keywords-v1]\nmodel_matrix: [model-a, model-b]\ntrials: 2\n',
    );
    const r = await eval_(ws, ['--suite', 'multi']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const folders = runFolders(ws).sort();
    assert.deepEqual(
      folders.map((f) => f.replace(/.*-/, '')),
      ['a', 'b'],
    );
    for (const folder of folders) {
      const cases = readFileSync(join(folder, 'cases.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(cases[0].per_trial_outputs.length, 2);
      assert.deepEqual(
        cases[0].per_trial_outputs.map((t: { trial_id: string }) => t.trial_id),
        ['t1', 't2'],
      );
      const card = JSON.parse(readFileSync(join(folder, 'scorecard.json'), 'utf8'));
      assert.equal(card.normalized_metrics.schema_valid, 0);
      assert.equal(card.flake_rates.keyword_recall, 0);
      assert.ok(Math.abs(card.normalized_metrics.keyword_recall - 2 / 3) < 1e-12);
    }
    // The system message went first, as the template says.
    const sent = mock.requests.find((q) => JSON.stringify(q.body).includes('Answer briefly.'));
    assert.ok(sent, 'the chat template was sent');
  });

  it('loads the shipped apastra workspace and refuses what is invalid in it', async () => {
    const shipped = join(tmp.dir, 'shipped');
    cpSync(fixture('apastra', 'shipped'), shipped, { recursive: true });
    const ok = await runCli(['validate', join(shipped, 'promptops/evals/my-eval.yaml')], { env: cleanEnv });
    assert.equal(ok.code, 0, ok.stderr);
    const a1 = await runCli(['validate', shipped, '--suite', 'test-suite'], { env: cleanEnv });
    assert.equal(a1.code, 2);
    assert.match(a1.stderr, /test-suite\.yaml:1:1: which prompt does this suite run\? .*add "prompt: <id>"/);
    // Naming the prompt: it loads; the edited suite's stored digest no longer matches (both named),
    // the evaluator's (resolved by its id through the scan) still does.
    appendFileSync(join(shipped, 'promptops/suites/test-suite.yaml'), 'prompt: summarize-v1\n');
    const named = await runCli(['validate', shipped, '--suite', 'test-suite'], { env: cleanEnv });
    assert.equal(named.code, 0, named.stderr);
    assert.match(
      named.stderr,
      /warning: stored digest sha256:90594be7\S+ does not match the file's content, whose digest is sha256:[0-9a-f]{64}/,
    );
    assert.doesNotMatch(named.stderr, /exact-match\.yaml.*digest/);
    // A prompt package is no prompt spec; a canary is no suite.
    writeFileSync(
      join(shipped, 'promptops/suites/test-suite.yaml'),
      readFileSync(join(shipped, 'promptops/suites/test-suite.yaml'), 'utf8').replace(
        'prompt: summarize-v1',
        'prompt: my-prompt-package/package.yaml',
      ),
    );
    const pkg = await runCli(['validate', shipped, '--suite', 'test-suite'], { env: cleanEnv });
    assert.equal(pkg.code, 2);
    assert.match(
      pkg.stderr,
      /package\.yaml:1:1: not a valid apastra prompt spec: missing required key "variables"/,
    );
    const canary = await runCli(['validate', join(shipped, 'promptops/canaries/test-canary.yaml')], {
      env: cleanEnv,
    });
    assert.equal(canary.code, 2);
  });
});
