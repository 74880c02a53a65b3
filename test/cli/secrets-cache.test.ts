// Review of issue 11: "API keys and authorization headers never reach disk". The response cache is
// on disk (on by default): an answer that echoes a rendered `{{ env.MY_API_KEY }}` must not be
// stored there in clear either.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-secrets-cache-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

const ENV_KEY = 'sk-env-0123456789abcdef';

describe('secrets and the response cache (review of issue 11)', () => {
  it('an echoed key is not written to the cache file in clear', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Key {{ env.MY_API_KEY }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: ${mock.baseUrl}, apiKey: k-0123456789, maxRetries: 0}
tests:
  - assert: [{type: contains, value: nothing-like-this}]
`,
    );
    const cache = join(dir, 'cache.sqlite');
    const r = await runCli(
      ['eval', '--no-progress', '--runs-dir', join(dir, 'runs'), '--cache-path', cache],
      {
        cwd: dir,
        env: { ...cleanEnv, MY_API_KEY: ENV_KEY },
      },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.ok(existsSync(cache), 'the cache was written');
    // The database and its WAL, as bytes.
    for (const file of [cache, `${cache}-wal`].filter((f) => existsSync(f)))
      assert.ok(!readFileSync(file).includes(ENV_KEY), `${file} holds the env key`);
  });
});
