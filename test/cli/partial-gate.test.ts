// Issue 20, "A partial run never passes a gate": a run that did not reach every planned job
// (interrupted with SIGINT here, for real) is refused by compare, compare --policy, report
// --baseline and baseline save (exit 2, saying how many planned jobs each side is missing), is
// never unchanged / improved / PASS with --allow-partial, and passes its status on to a re-score;
// a damaged run log is exit 2 naming the file and line (a torn last line is still the normal trace
// of a kill); eval --baseline checks the baseline against the suite before any model call.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Every `verdict` field anywhere in a JSON value, with where it is. */
function verdictsIn(value: unknown, path = '$'): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => verdictsIn(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(k === 'verdict' ? ([[`${path}.${k}`, v]] as [string, unknown][]) : []),
    ...verdictsIn(v, `${path}.${k}`),
  ]);
}

describe('a partial comparison never says unchanged, anywhere (issue 30)', () => {
  // A pramana suite (its scorecard has breakdowns by category and difficulty: the per-group level)
  // of 20 cases, 4 of which fail in every run; the candidate is interrupted for real. Every case
  // both runs reached is identical, so a comparison of whole runs would be "unchanged".
  const dir = join(tmp.dir, 'partial-everywhere');
  let baseline: string;
  let candidate: string;
  before(async () => {
    const lines = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({
        id: `q${i}`,
        category: i % 2 === 0 ? 'factual' : 'reasoning',
        input: `What is the capital of Land${i}?`,
        ideal: i % 5 === 0 ? `Nowhere${i}` : `City${i}`,
        assertion: { type: 'contains' },
        metadata: { difficulty: i < 10 ? 'easy' : 'hard', tokens_est: 10 },
      }),
    );
    const suite = join(dir, 'suite.jsonl');
    writeFileSync(join(mkdirp(dir), 'suite.jsonl'), `${lines.join('\n')}\n`);
    const env = {
      ...cleanEnv,
      OPENAI_BASE_URL: `${mock.url}/_/latency_ms=60/v1`,
      OPENAI_API_KEY: 'test',
    };
    const args = [suite, '-p', 'openai:chat:mock-model', '--no-cache'];
    const full = await runCli(
      ['eval', ...args, '--no-progress', '--runs-dir', join(dir, 'runs'), '-j', '20'],
      {
        env,
      },
    );
    assert.equal(full.code, 1, full.stdout + full.stderr);
    baseline = runDirOf(full.stdout);
    candidate = await interruptedRun(args, join(dir, 'cand-runs'), env, mock);
  });

  it('every verdict of the JSON (-o and --json), at every level, is neither unchanged nor improved', async () => {
    const out = join(dir, 'cmp.json');
    const r = await runCli(['compare', baseline, candidate, '--allow-partial', '-o', out]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const printed = await runCli(['compare', baseline, candidate, '--allow-partial', '--json']);
    for (const c of [JSON.parse(readFileSync(out, 'utf8')), JSON.parse(printed.stdout)] as Comparison[]) {
      assert.ok(
        c.incomplete && c.metrics.length > 0 && c.pairs > 0 && c.pairs < 20,
        JSON.stringify(c.incomplete),
      );
      // What whole runs would have called unchanged: no paired case moved.
      assert.deepEqual(
        c.metrics.map((m) => m.moved),
        c.metrics.map(() => ({ down: 0, up: 0 })),
      );
      assert.ok((c.views?.breakdowns.length ?? 0) > 0, 'the per-group level is there');
      const verdicts = verdictsIn(c);
      assert.ok(verdicts.length >= 1 + c.metrics.length, JSON.stringify(verdicts));
      // Before: metrics[].verdict was "unchanged" beside the top "inconclusive".
      for (const [where, v] of verdicts) assert.ok(v !== 'unchanged' && v !== 'improved', `${where}: ${v}`);
    }
  });

  it('the console, plain and --verbose, and report --baseline never say unchanged or improved', async () => {
    for (const args of [
      ['compare', baseline, candidate, '--allow-partial'],
      ['compare', baseline, candidate, '--allow-partial', '--verbose'],
      ['report', candidate, '--baseline', baseline, '--allow-partial', '--verbose'],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      // Before: "unchanged: pass rate …" in each metric block.
      assert.doesNotMatch(r.stdout, /unchanged|improved/i, args.join(' '));
      assert.match(
        r.stdout,
        /^No test changed among the \d+ cases both runs reached, but a run is not complete: the jobs never run may be the ones that changed\.$/m,
      );
      // The per-group figures are there, without a direction (an "=" read as "no change").
      assert.match(
        r.stdout,
        /Pass rate by category \(baseline → candidate; not complete: the jobs that ran, no verdict\)/,
      );
      assert.doesNotMatch(r.stdout, /% [↑↓=]$/m);
      assert.match(r.stdout, /Verdict: inconclusive/);
    }
  });

  it('the compare page says no unchanged verdict, in no row and no sentence', async () => {
    for (const [args, page] of [
      [
        ['compare', baseline, candidate, '--allow-partial', '-o', join(dir, 'cmp.html')],
        join(dir, 'cmp.html'),
      ],
      [
        ['report', candidate, '--baseline', baseline, '--allow-partial', '--format', 'html'],
        join(candidate, 'compare.html'),
      ],
    ] as const) {
      const r = await runCli([...args]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const html = readFileSync(page, 'utf8');
      assert.match(html, /data-verdict="inconclusive"/);
      const shown = [...html.matchAll(/<span class="verdict ([a-z-]+)"[^>]*>([^<]*)</g)];
      assert.ok(shown.length >= 2, 'the run and each metric');
      for (const [, cls, word] of shown) {
        assert.ok(!['unchanged', 'improved'].includes(cls), cls);
        assert.doesNotMatch(word, /unchanged|improved/i);
      }
      const rows = [...html.matchAll(/<tr class="([a-z-]+)"><td><span class="verdict/g)].map((m) => m[1]);
      assert.ok(rows.length > 0 && rows.every((v) => v === 'inconclusive'), rows.join());
      const sentences = [...html.matchAll(/<ul class="plain">(.*?)<\/ul>/gs)].map((m) => m[1]).join('');
      assert.match(
        sentences,
        /No test changed among the \d+ cases both runs reached, but a run is not complete/,
      );
      assert.doesNotMatch(sentences, /No test changed over/);
    }
  });

  it('the run outputs of the interrupted candidate (Markdown, GitHub summary, JUnit) never show it as passing', async () => {
    const md = await runCli(['report', candidate, '--format', 'markdown']);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^## ❌ assay/m);
    assert.match(md.stdout, /\*\*run interrupted\*\*/);
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '');
    const gh = await runCli(['report', candidate, '--format', 'github'], {
      env: { ...cleanEnv, GITHUB_STEP_SUMMARY: summary },
    });
    assert.match(
      readFileSync(summary, 'utf8'),
      /^## ❌ assay[\s\S]*\*\*run interrupted\*\*/m,
      gh.stdout + gh.stderr,
    );
    const junit = await runCli(['report', candidate, '--format', 'junit']);
    assert.match(junit.stdout, /<testsuites [^>]*errors="[1-9]\d*"/);
    assert.match(junit.stdout, /<testcase name="run interrupted"[\s\S]*?planned jobs did not run/);
  });
});

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('compare right after a Ctrl-C (issue 34)', () => {
  it('with no runs named, passes over the interrupted run, says so, and compares the last two complete runs', async () => {
    const root = join(tmp.dir, 'after-ctrl-c');
    const runs = join(root, 'runs');
    const suite = writeWordSuite(join(root, 'suite'), {
      tests: 20,
      baseUrl: `${mock.url}/_/latency_ms=60/v1`,
      prompt: 'Repeat',
    });
    const complete: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['eval', suite, '--no-progress', '--runs-dir', runs, '-j', '20'], {
        env: cleanEnv,
      });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      complete.push(runDirOf(r.stdout));
    }
    // The newest run of the folder is stopped with SIGINT (made beside it, then moved in).
    const stopped = await interruptedRun([suite], join(root, 'stopped'), cleanEnv, mock);
    const id = stopped.split('/').at(-1)!;
    cpSync(stopped, join(runs, id), { recursive: true });
    const missing = 20 - done(stopped);
    const r = await runCli(['compare', '--runs-dir', runs]);
    // Before: exit 2, "cannot compare runs that are not both complete".
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `Skipped the newer run ${id}: it is interrupted: ${missing} of 20 planned jobs missing \\(--allow-partial compares it\\)`,
      ),
    );
    const [a, b] = complete.map((d) => d.split('/').at(-1)!);
    assert.match(
      r.stderr,
      new RegExp(`Comparing the last two complete runs of .*: ${a} \\(baseline\\) and ${b} \\(candidate\\)`),
    );
    assert.match(r.stdout, /Verdict: unchanged/);
    // Asked to take runs that are not whole, it compares the newest, as not complete.
    const partial = await runCli(['compare', '--runs-dir', runs, '--allow-partial', '--json']);
    assert.equal(partial.code, 1, partial.stdout + partial.stderr);
    assert.doesNotMatch(partial.stderr, /Skipped/);
    const c = JSON.parse(partial.stdout) as Comparison & { baseline: string; candidate: string };
    assert.equal(c.candidate.split('/').at(-1), id);
    assert.equal(c.baseline.split('/').at(-1), b);
    assert.equal(c.verdict, 'inconclusive');
  });
});
