// `assay eval` selection and input flags end to end: --filter-*, --seed, --var, --env-file, .env,
// --delay, and resume's check that a run continues with the selection it started with.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { evalIn, readRun, runDirsOldestFirst, writeSuiteDir } from '../support/runs.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-filters-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ faults: { requireKey: 'sk-from-env-file-0042' } });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});
let n = 0;

/** A fresh folder holding `promptfooconfig.yaml` (and any other files given). */
function suiteDir(config: string, files: Record<string, string> = {}): string {
  return writeSuiteDir(join(tmp.dir, `suite-${n++}`), config, files);
}

const runs = runDirsOldestFirst;

const TWO_BY_TWO = `prompts:
  - {raw: 'short {{q}}', label: short}
  - {raw: 'long {{q}}', label: long}
providers:
  - {id: echo, label: fast}
  - {id: echo, label: slow}
tests:
  - vars: {q: one}
  - vars: {q: two}
`;

describe('assay eval --filter-providers / --filter-targets / --filter-prompts', () => {
  it('keeps the providers and prompts whose label or id matches', async () => {
    const dir = suiteDir(TWO_BY_TWO);
    const byProvider = await evalIn(dir, ['--filter-providers', '^sl']);
    assert.equal(byProvider.code, 0, byProvider.stderr);
    const byTarget = await evalIn(dir, ['--filter-targets', 'fast', '--filter-prompts', 'long']);
    assert.equal(byTarget.code, 0, byTarget.stderr);
    const [first, second] = runs(dir).map(readRun);
    assert.deepEqual([...new Set(first.results.map((r) => r.providerId))], ['slow']);
    assert.equal(first.results.length, 4);
    assert.deepEqual(
      second.results.map((r) => `${r.providerId} ${r.output}`),
      ['fast long one', 'fast long two'],
    );
    assert.deepEqual(second.manifest.options.selection, { filters: { providers: 'fast', prompts: 'long' } });
    assert.deepEqual(
      second.manifest.suite.prompts.map((p) => p.label),
      ['long'],
    );
  });

  it('refuses a bad regular expression, and both alias flags at once, with exit 2', async () => {
    const dir = suiteDir(TWO_BY_TWO);
    const bad = await evalIn(dir, ['--filter-prompts', '(']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--filter-prompts \(: not a valid regular expression/);
    const both = await evalIn(dir, ['--filter-providers', 'a', '--filter-targets', 'b']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--filter-providers or --filter-targets, not both/);
  });
});

describe('assay eval --filter-sample and --seed', () => {
  const config = `prompts: ['{{q}}']
providers: [echo]
tests:
${Array.from({ length: 12 }, (_, i) => `  - vars: {q: t${i}}`).join('\n')}
`;

  it('draws N tests; the same seed draws the same ones; a missing seed is drawn, printed and recorded', async () => {
    const dir = suiteDir(config);
    const a = await evalIn(dir, ['--filter-sample', '4', '--seed', '99']);
    const b = await evalIn(dir, ['--filter-sample', '4', '--seed', '99']);
    const c = await evalIn(dir, ['--filter-sample', '3']);
    for (const r of [a, b, c]) assert.equal(r.code, 0, r.stderr);
    const [ra, rb, rc] = runs(dir).map(readRun);
    const picked = (r: { results: JobResult[] }) => r.results.map((x) => String(x.case.vars.q)).sort();
    assert.equal(picked(ra).length, 4);
    assert.deepEqual(picked(ra), picked(rb));
    assert.equal(picked(rc).length, 3);
    const seed = rc.manifest.options.selection?.filters?.seed;
    assert.equal(typeof seed, 'number');
    assert.match(c.stderr, new RegExp(`--filter-sample drew with seed ${seed} \\(give --seed ${seed}`));
    const again = await evalIn(dir, ['--filter-sample', '3', '--seed', String(seed)]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(picked(readRun(runs(dir)[3])), picked(rc));
  });

  it('refuses --seed without --filter-sample (exit 2)', async () => {
    const r = await evalIn(suiteDir(config), ['--seed', '3']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--seed goes with --filter-sample/);
  });
});

describe('assay eval --filter-failing', () => {
  const config = `prompts: ['{{q}}']
providers: [echo]
tests:
  - {description: ok, vars: {q: a}, assert: [{type: contains, value: a}]}
  - {description: bad, vars: {q: b}, assert: [{type: contains, value: zzz}]}
  - {description: broken, vars: {q: c}, assert: [{type: contains, value: '{{nothing}}'}]}
  - {description: fine, vars: {q: d}}
`;

  it('re-runs what failed or errored in an earlier run (by run id) and in a promptfoo results JSON', async () => {
    const dir = suiteDir(config);
    const first = await evalIn(dir, ['-o', 'pf.json', '--output-format', 'promptfoo']);
    assert.equal(first.code, 3, first.stderr);
    const runId = readRun(runs(dir)[0]).manifest.runId;
    const byRun = await evalIn(dir, ['--filter-failing', runId]);
    assert.equal(byRun.code, 3, byRun.stderr);
    assert.match(byRun.stdout, /Filters kept 2 of 4 test cases/);
    const second = readRun(runs(dir)[1]);
    assert.deepEqual(second.results.map((r) => r.case.description).sort(), ['bad', 'broken']);
    assert.equal(second.manifest.options.selection?.filters?.failing, runs(dir)[0]);
    const byJson = await evalIn(dir, ['--filter-failing', 'pf.json']);
    assert.equal(byJson.code, 3, byJson.stderr);
    assert.deepEqual(
      readRun(runs(dir)[2])
        .results.map((r) => r.case.description)
        .sort(),
      ['bad', 'broken'],
    );
  });

  it("assay's own -o JSON selects by the failing rows' vars (case.vars; an older file's top-level vars)", async () => {
    const dir = suiteDir(`prompts: ['x {{q}}']
providers: [echo]
tests:
  - {description: bad, vars: {q: b}, assert: [{type: contains, value: zzz}]}
  - {description: plain, assert: [{type: contains, value: x}]}
`);
    assert.equal((await evalIn(dir, ['-o', 'out.json'])).code, 1);
    // The failing row's vars are {q: b}: the case with no vars passed and is not selected.
    const byJson = await evalIn(dir, ['--filter-failing', 'out.json']);
    assert.equal(byJson.code, 1, byJson.stderr);
    assert.deepEqual(
      readRun(runs(dir)[1]).results.map((r) => r.case.description),
      ['bad'],
    );
    // A file of the layout before run-log version 2 (vars beside the status), its case id unknown now.
    writeFileSync(
      join(dir, 'old.json'),
      JSON.stringify({ results: [{ status: 'fail', caseId: 'gone', vars: { q: 'b' } }] }),
    );
    const byOld = await evalIn(dir, ['--filter-failing', 'old.json']);
    assert.equal(byOld.code, 1, byOld.stderr);
    assert.deepEqual(
      readRun(runs(dir)[2]).results.map((r) => r.case.description),
      ['bad'],
    );
  });

  it('an earlier run with no failures selects nothing: exit 0', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers: [echo]
tests:
  - {vars: {q: a}, assert: [{type: contains, value: a}]}
`);
    assert.equal((await evalIn(dir, [])).code, 0);
    const r = await evalIn(dir, ['--filter-failing', readRun(runs(dir)[0]).manifest.runId]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Nothing to run: the filters selected no test/);
  });

  it('refuses a source that is neither a run nor a results file (exit 2)', async () => {
    const r = await evalIn(suiteDir(config), ['--filter-failing', 'no-such-run']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--filter-failing no-such-run: not a run id/);
  });
});

describe('assay eval --filter-failing-only / --filter-errors-only', () => {
  const config = `prompts: ['{{q}}']
providers: [echo]
tests:
  - {description: ok, vars: {q: a}, assert: [{type: contains, value: a}]}
  - {description: bad, vars: {q: b}, assert: [{type: contains, value: zzz}]}
  - {description: broken, vars: {q: c}, assert: [{type: contains, value: '{{nothing}}'}]}
  - {description: fine, vars: {q: d}}
`;
  const described = (run: string): string[] =>
    readRun(run)
      .results.map((r) => r.case.description ?? '')
      .sort();

  it('select only the failures, only the errors, or both, from a run id and from a promptfoo results JSON', async () => {
    const dir = suiteDir(config);
    assert.equal((await evalIn(dir, ['-o', 'pf.json', '--output-format', 'promptfoo'])).code, 3);
    const runId = readRun(runs(dir)[0]).manifest.runId;
    const failures = await evalIn(dir, ['--filter-failing-only', runId]);
    assert.equal(failures.code, 1, failures.stderr);
    const errors = await evalIn(dir, ['--filter-errors-only', 'pf.json']);
    assert.equal(errors.code, 3, errors.stderr);
    const both = await evalIn(dir, ['--filter-failing-only', 'pf.json', '--filter-errors-only', runId]);
    assert.equal(both.code, 3, both.stderr);
    const failuresJson = await evalIn(dir, ['--filter-failing-only', 'pf.json']);
    assert.equal(failuresJson.code, 1, failuresJson.stderr);
    const [, r1, r2, r3, r4] = runs(dir);
    assert.deepEqual(described(r1), ['bad']);
    assert.deepEqual(described(r2), ['broken']);
    assert.deepEqual(described(r3), ['bad', 'broken']);
    assert.deepEqual(described(r4), ['bad']);
    const recorded = readRun(r3).manifest.options.selection?.filters;
    assert.equal(recorded?.failingOnly, join(dir, 'pf.json'));
    assert.equal(recorded?.errorsOnly, runs(dir)[0]);
  });

  it('--filter-failing wins over one -only flag, as in promptfoo, and says so', async () => {
    const dir = suiteDir(config);
    await evalIn(dir, []);
    const runId = readRun(runs(dir)[0]).manifest.runId;
    const r = await evalIn(dir, ['--filter-failing', runId, '--filter-errors-only', runId]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /--filter-errors-only .* is ignored/);
    assert.deepEqual(described(runs(dir)[1]), ['bad', 'broken']);
  });

  it('refuses a source that is neither a run nor a results file, naming the flag (exit 2)', async () => {
    const r = await evalIn(suiteDir(config), ['--filter-errors-only', 'no-such-run']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--filter-errors-only no-such-run: not a run id/);
  });
});

describe('assay eval --filter-range', () => {
  it('keeps tests START to END-1 as written (a test whose list vars expand counts once)', async () => {
    const dir = suiteDir(`prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: [a, b]}
  - vars: {q: c}
  - vars: {q: d}
  - vars: {q: e}
`);
    const r = await evalIn(dir, ['--filter-range', '1:3']);
    assert.equal(r.code, 0, r.stderr);
    const open = await evalIn(dir, ['--filter-range', ':1']);
    assert.equal(open.code, 0, open.stderr);
    const [first, second] = runs(dir).map(readRun);
    assert.deepEqual(first.results.map((x) => x.output).sort(), ['c', 'd']);
    assert.deepEqual(first.manifest.options.selection?.filters?.range, { start: 1, end: 3 });
    assert.deepEqual(second.results.map((x) => x.output).sort(), ['a', 'b']);
  });

  it('refuses a range that is not START:END (exit 2, nothing runs)', async () => {
    const dir = suiteDir(TWO_BY_TWO);
    const r = await evalIn(dir, ['--filter-range', '3']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--filter-range 3: expected START:END/);
    const reversed = await evalIn(dir, ['--filter-range', '3:1']);
    assert.equal(reversed.code, 2);
    assert.match(reversed.stderr, /START must not be greater than END/);
  });
});

describe('assay eval --var', () => {
  it('is a default var: it beats defaultTest.vars, and a test’s own var beats it', async () => {
    const dir = suiteDir(`prompts: ['{{greeting}} {{name}}']
providers: [echo]
defaultTest:
  vars: {greeting: hello, name: default}
tests:
  - vars: {}
    assert: [{type: equals, value: 'hi world'}]
  - vars: {name: own}
    assert: [{type: equals, value: 'hi own'}]
`);
    const r = await evalIn(dir, ['--var', 'greeting=hi', '--var', 'name=world']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(readRun(runs(dir)[0]).manifest.options.selection, {
      vars: { greeting: 'hi', name: 'world' },
    });
  });

  it('refuses a --var without = (exit 2)', async () => {
    const r = await evalIn(suiteDir(TWO_BY_TWO), ['--var', 'novalue']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--var novalue: expected key=value/);
  });
});

describe('assay eval --env-file and .env', () => {
  const config = (baseUrl: string): string => `prompts: ['say {{q}} {{ env.GREETING }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: '${baseUrl}'}
tests:
  - {vars: {q: w1}, assert: [{type: contains, value: w1}]}
`;

  it('gives providers and {{ env.X }} the file’s values, overriding the shell, and writes no value to disk', async () => {
    const dir = suiteDir(config(mock.baseUrl), {
      'keys.env': 'OPENAI_API_KEY=sk-from-env-file-0042\nGREETING=bonjour\n',
    });
    const r = await evalIn(dir, ['--env-file', 'keys.env', '--no-cache'], {
      OPENAI_API_KEY: 'sk-shell-wrong',
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const runDir = runs(dir)[0];
    const { results } = readRun(runDir);
    assert.match(results[0].prompt.text, /say w1 bonjour/);
    for (const file of readdirSync(runDir))
      assert.ok(!readFileSync(join(runDir, file), 'utf8').includes('sk-from-env-file'), file);
  });

  it('reads .env in the suite folder when no --env-file is given, without overriding the shell', async () => {
    const dir = suiteDir(config(mock.baseUrl), {
      '.env': 'OPENAI_API_KEY=sk-from-env-file-0042\nGREETING=salut\n',
    });
    const fromDotenv = await evalIn(dir, ['--no-cache']);
    assert.equal(fromDotenv.code, 0, fromDotenv.stdout + fromDotenv.stderr);
    assert.match(readRun(runs(dir)[0]).results[0].prompt.text, /salut/);
    const shellWins = await evalIn(dir, ['--no-cache'], { GREETING: 'hallo' });
    assert.equal(shellWins.code, 0, shellWins.stdout + shellWins.stderr);
    assert.match(readRun(runs(dir)[1]).results[0].prompt.text, /hallo/);
  });

  it('refuses a missing env file (exit 2, nothing runs)', async () => {
    const dir = suiteDir(config(mock.baseUrl));
    // --env-path: Node 20 itself reads a script's `--env-file` argument and exits 9 when it is missing.
    const r = await evalIn(dir, ['--env-path', 'a.env,missing.env']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /a\.env: env file not found/);
    assert.match(r.stderr, /missing\.env: env file not found/);
  });
});

describe('assay eval --delay', () => {
  it('runs one request at a time and records the delay', async () => {
    const dir = writeWordSuite(join(tmp.dir, `words-${n++}`), {
      tests: 4,
      baseUrl: mock.baseUrl,
      prompt: 'echo',
    });
    mock.resetStats();
    const r = await evalIn(dir, ['--delay', '5', '--no-cache'], { OPENAI_API_KEY: 'sk-from-env-file-0042' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(mock.stats().requests, 4);
    assert.equal(mock.stats().maxInFlight, 1);
    const { manifest } = readRun(runs(dir)[0]);
    assert.equal(manifest.options.delayMs, 5);
    assert.equal(manifest.options.maxConcurrency, 1);
    const bad = await evalIn(dir, ['--delay', '-1']);
    assert.equal(bad.code, 2);
  });
});

describe('assay eval --resume with filters', () => {
  it('a bare --resume continues with the recorded filters; different filters are refused', async () => {
    const dir = suiteDir(TWO_BY_TWO);
    const first = await evalIn(dir, ['--filter-providers', 'fast']);
    assert.equal(first.code, 0, first.stderr);
    const runDir = runs(dir)[0];
    const refused = await evalIn(dir, ['--resume', runDir, '--filter-providers', 'slow']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /cannot resume: the filters or --var values differ/);
    const resumed = await evalIn(dir, ['--resume', runDir]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming with the filters and --var values the run was started with/);
    assert.match(resumed.stdout, /4 jobs were already done/);
    assert.equal(runs(dir).length, 1);
    assert.equal(readRun(runDir).results.length, 4);
  });

  it('a --var whose name looks secret is not recorded, so a bare --resume asks for it again', async () => {
    const dir = suiteDir(TWO_BY_TWO);
    const first = await evalIn(dir, ['--var', 'api_key=hunter2-secret']);
    assert.equal(first.code, 0, first.stderr);
    const runDir = runs(dir)[0];
    assert.ok(!readFileSync(join(runDir, 'manifest.json'), 'utf8').includes('hunter2-secret'));
    const bare = await evalIn(dir, ['--resume', runDir]);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /give the same --var flags again/);
    const again = await evalIn(dir, ['--resume', runDir, '--var', 'api_key=hunter2-secret']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /8 jobs were already done/);
  });
});
