// Review of issue 11: "Leftover temporary files are cleaned". An `-o` file is written to
// `.NAME.tmp-<pid>` beside it and renamed; a kill during that write leaves the temporary file (as
// large as the output) beside the target, and nothing ever removes it, not even the run that
// writes the same target again.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-outputs-leftovers-');
after(() => tmp.cleanup());

describe('-o temporary files (review of issue 11)', () => {
  it('a temporary file a killed process left beside an -o target is removed when it is written again', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      "prompts: ['hi']\nproviders: [echo]\ntests:\n  - vars: {}\n",
    );
    // What a SIGKILLed `assay eval -o out.json` (pid 999999, gone) leaves behind.
    const leftover = join(dir, '.out.json.tmp-999999');
    writeFileSync(leftover, '{\n"run": {');
    const r = await runCli(['eval', '--no-progress', '--runs-dir', join(dir, 'runs'), '-o', 'out.json'], {
      cwd: dir,
      env: cleanEnv,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(dir, 'out.json')));
    assert.ok(!existsSync(leftover), 'the dead process’s temporary file is still there');
  });
});
