// -o files are safe to open: written to a temporary file and renamed (a kill mid-write leaves the
// previous file whole, never a truncated one), and CSV text that a spreadsheet would run as a
// formula is neutralised unless the raw form is asked for.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { outputTargets, writeOutputs } from '../../src/cli/outputs.js';
import { evaluate } from '../../src/evaluate.js';
import { readManifest } from '../../src/runlog/reader.js';
import { childEnv, cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-outputs-safe-');
after(() => tmp.cleanup());

describe('-o outputs', () => {
  it('neutralise formula-like text in CSV (OWASP), keep numbers, and give the raw form with csv-raw', async () => {
    const dir = join(tmp.dir, 'csv');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['{{q}}']
providers: [echo]
tests:
  - description: '=HYPERLINK("http://evil.example","click")'
    vars: {q: '=1+2', n: -1, at: '@SUM(A1)', plus: '+cmd', minus: '-cmd', tab: "\\tx", safe: 'a-b'}
`,
    );
    const r = await runCli(['eval', '--no-progress', '-o', 'out.csv'], { cwd: dir, env: cleanEnv });
    assert.equal(r.code, 0, r.stderr);
    const rawRun = await runCli(['eval', '--no-progress', '-o', 'raw.csv', '--output-format', 'csv-raw'], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(rawRun.code, 0, rawRun.stderr);
    const rows = parse(readFileSync(join(dir, 'out.csv'), 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    const row = rows[0];
    assert.equal(row.description, `'=HYPERLINK("http://evil.example","click")`);
    assert.equal(row.output, "'=1+2");
    assert.equal(row['var:q'], "'=1+2");
    assert.equal(row['var:at'], "'@SUM(A1)");
    assert.equal(row['var:plus'], "'+cmd");
    assert.equal(row['var:minus'], "'-cmd");
    assert.equal(row['var:tab'], "'\tx");
    assert.equal(row['var:n'], '-1', 'a number is data, not a formula');
    assert.equal(row['var:safe'], 'a-b');
    assert.equal(row.score, '1');
    const raw = (
      parse(readFileSync(join(dir, 'raw.csv'), 'utf8'), { columns: true }) as Record<string, string>[]
    )[0];
    assert.equal(raw.output, '=1+2');
    assert.equal(raw['var:at'], '@SUM(A1)');
    // Every output written: nothing is pending in the runs' manifests, nor in the JSON output's copy.
    const runs = join(dir, '.assay', 'runs');
    for (const id of readdirSync(runs))
      assert.equal(
        JSON.parse(readFileSync(join(runs, id, 'manifest.json'), 'utf8')).outputsPending,
        undefined,
      );
    const json = await runCli(['eval', '--no-progress', '-o', 'out.json'], { cwd: dir, env: cleanEnv });
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')).run.outputsPending, undefined);
  });

  it('a kill while an -o file is written leaves the previous file whole, never a truncated one', async () => {
    const dir = join(tmp.dir, 'kill');
    mkdirSync(dir, { recursive: true });
    const tests = Array.from({ length: 20_000 }, (_, i) => `w${i},contains:w${i}`);
    writeFileSync(join(dir, 'tests.csv'), `word,__expected\n${tests.join('\n')}\n`);
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      "prompts: ['{{word}}']\nproviders: [echo]\ntests: file://tests.csv\n",
    );
    const old = 'the previous good output\n';
    writeFileSync(join(dir, 'out.jsonl'), old);
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'assay.js'), 'eval', '--no-progress', '-o', 'out.jsonl'],
      {
        cwd: dir,
        env: childEnv(cleanEnv),
        stdio: 'ignore',
      },
    );
    const exited = once(child, 'exit');
    let sawTemp = false;
    for (let i = 0; i < 3000 && child.exitCode === null; i++) {
      if (readdirSync(dir).some((f) => f.startsWith('.out.jsonl.tmp-'))) {
        sawTemp = true;
        child.kill('SIGKILL');
        break;
      }
      await sleep(2);
    }
    await exited;
    const now = readFileSync(join(dir, 'out.jsonl'), 'utf8');
    // Either the kill came while the output was being written (the old file is untouched) or the
    // run finished first (the new file is complete): never anything in between.
    if (sawTemp) assert.equal(now, old);
    else assert.equal(now.trim().split('\n').length, 20_000);
    process.stdout.write(`# killed while writing the output: ${sawTemp}\n`);
    // The run's log is whole either way; its manifest says whether its -o files are.
    const runs = join(dir, '.assay', 'runs');
    const [runId] = readdirSync(runs);
    const manifest = JSON.parse(readFileSync(join(runs, runId, 'manifest.json'), 'utf8'));
    if (sawTemp) {
      assert.deepEqual(manifest.outputsPending, [join(dir, 'out.jsonl')]);
      const report = await runCli(['report', runId, '--no-color'], { cwd: dir, env: cleanEnv });
      assert.match(report.stdout, /Output files not written: .*out\.jsonl/);
      // Following the hint writes them, and the run is whole.
      const again = await runCli(['eval', '--no-progress', '--resume', runId, '-o', 'out.jsonl'], {
        cwd: dir,
        env: cleanEnv,
      });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').length, 20_000);
    }
    const final = JSON.parse(readFileSync(join(runs, runId, 'manifest.json'), 'utf8'));
    assert.equal(final.status, 'complete');
    assert.equal(final.outputsPending, undefined);
  });

  it('a run is marked whole only once its -o files are: the manifest lists them until then', async () => {
    const dir = join(tmp.dir, 'pending');
    mkdirSync(dir, { recursive: true });
    const suite = join(dir, 'promptfooconfig.yaml');
    writeFileSync(suite, "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n");
    const target = join(dir, 'later.json');
    const r = await evaluate({ suitePath: suite, runsDir: join(dir, 'runs'), outputs: [target] });
    assert.equal(r.manifest.status, 'complete');
    assert.deepEqual(r.manifest.outputsPending, [target]);
    const outputs = outputTargets([target], undefined);
    assert.equal(await writeOutputs(r.runDir, r.scorecard, outputs), true);
    assert.equal(readManifest(r.runDir).outputsPending, undefined);
    assert.equal(JSON.parse(readFileSync(target, 'utf8')).run.status, 'complete');
  });

  it('leave no temporary file behind, and report an output that cannot be written without a crash', async () => {
    const dir = join(tmp.dir, 'dir-target');
    mkdirSync(join(dir, 'taken.json'), { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n",
    );
    const r = await runCli(
      ['eval', '--no-progress', '-o', 'ok.json', '-o', join(dir, 'taken.json', 'x', '..')],
      { cwd: dir, env: cleanEnv },
    );
    assert.ok(r.code === 2 || r.code === 3, `${r.code} ${r.stderr}`);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('.tmp-')),
      [],
    );
  });

  it('an -o place that takes no file is refused before anything runs (exit 2)', async () => {
    const dir = join(tmp.dir, 'readonly');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n",
    );
    const r = await runCli(
      ['eval', '--no-progress', '--runs-dir', join(dir, 'runs'), '-o', '/sys/assay-out.json'],
      {
        cwd: dir,
        env: cleanEnv,
      },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /-o \/sys\/assay-out\.json: cannot write there/);
    assert.equal(readdirSync(dir).includes('runs'), false, 'nothing ran');
  });
});
