import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { fixture } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-suite-flags-');
after(tmp.cleanup);
const suite = join(tmp.dir, 'promptfooconfig.yaml');
writeFileSync(
  suite,
  'prompts: ["say {{w}}"]\nproviders: [echo]\ntests:\n  - vars: {w: hi}\n    assert: [{type: contains, value: hi}]\n',
);

describe('suite flags on a format that does not take them', () => {
  it('refuses --tier, --category and --mode for a promptfoo suite with exit 2', async () => {
    const run = await runCli(['validate', suite, '--tier', 'cheap', '--category', 'x', '--mode', 'fixed']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--tier does not apply to a promptfoo suite/);
    assert.match(run.stderr, /--category does not apply to a promptfoo suite/);
    assert.match(run.stderr, /--mode does not apply to a promptfoo suite/);
  });

  it('refuses a --mode other than compat or fixed', async () => {
    const run = await runCli(['validate', suite, '--mode', 'loose']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--mode loose: expected compat or fixed/);
  });

  it('refuses --expect-hash for a suite without a suite hash, before running anything', async () => {
    const run = await runCli(['eval', suite, '--expect-hash', 'sha256:00', '--no-progress'], {
      cwd: tmp.dir,
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--expect-hash: a promptfoo suite has no suite hash to check/);
    assert.doesNotMatch(run.stdout, /jobs:/);
  });

  it('refuses a native results file that cannot describe the run before running anything', async () => {
    const cwd = join(tmp.dir, 'native');
    const promptfoo = await runCli(
      ['eval', suite, '--no-progress', '-o', join(cwd, 'r.json'), '--output-format', 'pramana'],
      { cwd: tmp.dir },
    );
    assert.equal(promptfoo.code, 2, promptfoo.stderr);
    assert.match(
      promptfoo.stderr,
      /r\.json: --output-format pramana needs a pramana suite; this run is of a promptfoo suite/,
    );
    assert.equal(existsSync(join(tmp.dir, '.assay', 'runs')), false, 'no run was started');
    const ewe = fixture('ewebench', 'mini');
    const repeated = await runCli(
      [
        'eval',
        ewe,
        '-p',
        'echo',
        '--repeat',
        '2',
        '--no-progress',
        '-o',
        `${cwd}/`,
        '--output-format',
        'ewebench',
      ],
      { cwd: tmp.dir },
    );
    assert.equal(repeated.code, 2, repeated.stderr);
    assert.match(repeated.stderr, /one answer per test; this run uses --repeat/);
    const twoModels = await runCli(
      [
        'eval',
        ewe,
        '-p',
        'echo',
        '-p',
        'openai:chat:m',
        '--no-progress',
        '-o',
        `${cwd}/`,
        '--output-format',
        'ewebench',
      ],
      { cwd: tmp.dir },
    );
    assert.equal(twoModels.code, 2, twoModels.stderr);
    assert.match(twoModels.stderr, /describes one model; this run has 2/);
    assert.equal(existsSync(join(tmp.dir, '.assay', 'runs')), false, 'no run was started');
  });

  it("never writes -o over one of the suite's own files, and wants -o with --output-format", async () => {
    const dir = join(tmp.dir, 'own-files');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tests.csv'), 'q,__expected\nhello,contains:hello\n');
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://tests.csv\n',
    );
    const run = await runCli(['eval', '-o', 'tests.csv', '--no-progress'], { cwd: dir });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /tests\.csv: is one of the suite's own files; write the results elsewhere/);
    assert.equal(readFileSync(join(dir, 'tests.csv'), 'utf8'), 'q,__expected\nhello,contains:hello\n');
    const noOutput = await runCli(['eval', '--output-format', 'csv', '--no-progress'], { cwd: dir });
    assert.equal(noOutput.code, 2);
    assert.match(noOutput.stderr, /--output-format csv goes with -o FILE/);
    assert.equal(existsSync(join(dir, '.assay')), false, 'nothing ran');
  });

  it('explains a flag value that starts with "-"', async () => {
    const run = await runCli(['eval', suite, '--delay', '-5'], { cwd: tmp.dir });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--delay: its value starts with "-"; write it as --delay=VALUE/);
  });

  it('refuses an unknown --grader', async () => {
    const run = await runCli(['validate', suite, '--grader', 'nosuch:model']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--grader nosuch:model: unknown provider/);
  });
});
