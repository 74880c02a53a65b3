// Ruby assertions run as commands of their own: stdin at end of input, bounded by the time limit of
// a code call, and killed with everything they started when that limit passes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setPythonTimeLimit } from '../../../src/scorers/code/index.js';
import { rubyExecutable } from '../../../src/scorers/code/ruby.js';
import { waitUntilGone } from '../../support/processes.js';
import { tempDir } from '../../support/tmp.js';
import { score } from './support.js';

const tmp = tempDir('assay-ruby-');
after(() => tmp.cleanup());

const hasRuby = spawnSync(rubyExecutable(), ['-e', 'exit 0']).status === 0;

describe('ruby assertions as commands', { skip: hasRuby ? false : 'Ruby is not installed' }, () => {
  it('user code reads end of input from stdin (it never waits on assay)', async () => {
    const r = await score({ type: 'ruby', value: 'STDIN.gets.nil? && output == "x"' }, 'x');
    assert.equal(r.pass, true, r.reason);
  });

  it('a script that never ends and ignores SIGTERM fails at the time limit; it and its child are killed', async () => {
    const pids = join(tmp.dir, 'pids');
    const code = [
      'trap("TERM") {}',
      'child = Process.spawn("sleep", "300")',
      `File.write(${JSON.stringify(pids)}, "#{Process.pid} #{child}")`,
      'loop { sleep 1 }',
    ].join('\n');
    // The limit counts from Ruby's start, and the script must write its pids before it: 5 s leaves
    // a cold, loaded machine room to start Ruby (1.5 s did not leave much).
    setPythonTimeLimit(5000);
    try {
      const r = await score({ type: 'ruby', value: code }, 'x');
      assert.equal(r.pass, false);
      assert.match(r.reason ?? '', /timed out: the Ruby code did not return within 5 s/);
    } finally {
      setPythonTimeLimit(undefined);
    }
    for (const pid of readFileSync(pids, 'utf8').split(' ').map(Number))
      assert.ok(await waitUntilGone(pid), `process ${pid} was killed`);
  });
});
