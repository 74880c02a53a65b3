// assay compare and assay baseline, end to end on real runs against the mock server: a candidate
// that breaks 12 cases and fixes 3 regressed; identical answers are unchanged; symmetric noise is
// inconclusive; repeated runs show pass@k, pass^k and flaky cases.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Comparison } from '../../src/analysis/compare.js';
import { seededRandom } from '../../src/core/random.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type AnswerRule, type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-compare-');
const CASES = 200;
const mocks: MockServer[] = [];
after(async () => {
  for (const m of mocks) await m.close();
  tmp.cleanup();
});

/** A mock that answers "nope" for the given case numbers and echoes every other prompt. */
async function mockFailing(cases: number[], faults = ''): Promise<MockServer> {
  const answers: AnswerRule[] = cases.map((i) => ({ match: `^Say w${i}$`, reply: 'nope' }));
  const mock = await startMockServer({ answers, ...(faults ? { faults } : {}) });
  mocks.push(mock);
  return mock;
}

let n = 0;
/** Runs the 200-case suite against a mock; returns the run directory. */
async function runAgainst(mock: MockServer, extra: string[] = [], tests = CASES): Promise<string> {
  const dir = join(tmp.dir, `suite-${n++}`);
  mkdirSync(dir, { recursive: true });
  const rows = ['word,__expected,__description'];
  for (let i = 0; i < tests; i++) rows.push(`w${i},contains:w${i},case ${i}`);
  writeFileSync(join(dir, 'tests.csv'), `${rows.join('\n')}\n`);
  writeFileSync(
    join(dir, 'promptfooconfig.yaml'),
    `prompts: ['Say {{word}}']\nproviders:\n  - id: openai:chat:m\n    config: {apiBaseUrl: ${mock.baseUrl}, maxRetries: 0}\ntests: file://tests.csv\n`,
  );
  const r = await runCli(
    ['eval', '--no-progress', '--no-cache', '--runs-dir', join(tmp.dir, 'runs'), '-j', '16', ...extra],
    {
      cwd: dir,
      env: cleanEnv,
    },
  );
  const m = /Run written to (\S+)/.exec(r.stdout);
  assert.ok(m, r.stderr + r.stdout);
  return m[1];
}

async function compare(
  a: string,
  b: string,
  extra: string[] = [],
): Promise<{ code: number; c: Comparison; text: string }> {
  const json = await runCli(['compare', a, b, '--json', ...extra]);
  const text = await runCli(['compare', a, b, ...extra]);
  assert.equal(json.code, text.code);
  return { code: json.code, c: JSON.parse(json.stdout) as Comparison, text: text.stdout };
}

let baselineRun: string;
before(async () => {
  // The baseline fails cases 0–9; the candidate fixes 0–2 and breaks 100–111.
  baselineRun = await runAgainst(await mockFailing(Array.from({ length: 10 }, (_, i) => i)));
});

