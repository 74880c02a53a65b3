// A suite's own run settings end to end (promptfoo's evaluateOptions, commandLineOptions,
// outputPath, provider delay/env, PROMPTFOO_* exit rules): defaults that flags override.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { evaluate } from '../../src/evaluate.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { evalIn, writeSuiteDir } from '../support/runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-run-defaults-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ faults: { requireKey: 'sk-provider-env-0042' } });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});
let n = 0;

function suiteDir(config: string, files: Record<string, string> = {}): string {
  return writeSuiteDir(join(tmp.dir, `suite-${n++}`), config, files);
}

const TESTS = `tests:
  - {description: alpha, vars: {q: a}, assert: [{type: contains, value: a}]}
  - {description: beta, vars: {q: b}, assert: [{type: contains, value: b}]}
  - {description: gamma, vars: {q: c}, assert: [{type: contains, value: c}]}
`;

describe('suite run defaults (promptfoo evaluateOptions, commandLineOptions, outputPath)', () => {
  it('the library resolves the suite’s run settings exactly as the CLI does (evaluate/settings.ts)', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers: [echo]
evaluateOptions: {repeat: 2, maxConcurrency: 3}
commandLineOptions: {filterPattern: '^(alpha|beta)$', maxConcurrency: 2}
${TESTS}`);
    const cli = await evalIn(dir);
    const lib = await evaluate({
      suitePath: join(dir, 'promptfooconfig.yaml'),
      runsDir: join(dir, 'lib-runs'),
    });
    assert.equal(lib.manifest.options.repeat, cli.manifest?.options.repeat);
    assert.equal(lib.manifest.options.maxConcurrency, cli.manifest?.options.maxConcurrency);
    assert.deepEqual(lib.manifest.options.selection, cli.manifest?.options.selection);
    assert.equal(lib.manifest.plannedJobs, 4);
    assert.deepEqual(lib.scorecard.counts, { total: 4, pass: 4, fail: 0, error: 0, skip: 0 });
    // A library option replaces the suite's, as a flag does.
    const one = await evaluate({
      suitePath: join(dir, 'promptfooconfig.yaml'),
      runsDir: join(dir, 'lib-runs'),
      repeat: 1,
      maxConcurrency: 5,
    });
    assert.equal(one.manifest.options.repeat, 1);
    assert.equal(one.manifest.options.maxConcurrency, 5);
  });

  it('repeat, concurrency and filters come from the config; each flag replaces its own', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers: [echo]
evaluateOptions: {repeat: 2, maxConcurrency: 3}
commandLineOptions: {filterPattern: '^(alpha|beta)$', maxConcurrency: 2}
${TESTS}`);
    const fromConfig = await evalIn(dir);
    assert.equal(fromConfig.code, 0, fromConfig.stderr);
    assert.equal(fromConfig.manifest?.options.repeat, 2);
    assert.equal(fromConfig.manifest?.options.maxConcurrency, 2);
    assert.deepEqual(fromConfig.results.map((r) => `${r.case.description}#${r.trial}`).sort(), [
      'alpha#0',
      'alpha#1',
      'beta#0',
      'beta#1',
    ]);
    const flags = await evalIn(dir, ['--repeat', '1', '-j', '5', '--filter-pattern', 'gamma']);
    assert.equal(flags.code, 0, flags.stderr);
    assert.equal(flags.manifest?.options.maxConcurrency, 5);
    assert.deepEqual(
      flags.results.map((r) => r.case.description),
      ['gamma'],
    );
  });

  it('outputPath is written after the run (promptfoo’s JSON for .json); -o replaces it', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers: [echo]
outputPath: [out/results.json, out/rows.jsonl]
${TESTS}`);
    const r = await evalIn(dir);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8'));
    assert.equal(json.results.version, 3);
    assert.equal(json.results.results.length, 3);
    assert.equal(
      readFileSync(join(dir, 'out', 'rows.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      3,
    );
    assert.match(r.stdout, /Wrote .*results\.json/);
    const other = await evalIn(dir, ['-o', 'mine.csv']);
    assert.equal(other.code, 0, other.stderr);
    assert.ok(existsSync(join(dir, 'mine.csv')));
    assert.doesNotMatch(other.stdout, /Wrote .*results\.json/);
  });

  it('commandLineOptions.grader is the default grader (checked like --grader)', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers: [echo]
commandLineOptions: {grader: nope:model}
tests:
  - {vars: {q: a}, assert: [{type: llm-rubric, value: fine}]}
`);
    const r = await evalIn(dir);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /commandLineOptions\.grader nope:model: unknown provider/);
  });

  it('a delay sends one request at a time even with -j (with a warning), as promptfoo does', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${mock.baseUrl}'}
    env: {OPENAI_API_KEY: sk-provider-env-0042}
evaluateOptions: {delay: 1}
${TESTS}`);
    mock.resetStats();
    const r = await evalIn(dir, ['-j', '4', '--no-cache']);
    assert.ok(r.code === 0 || r.code === 1, r.stdout + r.stderr);
    assert.match(r.stderr, /-j 4 ignored: with a delay of 1 ms requests go one at a time/);
    assert.equal(mock.stats().requests, 3);
    assert.equal(mock.stats().maxInFlight, 1);
    assert.equal(r.manifest?.options.maxConcurrency, 1);
    assert.equal(r.manifest?.options.delayMs, 1);
    // The provider's own env gave it the key (the mock refuses any other); no value reached disk.
    assert.ok(
      r.results.every((x) => x.status !== 'error'),
      JSON.stringify(r.results.map((x) => x.error)),
    );
    for (const file of readdirSync(r.runDir))
      assert.ok(!readFileSync(join(r.runDir, file), 'utf8').includes('sk-provider-env-0042'), file);
  });

  it('provider env is that provider’s only: another provider does not see it', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers:
  - id: openai:chat:m
    label: keyed
    config: {apiBaseUrl: '${mock.baseUrl}'}
    env: {OPENAI_API_KEY: sk-provider-env-0042}
  - id: openai:chat:m
    label: bare
    config: {apiBaseUrl: '${mock.baseUrl}'}
tests: [{vars: {q: a}}]
`);
    const r = await evalIn(dir, ['--no-cache'], { OPENAI_API_KEY: 'sk-wrong-key-9999' });
    const byProvider = Object.fromEntries(r.results.map((x) => [x.providerId, x.status]));
    assert.deepEqual(byProvider, { keyed: 'pass', bare: 'error' });
  });

  it('timeoutMs and maxEvalTimeMs make unfinished jobs errors, and the run still ends', async () => {
    // The provider waits 10 minutes after each call: only a time limit can end these jobs.
    const config = (options: string) => `prompts: ['{{q}}']
providers: [{id: echo, delay: 600000}]
evaluateOptions: ${options}
${TESTS}`;
    const timeout = await evalIn(suiteDir(config('{timeoutMs: 300}')));
    assert.equal(timeout.code, 3);
    assert.deepEqual(
      timeout.results.map((r) => r.error),
      Array(3).fill('Evaluation timed out after 300 ms'),
    );
    assert.equal(timeout.manifest?.options.jobTimeoutMs, 300);
    const budget = await evalIn(suiteDir(config('{maxEvalTimeMs: 300, maxConcurrency: 1}')));
    assert.equal(budget.code, 3);
    assert.deepEqual(
      budget.results.map((r) => r.error),
      Array(3).fill('Evaluation exceeded max duration of 300 ms'),
    );
  });

  it('a timeoutMs beyond 2^31 ms is a long limit, not one that ends every job at once', async () => {
    // A Node timer fires at once beyond 2^31-1 ms (the start build errored every job here).
    const r = await evalIn(
      suiteDir(`prompts: ['{{q}}']
providers: [{id: echo, delay: 50}]
evaluateOptions: {timeoutMs: 3000000000}
${TESTS}`),
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(
      r.results.map((x) => x.error),
      Array(3).fill(undefined),
    );
    assert.doesNotMatch(r.stderr, /TimeoutOverflowWarning/);
  });

  it('commandLineOptions.envPath is read when --env-file is not given', async () => {
    const dir = suiteDir(
      `prompts: ['{{q}}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${mock.baseUrl}'}
commandLineOptions: {envPath: keys.env}
tests: [{vars: {q: a}, assert: [{type: contains, value: a}]}]
`,
      { 'keys.env': 'OPENAI_API_KEY=sk-provider-env-0042\n', 'other.env': 'UNUSED=1\n' },
    );
    const r = await evalIn(dir, ['--no-cache']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const replaced = await evalIn(dir, ['--no-cache', '--env-file', 'other.env']);
    assert.equal(replaced.code, 3);
  });

  it('commandLineOptions.envPath is relative to the config, overrides .env, and reaches templates', async () => {
    const dir = suiteDir('prompts: [x]\nproviders: [echo]\ntests: [{vars: {q: a}}]\n');
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    writeFileSync(join(dir, '.env'), 'FOO=from-dotenv\n');
    writeFileSync(join(dir, 'b.env'), 'FOO=wrong-folder\n');
    writeFileSync(join(sub, 'b.env'), 'FOO=from-envpath\n');
    writeFileSync(
      join(sub, 'c.yaml'),
      "prompts: ['{{ env.FOO }}']\nproviders: [echo]\ncommandLineOptions: {envPath: b.env}\ntests: [{vars: {q: a}}]\n",
    );
    const r = await evalIn(dir, [join('sub', 'c.yaml')]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.results[0].prompt.text, 'from-envpath');
  });

  it('--env-file still lets .env fill in what it leaves unset (promptfoo 0.123)', async () => {
    const dir = suiteDir(
      `prompts: ['{{q}} {{ env.GREETING }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${mock.baseUrl}'}
tests: [{vars: {q: a}}]
`,
      { '.env': 'OPENAI_API_KEY=sk-provider-env-0042\nGREETING=salut\n', 'x.env': 'GREETING=bonjour\n' },
    );
    const r = await evalIn(dir, ['--no-cache', '--env-file', 'x.env']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.results[0].prompt.text, 'a bonjour');
  });

  it('combines several -c as promptfoo does: tests concatenated, identical prompts and providers once', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']\nproviders: [echo]\n${TESTS}`, {
      'b/promptfooconfig.yaml': `prompts: ['{{q}}', 'B {{q}}']\nproviders: [echo]\ntests: file://t.yaml\n`,
      'b/t.yaml': '- {description: delta, vars: {q: d}, assert: [{type: contains, value: B}]}\n',
    });
    const r = await evalIn(dir, ['-c', 'promptfooconfig.yaml', '-c', 'b/promptfooconfig.yaml']);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.results.map((x) => `${x.case.description} ${x.prompt.text} ${x.status}`).sort(), [
      'alpha B a pass',
      'alpha a pass',
      'beta B b pass',
      'beta b pass',
      'delta B d pass',
      'delta d fail',
      'gamma B c pass',
      'gamma c pass',
    ]);
  });

  it('reports a problem in the second -c config at its own file and line (exit 2)', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']\nproviders: [echo]\n${TESTS}`, {
      'b/promptfooconfig.yaml': `prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - {vars: {q: x}, assert: [{type: contains}]}\n`,
    });
    const r = await evalIn(dir, ['-c', 'promptfooconfig.yaml', '-c', 'b/promptfooconfig.yaml']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /b\/promptfooconfig\.yaml:4:/);
  });
});

describe('PROMPTFOO_PASS_RATE_THRESHOLD and PROMPTFOO_FAILED_TEST_EXIT_CODE', () => {
  const config = `prompts: ['{{q}}']
providers: [echo]
${TESTS}  - {description: delta, vars: {q: d}, assert: [{type: contains, value: zzz}]}
`;
  it('set, they decide a complete run’s exit code as promptfoo does (errors count against)', async () => {
    const dir = suiteDir(config);
    assert.equal((await evalIn(dir)).code, 1);
    assert.equal((await evalIn(dir, [], { PROMPTFOO_PASS_RATE_THRESHOLD: '75' })).code, 0);
    assert.equal((await evalIn(dir, [], { PROMPTFOO_PASS_RATE_THRESHOLD: '80' })).code, 100);
    assert.equal(
      (await evalIn(dir, [], { PROMPTFOO_PASS_RATE_THRESHOLD: '80', PROMPTFOO_FAILED_TEST_EXIT_CODE: '7' }))
        .code,
      7,
    );
  });
});
