// apastra run folders end to end: two models whose names sanitise alike, interrupted runs and baselines.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scorecardOfRun } from '../../src/analysis/scorecard.js';
import { format as apastra } from '../../src/formats/apastra/format.js';
import { outputFormatNamed, outputRun, writeOutput } from '../../src/outputs.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const { answers } = JSON.parse(readFileSync(fixture('apastra', 'answers.json'), 'utf8'));

describe('apastra run folders of a two-model matrix', () => {
  let mock: MockServer;
  const tmp = tempDir('assay-apastra-folders-');
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
    // The console names the folders written, not the name asked for before the per-model suffix.
    const wrote = [...r.stdout.matchAll(/^Wrote (.*)$/gm)].map((m) => m[1]).filter((p) => p.includes('runs'));
    assert.equal(wrote.length, 2, r.stdout);
    for (const p of wrote) assert.ok(existsSync(join(p, 'run_manifest.json')), `${p} exists: ${r.stdout}`);
  });

  it('an interrupted run is never PASS, is not compared with the baseline, and is refused as a baseline without --force', async () => {
    const ws = join(tmp.dir, 'ws-interrupted');
    cpSync(fixture('apastra', 'ws'), ws, { recursive: true });
    const env = { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'test' };
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
        '-p',
        'openai:chat:mock-model',
      ],
      { env },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr + r.stdout);
    const runDir = join(ws, '.runs', readdirSync(join(ws, '.runs'))[0]);
    const manifestPath = join(runDir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, status: 'interrupted' }));
    const regressions = join(ws, 'derived-index', 'regressions');
    const before = existsSync(regressions) ? readdirSync(regressions).length : 0;
    // The run folder is written (an output), then apastra's gate judges it (the format's hook).
    const folders = await writeOutput(outputRun(runDir, await scorecardOfRun(runDir)), {
      path: join(tmp.dir, 'out-interrupted'),
      format: outputFormatNamed('apastra').format,
    });
    const judged = await apastra.gate?.({ runDir, outputs: [{ format: 'apastra', paths: folders }] });
    assert.ok(judged, 'the gate judges the run folder written');
    assert.equal(judged.failed, true);
    assert.match(judged.text, /Status: FAIL ❌ \(the run is interrupted/);
    assert.match(judged.text, /Regression: not compared — the run is interrupted/);
    assert.equal(
      existsSync(regressions) ? readdirSync(regressions).length : 0,
      before,
      'no regression report',
    );
    const baselinePath = join(ws, 'derived-index', 'baselines', 'capitals-smoke.json');
    const baselineBefore = readFileSync(baselinePath, 'utf8');
    const refused = await runCli(['baseline', 'save', runDir, '--dir', join(ws, '.baselines')], {
      env: cleanEnv,
    });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /the run is interrupted.*--force/);
    assert.equal(readFileSync(baselinePath, 'utf8'), baselineBefore);
    assert.equal(existsSync(join(ws, '.baselines')), false, 'nothing saved');
    const forced = await runCli(['baseline', 'save', runDir, '--dir', join(ws, '.baselines'), '--force'], {
      env: cleanEnv,
    });
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(readFileSync(baselinePath, 'utf8'), baselineBefore);
  });

  it('a baseline whose metric is not a number is a positioned error before any model call', async () => {
    const ws = join(tmp.dir, 'ws-bad-baseline');
    cpSync(fixture('apastra', 'ws'), ws, { recursive: true });
    const path = join(ws, 'derived-index', 'baselines', 'capitals-smoke.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"exact_match": 1.0', '"exact_match": "high"'));
    const before = mock.stats().requests;
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
        '-p',
        'openai:chat:mock-model',
      ],
      { env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'test' } },
    );
    assert.equal(r.code, 2, r.stderr + r.stdout);
    assert.match(r.stderr, /capitals-smoke\.json:8:\d+: .*exact_match.*not a number/);
    assert.equal(mock.stats().requests, before, 'no model call');
    assert.equal(existsSync(join(ws, '.runs')) ? readdirSync(join(ws, '.runs')).length : 0, 0);
  });
});
