// The structured answer, read as promptfoo reads it: the OpenAI, Azure and OpenAI-compatible ids
// of test/fixtures/promptfoo-providers/ run by assay against the scripted server
// (test/support/mock-providers.ts), and every row of its `--output-format promptfoo` file
// compared whole with the row promptfoo 0.123.1 wrote for the same answer (expected.json, by
// scripts/promptfoo-provider-record.js): output as a value, finish reason, token usage, cost,
// score, success, failure reason, and each assertion's verdict and reason.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../support/cli.js';
import { type MockProviders, startMockProviders } from '../../support/mock-providers.js';
import { repoRoot } from '../../support/paths.js';
import { type ComparableRow, comparableRow } from '../../support/pf-rows.js';
import { tempDir } from '../../support/tmp.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'promptfoo-providers');
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  exit: number;
  rows: ComparableRow[];
};
const tmp = tempDir('assay-provider-rows-');
let server: MockProviders;
let rows: ComparableRow[] = [];
let run: { code: number; stderr: string };

before(async () => {
  server = await startMockProviders();
  const dir = join(tmp.dir, 'suite');
  mkdirSync(dir);
  // assay takes each preset's `apiBaseUrl` (the plain server); the TLS host promptfoo was pointed at is not used.
  const config = readFileSync(join(FIXTURE, 'promptfooconfig.yaml'), 'utf8')
    .replaceAll('TLSHOST', '127.0.0.1:9')
    .replaceAll('TARGET', server.url);
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const out = join(dir, 'out.json');
  const r = await runCli(
    [
      'eval',
      'promptfooconfig.yaml',
      '--no-progress',
      '--no-cache',
      '-j',
      '8',
      // One retry is enough for the rate-limit scenario (a 429, then the answer) and keeps the
      // always-failing scenarios short (assay retries a 500 where promptfoo does not; both end in error).
      '--max-retries',
      '1',
      '--runs-dir',
      join(dir, 'runs'),
      '--output-format',
      'promptfoo',
      '-o',
      out,
    ],
    { cwd: dir },
  );
  run = { code: r.code, stderr: r.stderr };
  rows = (JSON.parse(readFileSync(out, 'utf8')).results.results as unknown[])
    .map(comparableRow)
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.test.localeCompare(b.test));
});
after(async () => {
  await server.close();
  tmp.cleanup();
});

/**
 * Rows whose case reason (and the row's error, which is that reason) differ, and why: when several
 * assertions fail, promptfoo's reason is that of the failure that *finished* last (its assertions
 * run concurrently; a `javascript` one settles after the synchronous checks), assay's that of the
 * last failure in the order the test lists them. A scoring rule, not the answer's: left to the
 * aggregation (core/aggregate.ts). Both must still be the reason of one of the row's failures.
 */
const REASON_BY_COMPLETION_ORDER = new Set(['azure-completion / tool-call', 'openai-completion / tool-call']);

describe('rows of the OpenAI, Azure and OpenAI-compatible ids, as promptfoo 0.123.1 writes them', () => {
  it('every row, whole, for every scenario', () => {
    assert.equal(run.code, 3, run.stderr);
    assert.equal(rows.length, expected.rows.length);
    const problems: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const ours = rows[i];
      const theirs = expected.rows[i];
      const where = `${theirs.provider} / ${theirs.test}`;
      assert.equal(`${ours.provider} / ${ours.test}`, where);
      // Each tool words its own errors; that the row is an error is compared (failure reason 2).
      const { error: ourError, ...ourRow } = ours;
      const { error: theirError, ...theirRow } = theirs;
      if (REASON_BY_COMPLETION_ORDER.has(where)) {
        const failed = theirs.components.filter((c) => c.pass === false).map((c) => c.reason);
        assert.ok(
          failed.length > 1 && failed.includes(theirRow.reason) && failed.includes(ourRow.reason),
          where,
        );
        assert.equal(ourRow.reason, failed.at(-1), `${where}: assay's reason is the last failure listed`);
        ourRow.reason = theirRow.reason;
        theirRow.components.forEach((c, k) => {
          // (A javascript failure's component reason is the same in both; only the case's pick differs.)
          assert.deepEqual(ourRow.components[k], c, `${where}: component ${k}`);
        });
        if (ourError !== ourRow.reason && ourError !== failed.at(-1))
          problems.push(`${where}: error ${ourError}`);
        try {
          assert.deepEqual(ourRow, theirRow);
        } catch (err) {
          problems.push(`${where}: ${(err as Error).message}`);
        }
        continue;
      }
      if (theirs.failureReason === 2 ? !ourError : ourError !== theirError)
        problems.push(`${where}: error ${JSON.stringify(ourError)}, promptfoo ${JSON.stringify(theirError)}`);
      try {
        assert.deepEqual(ourRow, theirRow);
      } catch (err) {
        problems.push(`${where}: ${(err as Error).message}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
