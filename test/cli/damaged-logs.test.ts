// Damaged and partial run logs (issue 20, "A partial run never passes a gate" and "Nothing is half-written": what a
// hostile user tried). A results line that is JSON of the wrong shape, and a
// manifest with a field of the wrong type, are damaged run logs (exit 2 naming the file), not a
// crash; a re-score of a run whose log was cut short (its manifest still saying complete) is not
// a complete run; an apastra baseline saved with --force from a partial run never lets a gate
// pass; -o never lands on any run's log (a baseline's copy, another run, however spelt) nor on
// the response cache.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunManifest } from '../../src/runlog/types.js';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture, repoRoot } from '../support/paths.js';
import { watchOutput } from '../support/processes.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-gate-review-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    answers: Array.from({ length: 10 }, (_, i) => ({
      match: `capital of Land${i}\\b`,
      reply: `The capital of Land${i} is City${i}.`,
    })),
  });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

function runDirOf(stdout: string): string {
  const m = /Run written to (\S+)/.exec(stdout);
  assert.ok(m, stdout);
  return m[1];
}

function manifestOf(runDir: string): RunManifest {
  return JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
}

/** A copy of a run directory, its log cut to its first `keep` lines (its manifest untouched). */
function cutCopy(runDir: string, to: string, keep: number): string {
  cpSync(runDir, to, { recursive: true });
  const lines = readFileSync(join(to, 'results.jsonl'), 'utf8').split('\n').slice(0, keep);
  writeFileSync(join(to, 'results.jsonl'), `${lines.join('\n')}\n`);
  return to;
}

