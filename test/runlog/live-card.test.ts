// A fresh run builds its scorecard as its results are logged and writes its -o files from the
// index its writer kept (no re-read of results.jsonl): the card must equal the one re-read from the
// log, and the lines in plan order must be byte for byte those a scan of the log gives.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { metadataBreakdowns } from '../../src/analysis/metadata.js';
import { scorecardOfRun } from '../../src/analysis/scorecard.js';
import type { JobResult } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { liveLineIndex, readResults, resultLinesInPlanOrder, setLiveIndex } from '../../src/runlog/reader.js';
import { RunWriter } from '../../src/runlog/writer.js';
import { runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture } from '../support/paths.js';
import { writeFiles } from '../support/runs.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-live-card-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

/** A value as JSON reads it back (undefined fields gone): what "JSON-equal" compares. */
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of lines) out.push(l);
  return out;
}

/** The run's lines in plan order from this process's live index, then from a scan of the log. */
async function liveAndScanned(runDir: string): Promise<{ live: string[]; scanned: string[] }> {
  const path = join(runDir, 'results.jsonl');
  const index = liveLineIndex(path);
  assert.ok(index, `${runDir}: the writer left no live index`);
  const live = await collect(resultLinesInPlanOrder(runDir));
  setLiveIndex(path, undefined);
  const scanned = await collect(resultLinesInPlanOrder(runDir));
  setLiveIndex(path, index);
  return { live, scanned };
}

/** Every file under test/fixtures that may be a suite (config files, pramana sets, folders of other formats). */
function fixtureSuites(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (/(^|\/)(ewebench\/mini|apastra\/ws\/[^/]+)$/.test(relative(fixture(), path))) out.push(path);
        else walk(path);
      } else if (
        /\.(ya?ml)$/.test(name) ||
        (/pramana\/v1\.0\/[^/]+\.jsonl$/.test(path) && !name.startsWith('.'))
      )
        out.push(path);
    }
  };
  walk(fixture());
  return out;
}