describe('assay compare', () => {
  it('says regressed, with the right discordant counts, when 12 cases break and 3 are fixed (exit 1)', async () => {
    const broken = Array.from({ length: 12 }, (_, i) => 100 + i);
    const stillFailing = [3, 4, 5, 6, 7, 8, 9];
    const candidate = await runAgainst(await mockFailing([...stillFailing, ...broken]));
    const { code, c, text } = await compare(baselineRun, candidate);
    assert.equal(code, 1, text);
    assert.equal(c.verdict, 'regressed');
    assert.equal(c.pairs, CASES);
    const passRate = c.metrics.find((m) => m.metric === 'pass rate')!;
    assert.deepEqual(passRate.discordant, { regressed: 12, improved: 3 });
    assert.equal(passRate.test, 'McNemar exact');
    // 2·P(X ≤ 3), X ~ Bin(15, ½), then Holm over the two metrics of the one cell.
    assert.ok(Math.abs(passRate.p - 0.03515625) < 1e-12, String(passRate.p));
    assert.ok(Math.abs(passRate.delta - -9 / CASES) < 1e-12);
    assert.equal(c.regressions.length, 12);
    assert.equal(c.fixes.length, 3);
    assert.deepEqual(c.fixes.map((f) => f.description).sort(), ['case 0', 'case 1', 'case 2']);
    assert.equal(c.regressions[0].candidate.output, 'nope');
    // Plain words first (issue 34), the statistics on the line below, every figure with --verbose.
    const lines = text.split('\n');
    assert.equal(
      lines[2],
      '12 tests went from pass to fail and 3 from fail to pass; with 200 cases that is more than chance: the pass rate fell 4.5 points.',
    );
    assert.match(
      lines[3],
      /^ {2}pass rate 95\.0% → 90\.5%: -4\.5 pts \(95% CI -\d\.\d to -\d\.\d\) · McNemar exact p = 0\.0352$/,
    );
    assert.doesNotMatch(text, /smallest change|Holm/);
    assert.match(text, /Passed before, fail now \(12\)/);
    assert.match(text, /Verdict: REGRESSED \(seed 1; --verbose for every figure\)/);
    const verbose = await runCli(['compare', baselineRun, candidate, '--verbose']);
    assert.equal(verbose.code, 1);
    assert.equal(verbose.stdout.split('\n')[2], lines[2]);
    assert.match(verbose.stdout, /REGRESSED: pass rate/);
    assert.match(verbose.stdout, /12 passed before and fail now, 3 the reverse/);
    assert.match(verbose.stdout, /smallest change this suite could detect/);
    assert.match(verbose.stdout, /Verdict: REGRESSED \(seed 1\)/);
  });

  it('a test that went from pass to fail in a 3-case suite: said in plain words first, the test listed, the statistics one line below (issue 34)', async () => {
    const before3 = await runAgainst(await mockFailing([]), [], 3);
    const after3 = await runAgainst(await mockFailing([1]), [], 3);
    const r = await runCli(['compare', before3, after3]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.split('\n');
    // Before: "inconclusive: pass rate · …", McNemar, Holm-adjusted and the 80% power line came first.
    assert.match(lines[1], /^assay compare · baseline /);
    assert.equal(
      lines[2],
      '1 test went from pass to fail; with 3 cases that could be chance — this suite cannot detect a change of any size.',
    );
    assert.match(
      lines[3],
      /^ {2}pass rate 100\.0% → 66\.7%: -33\.3 pts \(95% CI -\d+\.\d to \+\d+\.\d\) · McNemar exact p = 1\.0000$/,
    );
    assert.doesNotMatch(r.stdout, /Holm|80% power|smallest change/);
    const flipped = lines.indexOf('Passed before, fail now (1)');
    assert.ok(flipped > 3, r.stdout);
    assert.match(lines[flipped + 1], /"case 1" .*· Say \{\{word\}\} · openai:chat:m/);
    assert.match(lines[flipped + 2], /before \(100\.0%\): Say w1/);
    assert.match(lines[flipped + 3], /now {4}\(0\.0%\): nope/);
    assert.match(lines.at(-2) ?? '', /^Verdict: inconclusive \(seed 1; --verbose for every figure\)$/);
    // --verbose: the same sentence first, then every figure.
    const verbose = await runCli(['compare', before3, after3, '--verbose']);
    assert.equal(verbose.stdout.split('\n')[2], lines[2]);
    assert.match(verbose.stdout, /inconclusive: pass rate · Say \{\{word\}\} · openai:chat:m/);
    assert.match(
      verbose.stdout,
      /McNemar exact: p = 1\.0000, Holm-adjusted 1\.0000; 1 passed before and fail now, 0 the reverse/,
    );
    assert.match(
      verbose.stdout,
      /smallest change this suite could detect .*: none \(too few cases for this test\)/,
    );
    // The page says the same sentence.
    const page = join(tmp.dir, 'three.html');
    await runCli(['compare', before3, after3, '-o', page]);
    assert.ok(readFileSync(page, 'utf8').includes(`<li>${lines[2]}</li>`));
  });

  it('says unchanged when the answers are identical (exit 0), and is the same twice', async () => {
    const again = await runAgainst(await mockFailing(Array.from({ length: 10 }, (_, i) => i)));
    const first = await compare(baselineRun, again);
    assert.equal(first.code, 0, first.text);
    assert.equal(first.c.verdict, 'unchanged');
    assert.equal(first.c.regressions.length + first.c.fixes.length, 0);
    const second = await compare(baselineRun, again);
    assert.deepEqual(second.c, first.c);
  });

  it('says inconclusive when the runs differ only by noise', async () => {
    // As many cases newly fail as newly pass, drawn with a fixed seed.
    const random = seededRandom(99);
    const pool = Array.from({ length: 190 }, (_, i) => 10 + i).sort(() => random() - 0.5);
    const candidate = await runAgainst(await mockFailing([...pool.slice(0, 6), 4, 5, 6, 7, 8, 9, 0, 1]));
    const { code, c, text } = await compare(baselineRun, candidate);
    assert.equal(c.verdict, 'inconclusive', text);
    assert.equal(code, 0);
    const failOn = await compare(baselineRun, candidate, ['--fail-on', 'inconclusive']);
    assert.equal(failOn.code, 1);
  });

  it('a practical threshold keeps a significant but small drop from being a regression', async () => {
    const broken = Array.from({ length: 12 }, (_, i) => 100 + i);
    const candidate = await runAgainst(await mockFailing([3, 4, 5, 6, 7, 8, 9, ...broken]));
    const { c, code, text } = await compare(baselineRun, candidate, ['--min-effect', '0.2']);
    assert.equal(c.metrics.find((m) => m.metric === 'pass rate')?.verdict, 'inconclusive');
    assert.equal(code, 0);
    assert.equal(
      text.split('\n')[2],
      '12 tests went from pass to fail and 3 from fail to pass; more than chance, but the pass rate fell 4.5 points, not clearly beyond ±0.2 (--min-effect): too small to count.',
    );
  });

  it('repeated runs are reduced per case: pass@1, pass@5, pass^5 and the flaky share', async () => {
    // Transient 500s with no retries make some trials of some cases errors: those cases are flaky.
    const flakyMock = await mockFailing([], 'fail_500=0.3');
    const a = await runAgainst(flakyMock, ['--repeat', '5', '--max-errors', '100%'], 20);
    const b = await runAgainst(flakyMock, ['--repeat', '5', '--max-errors', '100%'], 20);
    const { c, text } = await compare(a, b, ['--pass-at', '1,5']);
    assert.deepEqual(c.trials, { baseline: 5, candidate: 5 });
    assert.equal(c.pairs, 20);
    assert.ok(c.flaky && c.flaky.baseline > 0, JSON.stringify(c.flaky));
    assert.deepEqual(
      c.atK?.map((k) => k.k),
      [1, 5],
    );
    const at1 = c.atK![0].baseline;
    const at5 = c.atK![1].baseline;
    assert.ok(at5.passAtK >= at1.passAtK && at5.passHatK <= at1.passHatK);
    assert.equal(c.metrics.find((m) => m.metric === 'pass rate')?.test, 'sign-flip permutation');
    assert.match(text, /pass@5 .* pass\^5 /);
    assert.match(text, /Flaky cases \(trials disagree\)/);
  });

  it("assay eval --baseline runs and gates in one go: its exit code is the gate's", async () => {
    // The same 10 failures as the baseline: tests fail, but nothing regressed, so the gate passes.
    const same = await mockFailing(Array.from({ length: 10 }, (_, i) => i));
    const dir = join(tmp.dir, `gate-${n++}`);
    mkdirSync(dir, { recursive: true });
    const rows = ['word,__expected,__description'];
    for (let i = 0; i < CASES; i++) rows.push(`w${i},contains:w${i},case ${i}`);
    writeFileSync(join(dir, 'tests.csv'), `${rows.join('\n')}\n`);
    const config = (mock: MockServer) =>
      `prompts: ['Say {{word}}']\nproviders:\n  - id: openai:chat:m\n    config: {apiBaseUrl: ${mock.baseUrl}, maxRetries: 0}\ntests: file://tests.csv\n`;
    writeFileSync(join(dir, 'promptfooconfig.yaml'), config(same));
    const args = [
      'eval',
      '--no-progress',
      '--no-cache',
      '--runs-dir',
      join(tmp.dir, 'runs'),
      '--baseline',
      baselineRun,
    ];
    const pass = await runCli(args, { cwd: dir, env: cleanEnv });
    assert.equal(pass.code, 0, pass.stdout + pass.stderr);
    assert.match(pass.stdout, /Verdict: unchanged/);
    const worse = await mockFailing([
      ...Array.from({ length: 10 }, (_, i) => i),
      ...Array.from({ length: 20 }, (_, i) => 50 + i),
    ]);
    writeFileSync(join(dir, 'promptfooconfig.yaml'), config(worse));
    const fail = await runCli(args, { cwd: dir, env: cleanEnv });
    assert.equal(fail.code, 1, fail.stdout + fail.stderr);
    assert.match(fail.stdout, /Verdict: REGRESSED/);
    // A baseline that does not exist is refused before anything runs.
    const before = worse.stats().requests;
    const bad = await runCli([...args.slice(0, -1), 'no-such-baseline'], { cwd: dir, env: cleanEnv });
    assert.equal(bad.code, 2);
    assert.equal(worse.stats().requests, before);
  });

  it('two models on an ÈwéBench suite pair across providers and show its category table and ÈwéScore', async () => {
    const runs = join(tmp.dir, 'ewe-runs');
    const suite = join(repoRoot, 'examples', 'ewebench');
    const mock = await mockFailing([]);
    const a = await runCli(['eval', suite, '-p', 'echo', '--no-progress', '--runs-dir', runs], {
      env: cleanEnv,
    });
    const b = await runCli(
      ['eval', suite, '-p', 'openai:chat:m', '--no-progress', '--no-cache', '--runs-dir', runs],
      {
        env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl },
      },
    );
    const dirA = /Run written to (\S+)/.exec(a.stdout)?.[1];
    const dirB = /Run written to (\S+)/.exec(b.stdout)?.[1];
    assert.ok(dirA && dirB, a.stderr + b.stderr);
    const { c, text } = await compare(dirA, dirB);
    assert.deepEqual(c.across?.provider, ['echo', 'openai:chat:m']);
    assert.ok(c.pairs > 0);
    assert.ok(c.views?.weighted, 'the weighted score of both runs');
    assert.equal(c.views?.weighted?.name, 'ÈwéScore');
    assert.match(text, /Paired across providers: echo → openai:chat:m/);
    assert.match(text, /ÈwéScore by category \(baseline → candidate\)/);
    assert.match(text, /ÈwéScore: [\d.]+ → [\d.]+ [↑↓=] \(higher: /);
  });

  it('baselines: save a run under a name, list it, and compare by name; bad input is exit 2', async () => {
    const baselines = join(tmp.dir, 'baselines');
    const saved = await runCli(['baseline', 'save', baselineRun, '--name', 'main', '--dir', baselines]);
    assert.equal(saved.code, 0, saved.stderr);
    const list = await runCli(['baseline', 'list', '--dir', baselines]);
    assert.match(list.stdout, /^main {2}run \S+/m);
    const byName = await runCli(['compare', 'main', baselineRun, '--baselines-dir', baselines, '--json']);
    assert.equal(byName.code, 0, byName.stderr);
    assert.equal((JSON.parse(byName.stdout) as Comparison).verdict, 'unchanged');
    const missing = await runCli(['compare', 'nope', baselineRun, '--baselines-dir', baselines]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope: no such run/);
    const other = await runAgainst(await mockFailing([]), [], 3);
    // Three cases of another suite share nothing with… the same words: make them differ.
    const disjointDir = join(tmp.dir, 'disjoint');
    mkdirSync(disjointDir, { recursive: true });
    writeFileSync(
      join(disjointDir, 'promptfooconfig.yaml'),
      "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: x}\n",
    );
    const echo = await runCli(['eval', '--no-progress', '--runs-dir', join(tmp.dir, 'runs')], {
      cwd: disjointDir,
    });
    const echoRun = /Run written to (\S+)/.exec(echo.stdout)![1];
    const none = await runCli(['compare', other, echoRun]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no case in common/);
  });
});

/** Runs a promptfoo config (its YAML, with `tests.csv` of `cases` words beside it); returns the run directory. */
async function runConfig(config: string, extra: string[] = [], cases = 30): Promise<string> {
  const dir = join(tmp.dir, `config-${n++}`);
  mkdirSync(dir, { recursive: true });
  const rows = ['word,__expected,__description'];
  for (let i = 0; i < cases; i++) rows.push(`w${i},contains:w${i},case ${i}`);
  writeFileSync(join(dir, 'tests.csv'), `${rows.join('\n')}\n`);
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const r = await runCli(['eval', '--no-progress', '--runs-dir', join(tmp.dir, 'runs'), ...extra], {
    cwd: dir,
    env: cleanEnv,
  });
  const m = /Run written to (\S+)/.exec(r.stdout);
  assert.ok(m, r.stderr + r.stdout);
  return m[1];
}

describe('assay compare says only what it can defend', () => {
  it('an identical pair of 200-case runs is unchanged, with the smallest change McNemar could see: 3.9 points', async () => {
    const again = await runAgainst(await mockFailing(Array.from({ length: 10 }, (_, i) => i)));
    const { code, c, text } = await compare(baselineRun, again);
    assert.equal(code, 0, text);
    assert.equal(c.verdict, 'unchanged');
    const m = c.metrics.find((x) => x.metric === 'pass rate')!;
    // Exact McNemar, 80% power at α = 0.05 (one comparison), no case moved: 3.92 points, not 2.8/n = 1.4.
    assert.ok(Math.abs(m.minimumDetectable - 0.0392) < 5e-4, String(m.minimumDetectable));
    assert.match(
      text,
      /^No test changed over 200 cases; this suite detects changes of 3\.9 points or more\.$/m,
    );
    const verbose = await runCli(['compare', baselineRun, again, '--verbose']);
    assert.match(
      verbose.stdout,
      /smallest change this suite could detect \(80% power, McNemar exact, α = 0\.05 over 1 comparison\): 3\.9 pts/,
    );
  });

  it('a case judged on one side and skipped on the other is unpaired and said so, never a failure', async () => {
    // pramana: 20 semantic_similarity cases (judged with --embedder, skipped without) and 10 contains cases.
    const mock = await mockFailing([]);
    const dir = join(tmp.dir, `pramana-${n++}`);
    mkdirSync(dir, { recursive: true });
    const meta = { difficulty: 'easy', tokens_est: 10 };
    const lines: string[] = [];
    for (let i = 0; i < 20; i++)
      lines.push(
        JSON.stringify({
          id: `s${i}`,
          category: 'factual',
          input: `word w${i}`,
          ideal: `word w${i}`,
          assertion: { type: 'semantic_similarity', threshold: 0.9 },
          metadata: meta,
        }),
      );
    for (let i = 0; i < 10; i++)
      lines.push(
        JSON.stringify({
          id: `c${i}`,
          category: 'factual',
          input: `word x${i}`,
          ideal: `x${i}`,
          assertion: { type: 'contains' },
          metadata: meta,
        }),
      );
    writeFileSync(join(dir, 'suite.jsonl'), `${lines.join('\n')}\n`);
    const env = { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'k' };
    const base = ['eval', 'suite.jsonl', '-p', 'echo', '--no-progress', '--runs-dir', join(tmp.dir, 'runs')];
    const withEmbedder = await runCli([...base, '--embedder', 'openai:embedding:e'], { cwd: dir, env });
    const without = await runCli(base, { cwd: dir, env });
    assert.match(without.stdout, /30 jobs: 10 passed · 0 failed · 0 errors · 20 skipped/, without.stderr);
    const a = /Run written to (\S+)/.exec(withEmbedder.stdout)![1];
    const b = /Run written to (\S+)/.exec(without.stdout)![1];
    const { code, c, text } = await compare(a, b);
    // Before: the 20 skipped cases counted as 0%, "regressed", exit 1.
    assert.equal(code, 0, text);
    assert.equal(c.pairs, 10);
    assert.equal(c.unjudged.length, 20);
    assert.ok(c.unjudged.every((u) => u.judgedIn === 'baseline'));
    assert.equal(c.metrics[0].verdict, 'unchanged');
    // Unchanged on the ten judged on both sides, unknown on the twenty: not called unchanged.
    assert.equal(c.verdict, 'inconclusive');
    assert.match(
      text,
      /Not paired: 20 cases judged in the baseline only \(every trial skipped on the other side: a skip is not a failure/,
    );
    assert.match(text, /Why: 20 cases were judged on one side only/);
    // Only the skipped cases on both sides: nothing judged on both, said, exit 0 (not "no case in common").
    const reverse = await compare(b, a);
    assert.equal(reverse.code, 0, reverse.text);
    assert.equal(reverse.c.unjudged.filter((u) => u.judgedIn === 'candidate').length, 20);
  });

  it('an edited unlabeled prompt pairs by position (said), and a prompt that falls out is never unchanged', async () => {
    const config = (prompts: string[]) =>
      `prompts:\n${prompts.map((p) => `  - '${p}'`).join('\n')}\nproviders: [echo]\ntests: file://tests.csv\n`;
    const a = await runConfig(config(['Say {{word}}', 'Repeat {{word}}']));
    const b = await runConfig(config(['Say {{word}}', 'Please repeat {{word}}']));
    const { code, c, text } = await compare(a, b);
    // Before: 30 only in the baseline, 30 only in the candidate, "unchanged" on the first prompt alone.
    assert.equal(c.pairs, 60, text);
    assert.equal(c.onlyBaseline.length + c.onlyCandidate.length, 0);
    assert.deepEqual(c.prompts?.byPosition, [
      { position: 2, baseline: 'Repeat {{word}}', candidate: 'Please repeat {{word}}' },
    ]);
    assert.match(
      text,
      /Paired by position \(prompt 2, no label, its text changed\): Repeat \{\{word\}\} → Please repeat \{\{word\}\}/,
    );
    assert.equal(c.verdict, 'unchanged');
    assert.equal(code, 0);
    // Three prompts against two: no pairing by position, and the prompt left out keeps the verdict from "unchanged".
    const three = await runConfig(config(['Say {{word}}', 'Please repeat {{word}}', 'Echo {{word}}']));
    const more = await compare(a, three);
    assert.equal(more.c.pairs, 30);
    assert.equal(more.c.verdict, 'inconclusive', more.text);
    assert.ok(more.c.fellOut.some((f) => f.promptLabel === 'Repeat {{word}}' && f.side === 'baseline'));
    assert.match(more.text, /Why: 3 prompt × provider columns had no paired case/);
  });

  it('two prompts sharing a label are two prompts, paired by label and position, and the label is named', async () => {
    const config = `prompts:\n  - {raw: 'Say {{word}}', label: p}\n  - {raw: 'Repeat {{word}}', label: p}\nproviders: [echo]\ntests: file://tests.csv\n`;
    const a = await runConfig(config);
    const b = await runConfig(config);
    const { c, text } = await compare(a, b);
    // Before: folded into one case with two trials ("trials per case: 2 → 2").
    assert.deepEqual(c.trials, { baseline: 1, candidate: 1 });
    assert.equal(c.pairs, 60);
    assert.deepEqual(
      c.metrics.map((m) => m.cell.promptLabel),
      ['p #1', 'p #2'],
    );
    assert.deepEqual(c.prompts?.sharedLabels, [
      { side: 'baseline', label: 'p', prompts: 2 },
      { side: 'candidate', label: 'p', prompts: 2 },
    ]);
    assert.match(text, /The label p names 2 prompts in the baseline: they pair by label and position/);
    assert.doesNotMatch(text, /trials per case/);
  });

  it('a provider outage is not a regression of the model: "cannot judge: N errors", exit 3', async () => {
    const same = Array.from({ length: 10 }, (_, i) => i);
    const outage = await runAgainst(await mockFailing(same, 'fail_500=0.3'), ['--max-errors', '100%']);
    const { code, c, text } = await compare(baselineRun, outage);
    // Before: "regressed", p ≈ 1e-15, exit 1.
    const m = c.metrics.find((x) => x.metric === 'pass rate')!;
    assert.ok(m.errors.candidate > 30, JSON.stringify(m.errors));
    assert.equal(m.errorBounds?.worst.verdict, 'regressed');
    assert.notEqual(m.errorBounds?.best.verdict, 'regressed');
    assert.equal(c.verdict, 'cannot-judge', text);
    assert.equal(code, 3);
    assert.match(text, new RegExp(`Why: cannot judge: ${m.errors.candidate} errors`));
    assert.match(text, /Verdict: CANNOT JUDGE/);
    // In plain words first: the errors decide it.
    assert.match(
      text.split('\n')[2],
      new RegExp(
        `^\\d+ tests went from pass to fail.*, but ${m.errors.baseline + m.errors.candidate} trials errored, and had they passed or failed the answer would differ: the errors decide it, not the model\\.$`,
      ),
    );
    // A regression that holds whatever the errors were is still a regression.
    const broken = Array.from({ length: 60 }, (_, i) => 100 + i);
    const worse = await runAgainst(await mockFailing([...same, ...broken], 'fail_500=0.05'), [
      '--max-errors',
      '100%',
    ]);
    const regressed = await compare(baselineRun, worse);
    assert.equal(regressed.c.verdict, 'regressed', regressed.text);
    assert.equal(regressed.code, 1);
  });

  it('--pass-at says which k it could not show and how many cases each k left out', async () => {
    const mock = await mockFailing([]);
    const a = await runAgainst(mock, ['--repeat', '3'], 10);
    const b = await runAgainst(mock, ['--repeat', '3', '--pass-at', '5'], 10);
    const { c, text } = await compare(a, b, ['--pass-at', '1,3,5']);
    assert.deepEqual(
      c.atK?.map((x) => [x.k, x.cases, x.leftOut]),
      [
        [1, 10, 0],
        [3, 10, 0],
      ],
    );
    assert.deepEqual(c.atKDropped, [5]);
    assert.match(
      text,
      /pass@k not shown for k = 5: no paired case has that many judged trials on both sides \(trials per case: 3 → 3\)/,
    );
    // The run's own summary says the same of the k it was asked for (before: dropped without a word).
    const summary = await runCli(['report', b]);
    assert.match(
      summary.stdout,
      /pass@5 not shown: no case has 5 judged trials/,
      summary.stdout + summary.stderr,
    );
  });
});

describe('assay compare: errors weighed by share, whatever the trial counts (review)', () => {
  it('cases that error in every trial on both sides never block, 1 trial against 10 included', async () => {
    const down = await mockFailing([], 'fail_500=1');
    const once = await runAgainst(down, ['--max-errors', '100%'], 30);
    const tenTimes = await runAgainst(down, ['--max-errors', '100%', '--repeat', '10'], 30);
    // Before: the one error of each baseline case matched one of the ten, and the nine left were
    // varied ("had the errors passed: +90.0 pts, improved"): cannot judge, exit 3.
    const { code, c, text } = await compare(once, tenTimes);
    assert.notEqual(c.verdict, 'cannot-judge', text);
    assert.equal(code, 0, text);
    assert.equal(c.metrics[0].errorBounds?.best.delta, 0, text);
    // Nothing was judged at all: never called unchanged.
    assert.equal(c.verdict, 'inconclusive', text);
    assert.match(
      text,
      /Why: every trial of Say \{\{word\}\} · openai:chat:m was an error on both sides: nothing was judged/,
    );
    const same = await compare(once, once);
    assert.equal(same.c.verdict, 'inconclusive', same.text);
    assert.equal(same.code, 0);
  });
});

describe('assay compare: the HTML page says how cases paired (review)', () => {
  it('prompts paired by position, a shared label and a column that fell out are on the page', async () => {
    const config = (last: string) =>
      `prompts:\n  - {raw: 'Say {{word}}', label: p}\n  - {raw: 'Repeat {{word}}', label: p}\n  - '${last}'\nproviders: [echo]\ntests: file://tests.csv\n`;
    const a = await runConfig(config('Echo {{word}}'), [], 5);
    const b = await runConfig(config('Echo now {{word}}'), [], 5);
    const page = join(tmp.dir, `page-${n++}.html`);
    const r = await runCli(['compare', a, b, '-o', page]);
    assert.equal(r.code, 0, r.stderr);
    const html = readFileSync(page, 'utf8');
    // Before: the console said these, the page did not.
    assert.match(
      html,
      /Paired by position \(prompt 3, no label, its text changed\): Echo \{\{word\}\} → Echo now/,
    );
    assert.match(html, /The label p names 2 prompts in the baseline: they pair by label and position/);
    const three = await runConfig(config('Echo {{word}}').replace("  - 'Echo {{word}}'\n", ''), [], 5);
    const fell = join(tmp.dir, `page-${n++}.html`);
    await runCli(['compare', a, three, '-o', fell]);
    assert.match(readFileSync(fell, 'utf8'), /No case of Echo \{\{word\}\} · echo \(baseline\) was compared/);
  });
});

describe('assay compare: option values (review)', () => {
  it('a blank, negative, fractional or unreadable --seed, --min-effect or --pass-at is exit 2, named', async () => {
    const bad: [string, string, RegExp][] = [
      ['--seed', '', /--seed : expected a whole number from 0 to 2147483648/],
      ['--min-effect', ' ', /--min-effect {2}: expected a number ≥ 0/],
      ['--min-effect', '-0.1', /--min-effect: its value starts with "-"/],
      ['--min-effect', 'NaN', /--min-effect NaN: expected a number ≥ 0/],
      ['--pass-at', ',', /--pass-at ,: expected whole numbers ≥ 1/],
      ['--pass-at', '0', /--pass-at 0: expected a whole number ≥ 1/],
      ['--pass-at', '2.5', /--pass-at 2.5: expected a whole number ≥ 1/],
      ['--pass-at', '1e300', /--pass-at 1e300: expected a whole number ≥ 1/],
    ];
    for (const [flag, value, message] of bad) {
      const r = await runCli(['compare', baselineRun, baselineRun, flag, value]);
      // Before: a blank --seed was seed 0, a blank --min-effect 0 and --pass-at , the default k.
      assert.equal(r.code, 2, `${flag} '${value}': ${r.stdout}`);
      assert.match(r.stderr, message);
    }
  });
});
