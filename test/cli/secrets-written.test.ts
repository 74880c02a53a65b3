// No secret reaches disk: a prompt that renders `{{ env.MY_API_KEY }}`, a model that echoes it, a
// provider key given in the config and quoted by a test — every file of the run directory and every
// -o output holds `[redacted]` instead.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-secrets-written-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

const ENV_KEY = 'sk-env-0123456789abcdef';
const CONFIG_KEY = 'cfg-key-"quoted"-98765';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('secrets in what assay writes', () => {
  it('are redacted from the run log, its manifest and scorecard, and every -o output', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['Key {{ env.MY_API_KEY }} and {{ q }}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: ${mock.baseUrl}, apiKey: ${JSON.stringify(CONFIG_KEY)}, maxRetries: 0}
tests:
  - vars: {q: ${JSON.stringify(CONFIG_KEY)}}
    assert: [{type: contains, value: nothing-like-this}]
`,
    );
    const r = await runCli(
      [
        'eval',
        '--no-progress',
        '--runs-dir',
        join(dir, 'runs'),
        '-o',
        'out.json',
        '-o',
        'out.csv',
        '-o',
        'out.jsonl',
      ],
      { cwd: dir, env: { ...cleanEnv, MY_API_KEY: ENV_KEY } },
    );
    assert.equal(r.code, 1, r.stderr);
    const written = [
      ...filesUnder(join(dir, 'runs')),
      join(dir, 'out.json'),
      join(dir, 'out.csv'),
      join(dir, 'out.jsonl'),
    ];
    assert.ok(written.length >= 6);
    const escaped = JSON.stringify(CONFIG_KEY).slice(1, -1);
    for (const file of written) {
      const text = readFileSync(file, 'utf8');
      assert.ok(!text.includes(ENV_KEY), `${file} holds the env key`);
      assert.ok(!text.includes(CONFIG_KEY) && !text.includes(escaped), `${file} holds the config key`);
    }
    // The model did receive the key (it was asked to echo it), and the log says [redacted].
    const log = readFileSync(filesUnder(join(dir, 'runs')).find((f) => f.endsWith('results.jsonl'))!, 'utf8');
    assert.match(log, /Key \[redacted\] and \[redacted\]/);
    assert.ok(JSON.stringify(mock.requests.at(-1)?.body).includes(ENV_KEY));
    assert.ok(!r.stdout.includes(ENV_KEY) && !r.stderr.includes(ENV_KEY));
  });
});
