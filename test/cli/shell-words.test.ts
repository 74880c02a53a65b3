import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { shellWord } from '../../src/cli/common.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-shell-words-');
after(() => tmp.cleanup());

describe('commands and paths assay prints', () => {
  it('quotes a word as a POSIX shell reads it back, and never prints a control character', () => {
    assert.equal(shellWord('suites/a.yaml'), 'suites/a.yaml');
    assert.equal(shellWord('my dir/c.yaml'), `'my dir/c.yaml'`);
    assert.equal(shellWord(`it's`), `'it'\\''s'`);
    assert.ok(!/[\u0000-\u001f\u007f]/.test(shellWord('a\u001b[2Jb')));
  });

  it('an -o path holding an escape sequence is printed escaped; a runs folder with a space is quoted in the resume hint', async () => {
    const suite = join(repoRoot, 'test', 'fixtures', 'cli', 'passing');
    const dir = join(tmp.dir, 'out dir');
    mkdirSync(dir, { recursive: true });
    const r = await runCli(
      ['eval', suite, '--no-progress', '--runs-dir', join(dir, 'runs'), '-o', join(dir, 'o\u001b[2Jx.csv')],
      {
        env: cleanEnv,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes('\u001b'), 'no raw escape on the terminal');
    assert.match(r.stdout, /Wrote .*o\\(u001b|x1b|e)/i);
  });
});
