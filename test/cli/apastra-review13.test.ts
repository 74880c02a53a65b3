// Review of issue 13, end to end: two models whose names sanitise alike.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const { answers } = JSON.parse(readFileSync(fixture('apastra', 'answers.json'), 'utf8'));

describe('review13: apastra run folders of a two-model matrix', () => {
  let mock: MockServer;
  const tmp = tempDir('assay-apastra-review13-');
  before(async () => {
    mock = await startMockServer({ answers });
  });
  after(async () => {
    await mock.close();
    tmp.cleanup();
  });

  it('keeps one run folder and one regression report per model when model names sanitise alike', async () => {
    const ws = join(tmp.dir, 'ws');
    cpSync(fixture('apastra', 'ws'), ws, { recursive: true });
    const suite = join(ws, 'promptops', 'suites', 'capitals-smoke.yaml');
    const text = readFileSync(suite, 'utf8').replace(
      /model_matrix:[^\n]*(\n\s+- [^\n]*)*/,
      'model_matrix:\n  - "openai:chat:mod/b"\n  - "openai:chat:mod_b"',
    );
    writeFileSync(suite, text);
    const r = await runCli(
      [
        'eval',
        ws,
        '--suite',
        'capitals-smoke',
        '--no-progress',
        '--runs-dir',
        join(ws, '.runs'),
        '--no-cache',
      ],
      { env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'test' } },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr + r.stdout);
    const runs = readdirSync(join(ws, 'promptops', 'runs'));
    const models = runs.map(
      (d) =>
        JSON.parse(readFileSync(join(ws, 'promptops', 'runs', d, 'run_manifest.json'), 'utf8')).model_ids[0],
    );
    assert.deepEqual(models.sort(), ['mod/b', 'mod_b'], `run folders: ${runs.join(', ')}`);
    const regressions = join(ws, 'derived-index', 'regressions');
    if (existsSync(regressions)) assert.equal(readdirSync(regressions).length, 2);
  });
});
