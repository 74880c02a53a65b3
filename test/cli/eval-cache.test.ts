import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-evalcache-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

let n = 0;
function writeSuite(tests: number, faults = ''): string {
  const baseUrl = faults ? `${mock.url}/_/${faults}/v1` : mock.baseUrl;
  return writeWordSuite(join(tmp.dir, `suite-${n++}`), {
    tests,
    baseUrl,
    prompt: 'Repeat',
    providerConfig: { temperature: 0.7 },
  });
}

/** Runs eval with a given cache file; returns the exit code, stdout, the results and how many requests the server saw. */
async function evalWith(suite: string, cachePath: string | undefined, extra: string[] = []) {
  const runsDir = join(tmp.dir, `runs-${n++}`);
  mock.resetStats();
  const cacheArgs = cachePath ? ['--cache-path', cachePath] : ['--no-cache'];
  const res = await runCli(['eval', suite, '--no-progress', '--runs-dir', runsDir, ...cacheArgs, ...extra], {
    env: cleanEnv,
  });
  const [id] = readdirSync(runsDir);
  const results: JobResult[] = readFileSync(join(runsDir, id, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { ...res, results, requests: mock.stats().requests };
}

describe('response cache in assay eval', () => {
  it('a rerun is answered from the cache with the same verdicts, and says so', async () => {
    const suite = writeSuite(50);
    const cache = join(tmp.dir, 'c1.sqlite');
    const first = await evalWith(suite, cache);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.requests, 50);
    assert.ok(first.results.every((r) => !r.answer.cached));
    const second = await evalWith(suite, cache);
    assert.equal(second.code, 0);
    assert.equal(second.requests, 0, 'nothing sent');
    assert.ok(second.results.every((r) => r.answer.cached === true && r.answer.attempts === 0));
    assert.match(second.stdout, /50 cached/);
    const verdicts = (rs: JobResult[]) =>
      rs.map((r) => `${r.key}|${r.status}|${r.output}|${r.answer.usage?.total}`).sort();
    assert.deepEqual(verdicts(second.results), verdicts(first.results));
    const stats = await runCli(['cache', 'stats', '--cache-path', cache]);
    assert.match(stats.stdout, /entries\D+50/);
  });

  it('--repeat N samples N times and a rerun reuses all N; a higher N asks only for the new trials', async () => {
    const suite = writeSuite(10);
    const cache = join(tmp.dir, 'c2.sqlite');
    assert.equal((await evalWith(suite, cache, ['--repeat', '3'])).requests, 30);
    assert.equal((await evalWith(suite, cache, ['--repeat', '3'])).requests, 0);
    const four = await evalWith(suite, cache, ['--repeat', '4']);
    assert.equal(four.requests, 10);
    assert.deepEqual([...new Set(four.results.filter((r) => !r.answer.cached).map((r) => r.trial))], [3]);
  });

  it('--no-cache neither reads nor fills it', async () => {
    const suite = writeSuite(10);
    const cache = join(tmp.dir, 'c3.sqlite');
    await evalWith(suite, cache);
    assert.equal((await evalWith(suite, undefined)).requests, 10);
  });

  it('errors are never cached: a failed request is sent again next run', async () => {
    const suite = writeSuite(10, 'fail_500=1&fault_attempts=1');
    const cache = join(tmp.dir, 'c4.sqlite');
    mock.resetStats();
    const first = await evalWith(suite, cache, ['--max-retries', '0']);
    assert.equal(first.code, 3);
    assert.equal(first.results.filter((r) => r.status === 'error').length, 10);
    // evalWith resets the mock's attempt counters, so run the second attempt without that reset.
    const runsDir = join(tmp.dir, 'runs-errors-2');
    const res = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', runsDir, '--cache-path', cache, '--max-retries', '1'],
      {
        env: cleanEnv,
      },
    );
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /10 jobs: 10 passed/);
    assert.doesNotMatch(res.stdout, /cached/);
  });

  it('two assay processes can share one cache file', async () => {
    const suite = writeSuite(300);
    const cache = join(tmp.dir, 'shared.sqlite');
    const [a, b] = await Promise.all([
      runCli(
        [
          'eval',
          suite,
          '--no-progress',
          '--runs-dir',
          join(tmp.dir, 'ra'),
          '--cache-path',
          cache,
          '-j',
          '16',
        ],
        { env: cleanEnv },
      ),
      runCli(
        [
          'eval',
          suite,
          '--no-progress',
          '--runs-dir',
          join(tmp.dir, 'rb'),
          '--cache-path',
          cache,
          '-j',
          '16',
        ],
        { env: cleanEnv },
      ),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const third = await evalWith(suite, cache);
    assert.equal(third.requests, 0, 'every answer landed in the shared cache');
  });

  it('a file that is not a cache is refused with exit 2 before anything runs', async () => {
    const suite = writeSuite(3);
    const bogus = join(tmp.dir, 'not-a-cache.sqlite');
    writeFileSync(bogus, 'hello, I am text');
    const res = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', join(tmp.dir, 'rx'), '--cache-path', bogus],
      { env: cleanEnv },
    );
    assert.equal(res.code, 2);
    assert.match(res.stderr, /not-a-cache\.sqlite/);
  });
});
