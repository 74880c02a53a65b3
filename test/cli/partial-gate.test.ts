// Issue 20, "A partial run never passes a gate": a run that did not reach every planned job
// (interrupted with SIGINT here, for real) is refused by compare, compare --policy, report
// --baseline and baseline save (exit 2, saying how many planned jobs each side is missing), is
// never unchanged / improved / PASS with --allow-partial, and passes its status on to a re-score;
// a damaged run log is exit 2 naming the file and line (a torn last line is still the normal trace
// of a kill); eval --baseline checks the baseline against the suite before any model call.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Comparison } from '../../src/analysis/compare.js';
import { schemaProblems } from '../../src/formats/apastra/schemas.js';
import type { RunManifest } from '../../src/runlog/types.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture } from '../support/paths.js';
import { interruptedRun } from '../support/runs.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-partial-gate-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: Array.from({ length: 20 }, (_, i) => ({
      match: `capital of Land${i}\\b`,
      reply: `The capital of Land${i} is City${i}.`,
    })),
  });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

function manifestOf(runDir: string): RunManifest {
  return JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
}

function runDirOf(stdout: string): string {
  const m = /Run written to (\S+)/.exec(stdout);
  assert.ok(m, stdout);
  return m[1];
}

/** Result lines in a run's log (each a distinct job here). */
function done(runDir: string): number {
  return readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim().split('\n').length;
}

describe('a partial run never passes a gate (promptfoo suite)', () => {
  const runsDir = join(tmp.dir, 'runs');
  let suite: string;
  let baseline: string;
  let candidate: string;
  before(async () => {
    suite = writeWordSuite(join(tmp.dir, 'suite'), {
      tests: 20,
      baseUrl: `${mock.url}/_/latency_ms=60/v1`,
      prompt: 'Repeat',
      describe: true,
    });
    const full = await runCli(['eval', suite, '--no-progress', '--runs-dir', runsDir, '-j', '20'], {
      env: cleanEnv,
    });
    assert.equal(full.code, 0, full.stderr + full.stdout);
    baseline = runDirOf(full.stdout);
    candidate = await interruptedRun([suite], join(tmp.dir, 'cand-runs'), cleanEnv, mock);
  });

  it('compare refuses an interrupted candidate (exit 2), saying how many planned jobs each side misses', async () => {
    const missing = 20 - done(candidate);
    assert.ok(missing > 0 && missing < 20, `${missing}`);
    const r = await runCli(['compare', baseline, candidate]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /baseline \S+ is complete \(0 of 20 planned jobs missing\)/);
    assert.match(
      r.stderr,
      new RegExp(`candidate \\S+ is interrupted: ${missing} of 20 planned jobs missing`),
    );
    assert.match(r.stderr, /--allow-partial/);
    // The other way round too, and through report --baseline.
    const reverse = await runCli(['compare', candidate, baseline]);
    assert.equal(reverse.code, 2, reverse.stdout);
    assert.match(reverse.stderr, /baseline \S+ is interrupted/);
    const report = await runCli(['report', candidate, '--baseline', baseline]);
    assert.equal(report.code, 2, report.stdout);
  });

  it('--allow-partial compares them, but never as unchanged or improved, and exits 1', async () => {
    const json = await runCli(['compare', baseline, candidate, '--allow-partial', '--json']);
    assert.equal(json.code, 1, json.stderr);
    const c = JSON.parse(json.stdout) as Comparison;
    assert.equal(c.verdict, 'inconclusive', 'every paired case is identical, yet not unchanged');
    assert.equal(c.regressions.length + c.fixes.length, 0);
    assert.equal(c.incomplete?.length, 2);
    assert.match(c.incomplete?.[1] ?? '', /candidate \S+ is interrupted: \d+ of 20 planned jobs missing/);
    const text = await runCli(['compare', baseline, candidate, '--allow-partial']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /Not complete \(--allow-partial\)/);
    assert.match(text.stdout, /Verdict: inconclusive/i);
  });

  it('a re-score of an interrupted run stays interrupted, counts the jobs never run, and is refused as its source is', async () => {
    const missing = 20 - done(candidate);
    const r = await runCli(['rescore', candidate, '--runs-dir', join(tmp.dir, 'rescored'), '--no-progress']);
    assert.match(r.stdout, /Re-scored \d+ recorded results/);
    assert.match(
      r.stdout,
      new RegExp(`Run \\S+ is interrupted: ${missing} planned jobs of the suite were never run`),
    );
    const rescored = runDirOf(r.stdout);
    const m = manifestOf(rescored);
    assert.equal(m.status, 'interrupted');
    assert.equal(m.rescoredFrom?.notRecorded, missing);
    assert.equal(r.code, 3, 'as the interrupted eval it re-scores');
    const cmp = await runCli(['compare', baseline, rescored]);
    assert.equal(cmp.code, 2, cmp.stdout);
    assert.match(
      cmp.stderr,
      new RegExp(`candidate \\S+ is interrupted: ${missing} of 20 planned jobs missing`),
    );
    const save = await runCli(['baseline', 'save', rescored, '--dir', join(tmp.dir, 'bl-rescored')]);
    assert.equal(save.code, 2, save.stdout);
  });

  it('baseline save refuses an interrupted promptfoo run without --force, and says so with it', async () => {
    const dir = join(tmp.dir, 'baselines');
    const refused = await runCli(['baseline', 'save', candidate, '--name', 'main', '--dir', dir]);
    assert.equal(refused.code, 2, refused.stdout);
    assert.match(refused.stderr, /the run is interrupted: \d+ of 20 planned jobs missing.*--force/);
    assert.equal(existsSync(join(dir, 'main')), false, 'nothing saved');
    const forced = await runCli(['baseline', 'save', candidate, '--name', 'main', '--dir', dir, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stderr, /warning: --force: .*the run is interrupted/);
  });

  it('a damaged line in the middle of results.jsonl, or a damaged manifest, is exit 2 naming the file (and line)', async () => {
    const copy = (name: string): string => {
      const dir = join(tmp.dir, name);
      cpSync(baseline, dir, { recursive: true });
      return dir;
    };
    const midLine = copy('damaged-line');
    const lines = readFileSync(join(midLine, 'results.jsonl'), 'utf8').split('\n');
    lines[9] = lines[9].slice(0, 30);
    writeFileSync(join(midLine, 'results.jsonl'), lines.join('\n'));
    for (const args of [
      ['compare', baseline, midLine],
      ['report', midLine],
      ['rescore', midLine, '--runs-dir', join(tmp.dir, 'rescore-damaged')],
    ]) {
      const r = await runCli(args, { env: cleanEnv });
      assert.equal(r.code, 2, `${args[0]}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /results\.jsonl:10: the run log is damaged/);
    }
    // A torn LAST line (no newline: a kill mid-write) is the normal trace of a crash: skipped.
    const torn = copy('torn-last');
    appendFileSync(join(torn, 'results.jsonl'), '{"v":1,"key":"abc","caseId');
    const ok = await runCli(['compare', baseline, torn, '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout) as Comparison).verdict, 'unchanged');
    // A manifest cut short, and one that is JSON but not a manifest.
    for (const [name, text] of [
      ['cut-manifest', '{"runId": "x", "status": "comp'],
      ['empty-manifest', '{}'],
    ]) {
      const dir = copy(name);
      writeFileSync(join(dir, 'manifest.json'), text);
      for (const args of [
        ['compare', baseline, dir],
        ['report', dir],
        ['baseline', 'save', dir, '--dir', join(tmp.dir, 'unused')],
      ]) {
        const r = await runCli(args);
        assert.equal(r.code, 2, `${name} ${args[0]}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /manifest\.json: the run log is damaged/);
        assert.doesNotMatch(r.stderr, /Cannot read properties/);
      }
    }
  });

  it('eval --baseline: a run of another suite, or a partial baseline, is refused before any model call', async () => {
    const other = writeWordSuite(join(tmp.dir, 'other-suite'), {
      tests: 5,
      baseUrl: mock.baseUrl,
      prompt: 'Spell',
    });
    // Other words: no case in common.
    writeFileSync(join(other, 'tests.csv'), 'word,__expected\nzz1,contains:zz1\nzz2,contains:zz2\n');
    mock.resetStats();
    const r = await runCli(
      ['eval', other, '--no-progress', '--runs-dir', join(tmp.dir, 'other-runs'), '--baseline', baseline],
      { env: cleanEnv },
    );
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /no case in common with this suite/);
    assert.equal(mock.stats().requests, 0, 'no model call');
    const partial = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', join(tmp.dir, 'gate-runs'), '--baseline', candidate],
      { env: cleanEnv },
    );
    assert.equal(partial.code, 2, partial.stdout + partial.stderr);
    assert.match(partial.stderr, /the baseline \S+ is interrupted: \d+ of 20 planned jobs missing/);
    assert.equal(mock.stats().requests, 0, 'no model call');
  });
});

