// `assay eval … | head`: a reader that goes away ends console output quietly; the run, its log and
// every -o file are written whole, and the exit code is the run's.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { childEnv, cleanEnv } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-closed-stdout-');
after(() => tmp.cleanup());

describe('a closed stdout', () => {
  it('ends console output quietly and never affects the run or its -o files', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    const tests = Array.from(
      { length: 200 },
      (_, i) => `  - vars: {q: w${i}}\n    assert: [{type: contains, value: w${i}}]`,
    );
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['{{q}}']\nproviders: [echo]\ntests:\n${tests.join('\n')}\n`,
    );
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'assay.js'),
        'eval',
        '--no-progress',
        '--verbose',
        '-o',
        'a.json',
        '-o',
        'b.csv',
      ],
      { cwd: dir, env: childEnv(cleanEnv), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // Read one chunk, then close our end, as `head -c 10` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Unhandled|at /);
    const json = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')) as { results: unknown[] };
    assert.equal(json.results.length, 200);
    assert.equal(readFileSync(join(dir, 'b.csv'), 'utf8').trim().split('\n').length, 201);
  });
});
