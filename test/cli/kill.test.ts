import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import { readResults } from '../../src/runlog/reader.js';
import { childEnv, cleanEnv } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';
import { waitFor } from '../support/processes.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-kill-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

function lineCount(path: string): number {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0;
}

describe('a run killed with SIGKILL', () => {
  it('leaves a manifest and a results.jsonl holding every job completed before the kill', async () => {
    const suite = writeWordSuite(join(tmp.dir, 'suite'), {
      tests: 400,
      baseUrl: `${mock.url}/_/latency_ms=15/v1`,
      prompt: 'Echo',
      model: 'slow',
    });
    const runsDir = join(tmp.dir, 'runs');
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'assay.js'), 'eval', suite, '-j', '4', '--no-progress', '--runs-dir', runsDir],
      {
        stdio: 'ignore',
        env: childEnv(cleanEnv),
      },
    );
    const exited = once(child, 'exit');
    // Wait (bounded) until some results are on disk, then kill without warning. From that look on
    // the mock holds every request, so the run cannot finish before the kill however slow the machine.
    const resultsPath =
      (await waitFor(() => {
        const runs = existsSync(runsDir) ? readdirSync(runsDir) : [];
        const path = runs.length === 1 ? join(runsDir, runs[0], 'results.jsonl') : '';
        return lineCount(path) >= 30 ? path : undefined;
      }, 120_000)) ?? '';
    const release = mock.hold();
    child.kill('SIGKILL');
    await exited;
    release();
    assert.ok(lineCount(resultsPath) >= 30, 'the run made progress before the kill');
    const runDir = join(resultsPath, '..');
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    assert.equal(manifest.status, 'running', 'a killed run is recognisably unfinished');
    assert.equal(manifest.plannedJobs, 400);
    const bad: number[] = [];
    const results: JobResult[] = [];
    for await (const r of readResults(runDir, (n) => bad.push(n))) results.push(r);
    assert.deepEqual(bad, [], 'no damaged line before the end');
    assert.ok(results.length >= 30 && results.length < 400, `${results.length} results`);
    assert.equal(new Set(results.map((r) => r.key)).size, results.length, 'no job twice');
    for (const r of results) {
      assert.equal(r.status, 'pass');
      assert.equal(r.output, `Echo ${r.case.vars.word}`);
    }
  });
});