describe('the live scorecard and plan-order index', () => {
  it('equal the card and the lines re-read from the log, on every fixture suite that runs offline on echo', async (t) => {
    const compared: string[] = [];
    const refused: string[] = [];
    for (const suitePath of fixtureSuites()) {
      const runsDir = join(tmp.dir, 'fixtures', String(compared.length + refused.length));
      let result: Awaited<ReturnType<typeof evaluate>> | undefined;
      let refusal = '';
      // On echo; a suite with a grader (llm-rubric, similar…) has it answered by the mock server.
      for (const env of [{}, { OPENAI_API_KEY: 'sk-mock-grader', OPENAI_BASE_URL: mock.baseUrl }]) {
        try {
          result = await evaluate({
            suitePath,
            providers: ['echo'],
            runsDir,
            cache: false,
            env,
            maxRunMs: 30_000,
          });
          break;
        } catch (err) {
          // Not a suite, or one that needs what this machine has not: nothing ran.
          refusal = (err as Error).message.split('\n')[0];
        }
      }
      if (!result) {
        refused.push(`${relative(fixture(), suitePath)}: ${refusal}`);
        continue;
      }
      const name = relative(fixture(), suitePath);
      const reread = await scorecardOfRun(result.runDir);
      assert.deepEqual(
        json(result.scorecard),
        json(reread),
        `${name}: live card ≠ card re-read from the log`,
      );
      assert.deepEqual(
        JSON.parse(readFileSync(join(result.runDir, 'scorecard.json'), 'utf8')),
        json(reread),
        `${name}: scorecard.json`,
      );
      const { live, scanned } = await liveAndScanned(result.runDir);
      assert.deepEqual(live, scanned, `${name}: lines in plan order`);
      // The report's metadata breakdowns: a copy of the run (no live card in this process) is read.
      const copy = `${result.runDir}-copy`;
      cpSync(result.runDir, copy, { recursive: true });
      assert.deepEqual(
        await metadataBreakdowns(result.runDir),
        await metadataBreakdowns(copy),
        `${name}: breakdowns`,
      );
      compared.push(`${name} (${result.scorecard.counts.total} jobs)`);
    }
    // The fixtures hold suites of every format; most run on echo.
    t.diagnostic(
      `compared ${compared.length}: ${compared.join(', ')}; not run ${refused.length}: ${refused.join('; ')}`,
    );
    assert.ok(compared.length >= 45, `only ${compared.length} fixture suites ran:\n${refused.join('\n')}`);
  });

  it('-j 8 on the mock (answers out of order): -o files and scorecard equal those of assay report', async () => {
    const dir = writeWordSuite(join(tmp.dir, 'mock-j8'), {
      tests: 60,
      baseUrl: `${mock.url}/_/latency_ms=1&latency_jitter_ms=15/v1`,
      prompt: 'Repeat',
      fails: (i) => i % 4 === 0,
      describe: true,
    });
    const runsDir = join(tmp.dir, 'mock-j8-runs');
    const out = join(tmp.dir, 'mock-j8-out');
    const env = { OPENAI_API_KEY: 'sk-test-not-secret', OPENAI_BASE_URL: undefined };
    const files = ['out.json', 'out.csv', 'out.jsonl', 'out.xml', 'out.md'];
    const run = await runCli(
      [
        'eval',
        dir,
        '-j',
        '8',
        '--no-progress',
        '--runs-dir',
        runsDir,
        ...files.flatMap((f) => ['-o', join(out, f)]),
      ],
      { env },
    );
    assert.equal(run.code, 1, run.stderr);
    const [id] = readdirSync(runsDir);
    const runDir = join(runsDir, id);
    // The answers came back out of plan order: the log is not in plan order, the outputs are.
    const logged = readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim().split('\n');
    const indexes = logged.map((l) => (JSON.parse(l) as JobResult).caseIndex);
    assert.notDeepEqual(
      indexes,
      [...indexes].sort((a, b) => a - b),
      'the mock answered in order',
    );
    for (const f of files) {
      const again = await runCli(['report', runDir, '-o', join(out, `scan-${f}`)], { env });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(
        readFileSync(join(out, f), 'utf8'),
        readFileSync(join(out, `scan-${f}`), 'utf8'),
        `${f}: written from the live index ≠ written by assay report from the log`,
      );
    }
    const report = await runCli(['report', runDir, '--json'], { env });
    assert.equal(report.code, 0, report.stderr);
    assert.deepEqual(
      JSON.parse(readFileSync(join(runDir, 'scorecard.json'), 'utf8')),
      JSON.parse(report.stdout),
    );
  });

  it('a resumed run seeds its card from the log it resumes, and equals the card re-read', async () => {
    const dir = writeWordSuite(join(tmp.dir, 'resume'), {
      tests: 30,
      baseUrl: `${mock.url}/_/latency_jitter_ms=5/v1`,
      prompt: 'Repeat',
      fails: (i) => i % 3 === 0,
    });
    const runsDir = join(tmp.dir, 'resume-runs');
    const env = { OPENAI_API_KEY: 'sk-test-not-secret' };
    const first = await evaluate({ suitePath: dir, runsDir, cache: false, env, maxConcurrency: 4 });
    // Cut the log to its first 11 lines, as a run killed there leaves it (plus a torn line).
    const log = join(first.runDir, 'results.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    writeFileSync(log, `${lines.slice(0, 11).join('\n')}\n${lines[11].slice(0, 20)}`);
    const resumed = await evaluate({ suitePath: dir, runsDir, cache: false, env, resume: first.runDir });
    assert.equal(resumed.resumedJobs, 11);
    assert.equal(resumed.scorecard.counts.total, 30);
    assert.deepEqual(json(resumed.scorecard), json(await scorecardOfRun(first.runDir)));
    // The resumed log held lines before this process appended: its lines come from a scan.
    assert.equal(liveLineIndex(log), undefined);
  });

  it('a run with secrets keeps them out of the live card (failure notes, vars, outputs) as out of the log', async () => {
    const secret = 'sk-live-card-0123456789abcdef';
    const dir = writeFiles(join(tmp.dir, 'secrets'), {
      'promptfooconfig.yaml': [
        "prompts: ['Say {{word}} now']",
        'providers: [echo]',
        'tests:',
        '  - vars: {word: plain}',
        '    assert: [{type: contains, value: absent}]',
        `  - description: uses ${secret}`,
        `    vars: {word: "key ${secret} here"}`,
        '    metadata: {group: a}',
        '    assert: [{type: contains, value: absent}]',
        `  - vars: {word: "${secret}"}`,
        '    assert: [{type: contains, value: Say}]',
        '',
      ].join('\n'),
    });
    const runsDir = join(tmp.dir, 'secrets-runs');
    const result = await evaluate({ suitePath: dir, runsDir, cache: false, env: { MY_API_KEY: secret } });
    const card = JSON.stringify(result.scorecard);
    assert.ok(!card.includes(secret), card);
    assert.ok(card.includes('[redacted]'), card);
    assert.deepEqual(json(result.scorecard), json(await scorecardOfRun(result.runDir)));
    const { live, scanned } = await liveAndScanned(result.runDir);
    assert.deepEqual(live, scanned);
    assert.ok(!live.join('\n').includes(secret));
  });

  it('a log written out of plan order with a position twice: the index gives the lines a scan gives', async () => {
    // Results of a real run, appended again by a writer of its own: reversed, one of them twice.
    const source = await evaluate({
      suitePath: writeWordSuite(join(tmp.dir, 'dup'), { tests: 12, baseUrl: mock.baseUrl, prompt: 'Say' }),
      providers: ['echo'],
      repeat: 2,
      runsDir: join(tmp.dir, 'dup-runs'),
      cache: false,
      env: {},
    });
    const results: JobResult[] = [];
    for await (const r of readResults(source.runDir)) results.push(r);
    const manifest = JSON.parse(readFileSync(join(source.runDir, 'manifest.json'), 'utf8'));
    const writer = RunWriter.create(join(tmp.dir, 'dup-copy'), { ...manifest, runId: 'copy' }, 3);
    const order = [...results].reverse();
    order.splice(5, 0, { ...results[7], output: 'logged twice: the first line of a position wins' });
    for (const r of order) writer.append(r);
    writer.close();
    const runDir = join(tmp.dir, 'dup-copy', 'copy');
    const { live, scanned } = await liveAndScanned(runDir);
    assert.equal(live.length, results.length);
    assert.deepEqual(live, scanned);
    // And a writer whose lines came in plan order copies them as they lie.
    const inOrder = RunWriter.create(join(tmp.dir, 'dup-copy'), { ...manifest, runId: 'in-order' }, 1);
    const planned = [...results].sort((a, b) => a.caseIndex - b.caseIndex || a.trial - b.trial);
    for (const r of planned) inOrder.append(r);
    inOrder.close();
    const ordered = await liveAndScanned(join(tmp.dir, 'dup-copy', 'in-order'));
    assert.equal(liveLineIndex(join(tmp.dir, 'dup-copy', 'in-order', 'results.jsonl'))?.inOrder, true);
    assert.deepEqual(ordered.live, ordered.scanned);
    assert.deepEqual(
      ordered.live,
      readFileSync(join(tmp.dir, 'dup-copy', 'in-order', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    );
    assert.ok(existsSync(join(tmp.dir, 'dup-copy', 'copy', 'manifest.json')));
  });
});