describe('a partial run never passes an apastra policy', () => {
  it('compare --policy refuses an interrupted candidate (exit 2); --allow-partial is a WARNING (exit 1), never PASS', async () => {
    const ws = join(tmp.dir, 'ws');
    cpSync(fixture('apastra', 'ws'), ws, { recursive: true });
    // Twenty cases the mock answers exactly: a whole run passes every rule.
    const data = join(ws, 'promptops', 'datasets', 'capitals');
    writeFileSync(
      join(data, 'dataset.jsonl'),
      `${Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({
          case_id: `land${i}`,
          inputs: { country: `Land${i}` },
          expected_outputs: { should_contain: [`City${i}`], answer: `The capital of Land${i} is City${i}.` },
        }),
      ).join('\n')}\n`,
    );
    // (The manifest's stored digest no longer matches: a warning, as apastra gives.)
    const env = { ...cleanEnv, OPENAI_BASE_URL: `${mock.url}/_/latency_ms=60/v1`, OPENAI_API_KEY: 'test' };
    const args = [ws, '--suite', 'capitals-smoke', '-p', 'openai:chat:mock-model', '--no-cache'];
    const full = await runCli(
      ['eval', ...args, '--no-progress', '--runs-dir', join(ws, '.runs'), '-j', '20'],
      {
        env,
      },
    );
    assert.ok(full.code === 0, full.stdout + full.stderr);
    const baseline = runDirOf(full.stdout);
    rmSync(join(ws, 'derived-index', 'baselines'), { recursive: true, force: true });
    const candidate = await interruptedRun(args, join(ws, '.cand-runs'), env, mock);
    const policy = join(ws, 'promptops', 'policies', 'regression.yaml');
    const refused = await runCli(['compare', baseline, candidate, '--policy', policy], { env: cleanEnv });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /candidate \S+ is interrupted: \d+ of 20 planned jobs missing/);
    const out = join(ws, 'report.json');
    const partial = await runCli(
      ['compare', baseline, candidate, '--policy', policy, '--allow-partial', '-o', out],
      { env: cleanEnv },
    );
    assert.equal(partial.code, 1, partial.stdout + partial.stderr);
    assert.match(partial.stdout, /Regression: WARNING/);
    assert.match(partial.stdout, /not complete: candidate \S+ is interrupted/);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(report.status, 'warning');
    assert.deepEqual(schemaProblems('regression-report', report), []);
    assert.equal(report.paired_statistics.verdict, 'inconclusive');
  });
});
