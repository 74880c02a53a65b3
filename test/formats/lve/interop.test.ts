// Replay of every recorded instance of the public LVE repository (../shared/fixtures/lve,
// Apache-2.0) through the real CLI, on a copy of the fixture as it is (upstream's own
// `checker/checker.py` files included): each result must be what REPLAY_EXPECTATIONS.json says
// `lve unit-test` semantics give. Without ../shared it skips, saying so.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { sharedDir } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const lveDir = join(sharedDir, 'fixtures', 'lve');
const expectationsPath = join(lveDir, 'REPLAY_EXPECTATIONS.json');

interface Expectation {
  instance_file: string;
  line: number;
  checker: string;
  recorded_passed: boolean;
  status: 'agree' | 'disagree' | 'reference_error' | 'not_recomputed_needs_ml_or_network';
  intended_passed?: boolean;
}

if (!existsSync(expectationsPath)) {
  describe('LVE replay of the public repository', () => {
    it(`needs ${lveDir}`, {
      skip: `not run: ${lveDir} is not present (the LVE repository's files live beside the project in ../shared)`,
    }, () => {});
  });
} else {
  describe('LVE replay of the public repository', () => {
    const tmp = tempDir('assay-lve-interop-');
    after(() => tmp.cleanup());

    it('gives every one of the 228 recorded instances the verdict REPLAY_EXPECTATIONS.json expects', async () => {
      const repo = join(tmp.dir, 'lve');
      cpSync(lveDir, repo, { recursive: true });
      const out = join(tmp.dir, 'replay.jsonl');
      const r = await runCli(
        ['eval', repo, '--replay', '--no-progress', '--runs-dir', join(tmp.dir, 'runs'), '-o', out],
        { env: cleanEnv },
      );
      // 58 instances need a model or the network, which assay does not have: errors, so exit 3.
      assert.equal(r.code, 3, r.stderr);
      const results = new Map<string, JobResult>();
      for (const line of readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
        const result = JSON.parse(line) as JobResult;
        results.set(String(result.case.ref), result);
      }
      const { instances } = JSON.parse(readFileSync(expectationsPath, 'utf8')) as {
        instances: Expectation[];
      };
      assert.equal(instances.length, 228);
      assert.equal(results.size, 228);
      const counts: Record<string, number> = {};
      for (const e of instances) {
        const result = results.get(`${e.instance_file}:${e.line + 1}`);
        assert.ok(result, `${e.instance_file}:${e.line + 1} has no result`);
        const want =
          e.status === 'agree'
            ? 'pass'
            : e.status === 'disagree'
              ? 'fail'
              : e.status === 'reference_error'
                ? e.intended_passed === e.recorded_passed
                  ? 'pass'
                  : 'fail'
                : 'error';
        assert.equal(
          result.status,
          want,
          `${e.instance_file}:${e.line + 1} (${e.checker}, ${e.status}): ${result.reason}`,
        );
        if (want === 'error') assert.match(result.reason, /needs .* which assay does not have/);
        if (want === 'fail')
          assert.match(result.reason, /checker says passed=false, the instance recorded passed=true/);
        counts[result.status] = (counts[result.status] ?? 0) + 1;
      }
      assert.deepEqual(counts, { pass: 166, fail: 4, error: 58 });
    });
  });
}
