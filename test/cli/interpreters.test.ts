// The interpreter of Python and Ruby user code: the runners name no format; the promptfoo format
// supplies the variables its tool reads (PROMPTFOO_PYTHON, PROMPTFOO_RUBY) through the registry.
// Through the real CLI, so what a user sets is what is run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli } from '../support/cli.js';
import { readRun, runDirsOldestFirst, writeSuiteDir } from '../support/runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-interpreters-');
after(() => tmp.cleanup());

describe('interpreter variables', () => {
  it('PROMPTFOO_PYTHON picks the interpreter of a python assertion (ASSAY_PYTHON unset)', async () => {
    const dir = writeSuiteDir(
      join(tmp.dir, 'py'),
      [
        'prompts: ["{{x}}"]',
        'providers: [echo]',
        'tests:',
        '  - vars: { x: a }',
        '    assert:',
        '      - type: python',
        '        value: "True"',
      ].join('\n'),
    );
    const r = await runCli(['eval', dir], {
      cwd: dir,
      env: { ...cleanEnv, ASSAY_PYTHON: undefined, PROMPTFOO_PYTHON: '/nonexistent/promptfoo-python' },
    });
    assert.equal(r.code, 3, r.stderr);
    const [run] = runDirsOldestFirst(dir);
    const { results } = readRun(run);
    assert.equal(results.length, 1);
    assert.match(
      results[0].error ?? results[0].verdicts.map((v) => v.reason).join(' '),
      /"\/nonexistent\/promptfoo-python" was not found\. Install Python 3, or set ASSAY_PYTHON \(or PROMPTFOO_PYTHON\) to its path/,
    );
  });
});
