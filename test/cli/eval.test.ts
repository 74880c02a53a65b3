import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Scorecard } from '../../src/core/scorecard.js';
import type { JobResult } from '../../src/core/types.js';
import type { RunManifest } from '../../src/runlog/types.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture } from '../support/paths.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cli-');
after(tmp.cleanup);

/** The single run directory created under `<cwd>/.assay/runs`. */
function onlyRun(cwd: string): string {
  const runs = join(cwd, '.assay', 'runs');
  const dirs = readdirSync(runs);
  assert.equal(dirs.length, 1, `expected one run in ${runs}, found ${dirs.join(', ')}`);
  return join(runs, dirs[0]);
}

function readRun(runDir: string): { manifest: RunManifest; results: JobResult[]; scorecard: Scorecard } {
  return {
    manifest: JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')),
    results: readFileSync(join(runDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    scorecard: JSON.parse(readFileSync(join(runDir, 'scorecard.json'), 'utf8')),
  };
}

let n = 0;

/** Runs the CLI in a new empty working folder, so each run directory is easy to find. */
async function inFreshCwd(args: string[], env: Record<string, string | undefined> = {}) {
  const cwd = join(tmp.dir, `cwd-${n++}`);
  mkdirSync(cwd, { recursive: true });
  const run = await runCli(args, { cwd, env: { ...cleanEnv, ...env } });
  return { cwd, ...run };
}

describe('assay eval (end to end, echo provider)', () => {
  it('runs a passing suite: exit 0, summary, and a complete run directory', async () => {
    const { cwd, code, stdout, stderr } = await inFreshCwd([
      'eval',
      fixture('cli', 'passing'),
      '--no-progress',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /3 jobs: 3 passed · 0 failed · 0 errors/);
    assert.match(stdout, /Metrics\n {2}place: 1\.000 \(n=1\)/);
    const runDir = onlyRun(cwd);
    assert.match(stdout, new RegExp(`Run written to ${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const { manifest, results, scorecard } = readRun(runDir);
    assert.equal(manifest.status, 'complete');
    assert.equal(manifest.suite.format, 'promptfoo');
    assert.match(manifest.suite.contentHash, /^[0-9a-f]{64}$/);
    assert.equal(manifest.plannedJobs, 3);
    assert.deepEqual(manifest.counts, { total: 3, pass: 3, fail: 0, error: 0, skip: 0 });
    assert.ok(manifest.endedAt);
    assert.deepEqual(manifest.command.slice(0, 2), ['assay', 'eval']);
    assert.equal(results.length, 3);
    const ada = results.find((r) => r.case.description === 'greets Ada')!;
    assert.equal(ada.output, 'Hello Ada, welcome to Paris');
    assert.deepEqual(ada.prompt.messages, [{ role: 'user', content: 'Hello Ada, welcome to Paris' }]);
    assert.deepEqual(
      ada.verdicts.map((v) => [v.type, v.pass]),
      [
        ['contains', true],
        ['icontains', true],
      ],
    );
    assert.deepEqual(results.map((r) => r.case.vars.name).sort(), ['Ada', 'Alan', 'Grace']);
    assert.equal(scorecard.counts.pass, 3);
  });

  it('exits 1 on a failing test and names the failing assertion and its reason', async () => {
    const { cwd, code, stdout } = await inFreshCwd([
      'eval',
      '-c',
      fixture('cli', 'failing', 'promptfooconfig.yaml'),
      '--no-progress',
    ]);
    assert.equal(code, 1);
    assert.match(stdout, /2 jobs: 1 passed · 1 failed · 0 errors/);
    assert.match(stdout, /✗ fail {2}"expects the wrong word"/);
    assert.match(stdout, /equals: Expected output "Say no" to equal "Say maybe"/);
    const { results } = readRun(onlyRun(cwd));
    const failed = results.find((r) => r.status === 'fail')!;
    assert.equal(failed.score, 0.5);
    assert.equal(failed.verdicts[1].pass, false);
  });

  it('finds promptfooconfig.yaml in the current folder when no suite is named', async () => {
    const run = await runCli(['eval', '--no-progress', '--runs-dir', join(tmp.dir, 'runs-default')], {
      cwd: fixture('cli', 'passing'),
      env: cleanEnv,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(join(tmp.dir, 'runs-default')));
  });

  it('writes -o outputs as .json, .jsonl and .csv', async () => {
    const out = join(tmp.dir, 'outputs');
    const { code, stderr } = await inFreshCwd([
      'eval',
      fixture('cli', 'failing'),
      '--no-progress',
      '-o',
      join(out, 'r.json'),
      '-o',
      join(out, 'r.jsonl'),
      '-o',
      join(out, 'r.csv'),
    ]);
    assert.equal(code, 1, stderr);
    const json = JSON.parse(readFileSync(join(out, 'r.json'), 'utf8'));
    assert.equal(json.results.length, 2);
    assert.equal(json.scorecard.counts.fail, 1);
    assert.equal(json.run.status, 'complete');
    const lines = readFileSync(join(out, 'r.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 2);
    assert.equal(JSON.parse(lines[0]).providerId, 'echo');
    const csv = readFileSync(join(out, 'r.csv'), 'utf8').split('\r\n');
    assert.equal(
      csv[0],
      'key,caseId,description,prompt,provider,trial,status,score,output,reason,latencyMs,var:word',
    );
    assert.equal(csv.filter((l) => l.length > 0).length, 3);
    assert.match(csv.join('\n'), /expects the wrong word,Say \{\{word\}\},echo,0,fail,0\.5,Say no,/);
  });

  it('refuses an -o extension it cannot write before running anything (exit 2)', async () => {
    const { cwd, code, stderr } = await inFreshCwd(['eval', fixture('cli', 'passing'), '-o', 'results.docx']);
    assert.equal(code, 2);
    assert.match(stderr, /-o results\.docx: cannot tell the output format/);
    assert.equal(existsSync(join(cwd, '.assay')), false, 'nothing ran');
  });

  it('--repeat runs every job N times; --verbose prints each result', async () => {
    const { cwd, code, stdout } = await inFreshCwd([
      'eval',
      fixture('cli', 'passing'),
      '--repeat',
      '3',
      '--verbose',
      '--no-progress',
    ]);
    assert.equal(code, 0);
    assert.equal((stdout.match(/^PASS /gm) ?? []).length, 9);
    const { results } = readRun(onlyRun(cwd));
    assert.deepEqual([...new Set(results.map((r) => r.trial))].sort(), [0, 1, 2]);
    assert.equal(new Set(results.map((r) => r.key)).size, 9);
  });

  it('exits 2 on bad flags and unknown commands, 0 on --help and --version', async () => {
    assert.equal((await runCli(['eval', '--max-concurrency', 'lots'])).code, 2);
    assert.equal((await runCli(['eval', '--no-such-flag'])).code, 2);
    assert.equal((await runCli(['frobnicate'])).code, 2);
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes:/);
    const version = await runCli(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it('exits 2, promptly and having run nothing, when a folder it must create cannot be made', async () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'x');
    const underFile = await inFreshCwd(['eval', fixture('cli', 'passing'), '--runs-dir', join(file, 'runs')]);
    assert.equal(underFile.code, 2);
    assert.match(underFile.stderr, /cannot create folder .*a-file.* exists and is not a folder/);
    // Node's recursive mkdir spins forever under /proc; assay must fail fast instead.
    if (existsSync('/proc/self')) {
      for (const args of [
        ['--runs-dir', '/proc/assay-test/runs'],
        ['-o', '/proc/assay-test/out.json'],
        // A provider whose answers are cached (a local server: it needs no key; none is called).
        ['--cache-path', '/proc/assay-test/c.sqlite', '-r', 'openai:chat:x'],
      ]) {
        const res = await inFreshCwd(['eval', fixture('cli', 'passing'), '--no-progress', ...args], {
          OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        });
        assert.equal(res.code, 2, args.join(' '));
        assert.match(res.stderr, /cannot create folder \/proc\/assay-test/);
        assert.equal(existsSync(join(res.cwd, '.assay', 'runs')), false, 'nothing ran');
      }
    }
  });

  it('an -o file that cannot be written is reported without a crash; the other outputs are still written', async () => {
    const out = join(tmp.dir, 'unwritable');
    mkdirSync(join(out, 'taken.json'), { recursive: true });
    const folder = await inFreshCwd([
      'eval',
      fixture('cli', 'passing'),
      '--no-progress',
      '-o',
      join(out, 'taken.json'),
    ]);
    assert.equal(folder.code, 2, 'a folder given as -o is refused before running');
    assert.match(folder.stderr, /taken\.json: is a folder, not a file/);
    assert.equal(existsSync(join(folder.cwd, '.assay')), false);
  });

  it('writes -o files in plan order, so two runs give identical files', async () => {
    const out = join(tmp.dir, 'ordered');
    const a = await inFreshCwd([
      'eval',
      fixture('cli', 'passing'),
      '--repeat',
      '20',
      '-j',
      '16',
      '--no-progress',
      '-o',
      join(out, 'a.csv'),
      '-o',
      join(out, 'a.jsonl'),
    ]);
    const b = await inFreshCwd([
      'eval',
      fixture('cli', 'passing'),
      '--repeat',
      '20',
      '-j',
      '3',
      '--no-progress',
      '-o',
      join(out, 'b.csv'),
      '-o',
      join(out, 'b.jsonl'),
    ]);
    assert.equal(a.code, 0);
    assert.equal(b.code, 0);
    const strip = (text: string) => text.replace(/,"?[\d.]+"?\r?$/gm, '');
    const csvA = readFileSync(join(out, 'a.csv'), 'utf8');
    assert.equal(
      strip(csvA),
      strip(readFileSync(join(out, 'b.csv'), 'utf8')),
      'same rows in the same order (latency aside)',
    );
    const lines = (f: string) =>
      readFileSync(join(out, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines('a.jsonl')
        .slice(0, 3)
        .map((r) => [r.caseIndex, r.trial]),
      [
        [0, 0],
        [0, 1],
        [0, 2],
      ],
      'case by case, then trial',
    );
    const keys = (f: string) => lines(f).map((r) => r.key);
    assert.deepEqual(keys('a.jsonl'), keys('b.jsonl'));
  });

  it('refuses ambiguous or oversized requests: two suites, a provider twice, huge --repeat, >100% error budget', async () => {
    const passing = fixture('cli', 'passing');
    const twoSuites = await inFreshCwd([
      'eval',
      passing,
      '-c',
      fixture('cli', 'failing', 'promptfooconfig.yaml'),
    ]);
    assert.equal(twoSuites.code, 2);
    assert.match(twoSuites.stderr, /two suites given/);
    const twice = await inFreshCwd(['eval', passing, '-p', 'echo', '-p', 'echo']);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /--provider echo: given twice/);
    const huge = await inFreshCwd(['eval', passing, '--repeat', '1000000000']);
    assert.equal(huge.code, 2);
    assert.match(huge.stderr, /--repeat 1000000000: expected a whole number from 1 to 100000/);
    const budget = await inFreshCwd(['eval', passing, '--max-errors', '150%']);
    assert.equal(budget.code, 2);
    const validateTwo = await inFreshCwd(['validate', passing, fixture('cli', 'failing')]);
    assert.equal(validateTwo.code, 2);
    for (const r of [twoSuites, twice, huge, budget, validateTwo])
      assert.equal(existsSync(join(r.cwd, '.assay')), false);
  });

  it('exits 2 with a clear message for a missing suite', async () => {
    const { code, stderr } = await inFreshCwd(['eval', 'no/such/suite.yaml']);
    assert.equal(code, 2);
    assert.match(stderr, /no\/such\/suite\.yaml: no such file or folder/);
  });
});

describe('assay validate', () => {
  it('accepts a valid suite without calling any model', async () => {
    const { code, stdout } = await inFreshCwd(['validate', fixture('cli', 'passing')]);
    assert.equal(code, 0);
    assert.match(
      stdout,
      /ok: .*promptfooconfig\.yaml \(promptfoo\): 3 cases, 1 prompts, 1 providers → 3 jobs/,
    );
  });

  it('reports a typo in an assertion type and a malformed YAML line, both with positions, exit 2', async () => {
    const { code, stderr } = await inFreshCwd(['validate', fixture('cli', 'invalid')]);
    assert.equal(code, 2);
    const file = fixture('cli', 'invalid', 'promptfooconfig.yaml');
    const lines = stderr.trim().split('\n');
    assert.ok(
      lines.some(
        (l) => l.startsWith(`${file}:6:15: `) && /contans/.test(l) && /did you mean "contains"/.test(l),
      ),
      stderr,
    );
    assert.ok(
      lines.some(
        (l) =>
          new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: `).test(l) &&
          /flow|indent|YAML|expected/i.test(l) &&
          !/contans/.test(l),
      ),
      stderr,
    );
  });
});

describe('assay eval against an OpenAI-compatible server', () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(async () => {
    await mock.close();
  });

  /** A suite of `n` tests; every third expects a word the echoing server will not say. */
  function writeSuite(dir: string, n: number, baseUrl: string): string {
    return writeWordSuite(dir, {
      tests: n,
      baseUrl,
      prompt: 'Please repeat',
      model: 'test-model',
      describe: true,
      fails: (i) => i % 3 === 0,
    });
  }

  it('1,000 tests through 10% 429s and 5% 500s: no error results, exact verdicts, nothing lost', async () => {
    mock.resetStats();
    const base = `${mock.url}/_/fail_429=0.1&fail_500=0.05&retry_after=0/v1`;
    const suite = writeSuite(join(tmp.dir, 'faults'), 1000, base);
    const { cwd, code, stdout, stderr } = await inFreshCwd(['eval', suite, '-j', '50', '--no-progress']);
    assert.equal(code, 1, stderr); // a third of the tests are designed to fail
    assert.match(stdout, /1000 jobs: 666 passed · 334 failed · 0 errors/);
    const { results, manifest } = readRun(onlyRun(cwd));
    assert.equal(results.length, 1000);
    assert.equal(manifest.status, 'complete');
    for (const r of results) {
      const i = Number(String(r.case.vars.word).slice(1));
      assert.equal(r.output, `Please repeat w${i}`);
      assert.equal(r.status, i % 3 === 0 ? 'fail' : 'pass', `row ${i}`);
    }
    const stats = mock.stats();
    assert.ok((stats.byStatus['429'] ?? 0) > 50, `faults were injected: ${JSON.stringify(stats.byStatus)}`);
    assert.ok((stats.byStatus['500'] ?? 0) > 20, `faults were injected: ${JSON.stringify(stats.byStatus)}`);
    assert.ok(
      results.some((r) => (r.answer.attempts ?? 1) > 1),
      'some jobs needed retries',
    );
    assert.equal(results.filter((r) => r.answer.usage?.total).length, 1000, 'token usage recorded');
  });

  it('stops at once on bad credentials (exit 3) and never writes the key to disk', async () => {
    const secret = 'sk-test-very-secret-value-123456';
    const base = `${mock.url}/_/require_key=the-right-key/v1`;
    const suite = writeSuite(join(tmp.dir, 'auth'), 200, base);
    mock.resetStats();
    const { cwd, code, stdout, stderr } = await inFreshCwd(['eval', suite, '-j', '4', '--no-progress'], {
      OPENAI_API_KEY: secret,
    });
    assert.equal(code, 3, stderr);
    assert.match(stdout, /Run aborted: .*401/);
    assert.ok(mock.stats().requests < 50, `stopped early (${mock.stats().requests} requests)`);
    const runDir = onlyRun(cwd);
    for (const f of readdirSync(runDir))
      assert.ok(!readFileSync(join(runDir, f), 'utf8').includes(secret), `${f} holds the key`);
    assert.ok(!stdout.includes(secret) && !stderr.includes(secret));
    assert.equal(readRun(runDir).manifest.status, 'aborted');
  });

  it('stops at once when nothing listens at the endpoint (exit 3, provider unreachable)', async () => {
    const { createServer } = await import('node:net');
    // Find a free port, then close it so connections are refused.
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const address = server.address() as { port: number };
        server.close(() => resolve(address.port));
      });
    });
    const suite = writeSuite(join(tmp.dir, 'refused'), 100, `http://127.0.0.1:${port}/v1`);
    const { cwd, code, stdout } = await inFreshCwd([
      'eval',
      suite,
      '-j',
      '2',
      '--max-retries',
      '1',
      '--no-progress',
    ]);
    assert.equal(code, 3);
    assert.match(stdout, /Run aborted: .*ECONNREFUSED/);
    const { results } = readRun(onlyRun(cwd));
    assert.ok(results.length <= 4, `stopped early (${results.length} results)`);
  });

  it('a provider that stays down yields error results and exit 3, with the reason kept', async () => {
    const base = `${mock.url}/_/status=503/v1`;
    const suite = writeSuite(join(tmp.dir, 'down'), 3, base);
    const { cwd, code, stdout } = await inFreshCwd(['eval', suite, '--max-retries', '1', '--no-progress']);
    assert.equal(code, 3);
    assert.match(stdout, /3 jobs: 0 passed · 0 failed · 3 errors/);
    const { results } = readRun(onlyRun(cwd));
    for (const r of results) {
      assert.equal(r.status, 'error');
      assert.match(r.error ?? '', /503/);
      assert.equal(r.answer.attempts, 2);
    }
    const tolerant = await inFreshCwd([
      'eval',
      suite,
      '--max-retries',
      '0',
      '--max-errors',
      '3',
      '--no-progress',
    ]);
    assert.equal(tolerant.code, 0, 'errors within --max-errors do not fail the run');
  });
});
