// The output extension point, used as a plugin author would: a format registered in one file
// against the package entry (test/support/plugins/tally-output.ts) and loaded into the real CLI
// with `node --import`, then chosen by extension (-o x.tally), by name (--output-format tally) and
// by `assay report --format tally`, and listed in `assay report --help` — nothing else edited.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { CAPITALS, evalSuite } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-output-plugin-');
after(() => tmp.cleanup());

/** The compiled plugin, imported before the CLI starts (as `node --import PLUGIN assay …` would). */
const plugin = pathToFileURL(join(repoRoot, 'dist', 'test', 'support', 'plugins', 'tally-output.js')).href;
const withPlugin = { NODE_OPTIONS: `--import=${plugin}` };

/** What the plugin writes for the capitals suite: two prompts × five tests, two pass per prompt. */
const TALLY = 'fail 6\npass 4\nsuite Capitals (report test)\ntotal 10\n';

let dir: string;
let runDir: string;
let evalRun: Awaited<ReturnType<typeof evalSuite>>;

before(async () => {
  dir = join(tmp.dir, 'suite');
  mkdirSync(dir);
  evalRun = await evalSuite(
    dir,
    CAPITALS,
    ['-o', 'out.tally', '-o', 'named.txt', '--output-format', 'tally'],
    withPlugin,
  );
  runDir = evalRun.runDir;
});

describe('an output format plugin', () => {
  it('is written by -o FILE.tally (by extension) and by --output-format tally, through the host', () => {
    assert.equal(evalRun.code, 1, evalRun.stderr);
    assert.equal(readFileSync(join(dir, 'out.tally'), 'utf8'), TALLY);
    assert.equal(readFileSync(join(dir, 'named.txt'), 'utf8'), TALLY);
    assert.match(evalRun.stdout, /Wrote .*out\.tally\n/);
    assert.match(evalRun.stdout, /Wrote .*named\.txt\n/);
  });

  it('is printed by assay report --format tally and listed by assay report --help and assay eval --help', async () => {
    const r = await runCli(['report', runDir, '--format', 'tally'], { env: withPlugin });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, TALLY);
    const help = await runCli(['report', '--help'], { env: withPlugin });
    assert.match(help.stdout, /tally \(\.tally\): a plugin: the number of jobs of each status/);
    const evalHelp = await runCli(['eval', '--help'], { env: withPlugin });
    assert.match(evalHelp.stdout, /tally \(\.tally\): a plugin/);
  });

  it('is unknown without the plugin: the same command line is refused before any call (exit 2)', async () => {
    const r = await runCli(['eval', '.', '--no-progress', '-o', 'again.tally'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /-o again\.tally: cannot tell the output format from the extension/);
    assert.equal(existsSync(join(dir, 'again.tally')), false);
    const named = await runCli(['report', runDir, '--format', 'tally']);
    assert.equal(named.code, 2);
    assert.match(named.stderr, /--format tally: unknown format; expected one of: .*csv-raw/);
  });
});