describe('damaged logs, cut logs re-scored, -o onto run logs (promptfoo suite)', () => {
  const runsDir = join(tmp.dir, 'runs');
  let suite: string;
  let base: string;
  let cand: string;
  before(async () => {
    suite = writeWordSuite(join(tmp.dir, 'suite'), { tests: 10, baseUrl: mock.baseUrl, prompt: 'Repeat' });
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['eval', suite, '--no-progress', '--no-cache', '--runs-dir', runsDir], {
        env: cleanEnv,
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      if (i === 0) base = runDirOf(r.stdout);
      else cand = runDirOf(r.stdout);
    }
  });

  it('a results line that is JSON but not a result is exit 2 naming file:line, never a crash', async () => {
    for (const [i, line] of [
      '{"key":"zzz"}',
      '{"v":1,"key":"zzz","caseId":"c","promptId":"p","providerId":5,"trial":0,"status":"pass","verdicts":[],"score":1}',
      '{"v":1,"key":"zzz","caseId":"c","promptId":"p","providerId":"q","trial":0,"status":"won","verdicts":[],"score":1}',
    ].entries()) {
      const dir = join(tmp.dir, `shape-${i}`);
      cpSync(cand, dir, { recursive: true });
      writeFileSync(
        join(dir, 'results.jsonl'),
        `${line}\n${readFileSync(join(cand, 'results.jsonl'), 'utf8')}`,
      );
      for (const args of [
        ['compare', base, dir],
        ['report', dir],
        ['rescore', dir, '--runs-dir', join(tmp.dir, 'rescored-shape')],
        ['baseline', 'save', dir, '--dir', join(tmp.dir, 'unused-bl')],
      ]) {
        const r = await runCli(args, { env: cleanEnv });
        assert.equal(r.code, 2, `${line} ${args[0]}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /results\.jsonl:1: the run log is damaged/, `${args[0]} ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /Cannot read properties/);
      }
    }
  });

  it('a manifest with a field missing or of the wrong type is exit 2 naming it, never a crash', async () => {
    const edits: [string, (m: Record<string, unknown>) => void][] = [
      ['no options', (m) => delete m.options],
      ['providers not a list', (m) => (m.providers = 'openai')],
      ['no plannedJobs', (m) => delete m.plannedJobs],
      ['plannedJobs a string', (m) => (m.plannedJobs = '10')],
      ['no suite.prompts', (m) => delete (m.suite as Record<string, unknown>).prompts],
      ['suite a number', (m) => (m.suite = 5)],
      ['no runId', (m) => delete m.runId],
      ['no status', (m) => delete m.status],
    ];
    for (const [i, [what, edit]] of edits.entries()) {
      const dir = join(tmp.dir, `manifest-${i}`);
      cpSync(cand, dir, { recursive: true });
      const m = manifestOf(dir) as unknown as Record<string, unknown>;
      edit(m);
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
      for (const args of [
        ['compare', base, dir],
        ['report', dir],
        ['rescore', dir, '--runs-dir', join(tmp.dir, 'rescored-manifest')],
        ['baseline', 'save', dir, '--dir', join(tmp.dir, 'unused-bl')],
      ]) {
        const r = await runCli(args, { env: cleanEnv });
        assert.equal(r.code, 2, `${what}: ${args[0]}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /manifest\.json: the run log is damaged/, `${what}: ${args[0]}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /Cannot read properties|NaN/);
      }
    }
  });

  it('a re-score of a run whose log was cut short (its manifest still says complete) is not complete', async () => {
    const cut = cutCopy(cand, join(tmp.dir, 'cut'), 4);
    const r = await runCli(['rescore', cut, '--runs-dir', join(tmp.dir, 'rescored-cut')], { env: cleanEnv });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /is interrupted: 6 planned jobs of the suite were never run/);
    const rescored = runDirOf(r.stdout);
    assert.equal(manifestOf(rescored).status, 'interrupted');
    const cmp = await runCli(['compare', base, rescored], { env: cleanEnv });
    assert.equal(cmp.code, 2, cmp.stdout + cmp.stderr);
    assert.match(cmp.stderr, /candidate \S+ is interrupted: 6 of 10 planned jobs missing/);
    const save = await runCli(['baseline', 'save', rescored, '--dir', join(tmp.dir, 'bl-cut')], {
      env: cleanEnv,
    });
    assert.equal(save.code, 2, save.stdout + save.stderr);
  });

  it('the library saveBaseline (async) refuses a run that is not whole unless force, as the CLI does', async () => {
    const { saveBaseline } = await import('../../src/index.js');
    const cut = cutCopy(cand, join(tmp.dir, 'cut-lib'), 5);
    const dir = join(tmp.dir, 'bl-lib');
    await assert.rejects(
      saveBaseline(cut, 'lib', dir),
      /is marked complete but its log is short: 5 of 10 planned jobs missing/,
    );
    assert.equal(existsSync(join(dir, 'lib')), false);
    const saved = await saveBaseline(cut, 'lib', dir, { force: true });
    assert.equal(saved, join(dir, 'lib'));
    assert.equal(
      readFileSync(join(saved, 'results.jsonl'), 'utf8'),
      readFileSync(join(cut, 'results.jsonl'), 'utf8'),
    );
  });

  it('-o never writes over any run log: a baseline copy, another run (spelt with ..), nor the cache', async () => {
    const bl = join(tmp.dir, 'bl');
    const saved = await runCli(['baseline', 'save', base, '--name', 'main', '--dir', bl]);
    assert.equal(saved.code, 0, saved.stderr);
    const copy = join(bl, readlinkSync(join(bl, 'main')));
    const before = readFileSync(join(copy, 'results.jsonl'), 'utf8');
    const otherManifest = readFileSync(join(cand, 'manifest.json'), 'utf8');
    const cache = join(tmp.dir, 'cache.sqlite');
    const primed = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', runsDir, '--cache-path', cache],
      {
        env: cleanEnv,
      },
    );
    assert.equal(primed.code, 0, primed.stderr);
    const cacheBefore = readFileSync(cache);
    mock.resetStats();
    for (const [target, extra] of [
      [join(bl, 'main', 'results.jsonl'), []],
      [
        join(
          runsDir,
          '.',
          cand.split('/').at(-1) as string,
          '..',
          cand.split('/').at(-1) as string,
          'manifest.json',
        ),
        [],
      ],
      [cache, ['--output-format', 'json']],
    ] as [string, string[]][]) {
      const r = await runCli(
        [
          'eval',
          suite,
          '--no-progress',
          '--runs-dir',
          runsDir,
          '--cache-path',
          cache,
          '-o',
          target,
          ...extra,
        ],
        { env: cleanEnv },
      );
      assert.equal(r.code, 2, `${target}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /write the output elsewhere/);
      const rep = await runCli(['report', cand, '-o', target, ...extra]);
      assert.equal(rep.code, 2, `report ${target}: ${rep.stdout}${rep.stderr}`);
    }
    assert.equal(mock.stats().requests, 0, 'refused before any model call');
    assert.equal(readFileSync(join(copy, 'results.jsonl'), 'utf8'), before);
    assert.equal(readFileSync(join(cand, 'manifest.json'), 'utf8'), otherManifest);
    assert.deepEqual(readFileSync(cache), cacheBefore);
  });
});

describe('an apastra baseline saved with --force from a partial run', () => {
  it('never lets a later eval pass its regression gate, nor compare --policy against the baseline file', async () => {
    const ws = join(tmp.dir, 'ws');
    cpSync(fixture('apastra', 'ws'), ws, { recursive: true });
    writeFileSync(
      join(ws, 'promptops', 'datasets', 'capitals', 'dataset.jsonl'),
      `${Array.from({ length: 10 }, (_, i) =>
        JSON.stringify({
          case_id: `land${i}`,
          inputs: { country: `Land${i}` },
          expected_outputs: { should_contain: [`City${i}`], answer: `The capital of Land${i} is City${i}.` },
        }),
      ).join('\n')}\n`,
    );
    rmSync(join(ws, 'derived-index', 'baselines'), { recursive: true, force: true });
    const env = { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'test' };
    const args = [
      ws,
      '--suite',
      'capitals-smoke',
      '-p',
      'openai:chat:mock-model',
      '--no-cache',
      '--no-progress',
    ];
    const full = await runCli(['eval', ...args, '--runs-dir', join(ws, '.runs')], { env });
    assert.equal(full.code, 0, full.stdout + full.stderr);
    const partial = cutCopy(runDirOf(full.stdout), join(ws, 'partial-run'), 3);
    const refused = await runCli(['baseline', 'save', partial, '--dir', join(ws, '.bl')], { env });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    const forced = await runCli(['baseline', 'save', partial, '--force', '--dir', join(ws, '.bl')], { env });
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    const baselineFile = join(ws, 'derived-index', 'baselines', 'capitals-smoke.json');
    assert.match(readFileSync(baselineFile, 'utf8'), /"assay_incomplete"/);
    // A save killed while it writes the new apastra baseline leaves the previous one active (it is
    // archived by a copy, not moved away first): no moment without a baseline for a gate to skip.
    const before = readFileSync(baselineFile, 'utf8');
    const killed = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'assay.js'),
        'baseline',
        'save',
        runDirOf(full.stdout),
        '--dir',
        join(ws, '.bl'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv({ ...env, ASSAY_TEST_PAUSE: 'write-whole' }) },
    );
    const exited = once(killed, 'exit');
    await watchOutput(killed).waitForText(/test pause at write-whole/);
    killed.kill('SIGKILL');
    await exited;
    assert.equal(readFileSync(baselineFile, 'utf8'), before, 'the previous apastra baseline, still active');
    // A whole run of the same suite, judged against that baseline, by its apastra output.
    const again = await runCli(
      [
        'eval',
        ...args,
        '--runs-dir',
        join(ws, '.runs2'),
        '-o',
        `${join(ws, 'out')}/`,
        '--output-format',
        'apastra',
      ],
      {
        env,
      },
    );
    assert.equal(again.code, 1, again.stdout + again.stderr);
    assert.match(
      again.stdout,
      /Regression: not compared — the baseline \S+ is of a run that is marked complete but its log is short: 7 of 10 planned jobs missing; a gate against it cannot pass/,
    );
    assert.doesNotMatch(again.stdout, /Regression: PASS/);
    // The baseline file itself as a side of compare --policy: refused, as the run it came from is.
    const policy = join(ws, 'promptops', 'policies', 'regression.yaml');
    const cmp = await runCli(['compare', baselineFile, runDirOf(again.stdout), '--policy', policy], { env });
    assert.equal(cmp.code, 2, cmp.stdout + cmp.stderr);
    assert.match(
      cmp.stderr,
      /baseline \S+capitals-smoke\.json is of a run that is marked complete but its log is short/,
    );
    const allowed = await runCli(
      ['compare', baselineFile, runDirOf(again.stdout), '--policy', policy, '--allow-partial'],
      { env },
    );
    assert.equal(allowed.code, 1, allowed.stdout + allowed.stderr);
    assert.doesNotMatch(allowed.stdout, /Regression: PASS/);
    // An apastra run folder written by an eval that was aborted (every call fails, no error allowed):
    // its run_manifest.json status says so.
    const folder = join(ws, 'folders');
    const aborted = await runCli(
      [
        'eval',
        ...args,
        '--runs-dir',
        join(ws, '.runs3'),
        '-j',
        '1',
        '--max-errors',
        '0',
        '--max-retries',
        '0',
        '-o',
        `${folder}/`,
        '--output-format',
        'apastra',
      ],
      { env: { ...env, OPENAI_BASE_URL: `${mock.url}/_/status=500/v1` } },
    );
    assert.equal(aborted.code, 3, aborted.stdout + aborted.stderr);
    const [runFolder] = readdirSync(folder);
    const fromFolder = await runCli(
      ['compare', join(folder, runFolder), runDirOf(again.stdout), '--policy', policy],
      {
        env,
      },
    );
    assert.equal(fromFolder.code, 2, fromFolder.stdout + fromFolder.stderr);
    assert.match(
      fromFolder.stderr,
      /baseline \S+scorecard\.json is of a run that is aborted \(the status in its run_manifest\.json\)/,
    );
  });
});
