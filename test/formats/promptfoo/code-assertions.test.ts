// javascript and python assertions in promptfoo configs: how their values load (§2.5, §3.3), what
// the loader refuses up front, and a suite scored end to end.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Diagnostic, Suite } from '../../../src/core/types.js';
import { scoreCase } from '../../../src/engine/score.js';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { closePythonWorker } from '../../../src/scorers/code/index.js';
import { fixture } from '../../support/paths.js';
import { ENV, errorsOf, loadText, plain, writeSuite } from './helpers.js';

after(() => closePythonWorker());

const at = (diags: Diagnostic[]): string[] => diags.map((d) => `${d.line ?? ''}:${d.col ?? ''} ${d.message}`);

const withAsserts = (asserts: string, files: Record<string, string> = {}) =>
  errorsOf(
    `prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: one}
    assert:
${asserts}`,
    files,
  );

/** Scores every case of a suite as the echo provider would answer (output = rendered prompt = topic). */
async function scoreSuite(suite: Suite) {
  return Promise.all(
    suite.cases.map((c) => {
      const output = String(c.vars.topic);
      return scoreCase(c, {
        output,
        outputValue: output,
        vars: c.vars,
        prompt: output,
        response: {},
        provider: { id: 'echo', config: {} },
        basePath: suite.basePath,
      });
    }),
  );
}

describe('code assertions in promptfoo configs', () => {
  it('loads inline and file:// values as written, recording the scripts in the suite’s files', async () => {
    const suite = await loadPromptfooSuite(fixture('code', 'suite', 'promptfooconfig.yaml'), { env: ENV });
    assert.deepEqual(plain(suite.cases[0].asserts), [
      { type: 'javascript', value: "output.includes('cats')" },
      { type: 'python', value: "'cats' in output" },
      { type: 'javascript', negate: true, value: 'output.length > 1000' },
    ]);
    assert.deepEqual(plain(suite.cases[2].asserts), [
      { type: 'javascript', value: 'file://../default.mjs' },
      { type: 'javascript', value: 'file://../named.mjs:length', threshold: 0.2 },
      { type: 'python', value: 'file://../asserts.py' },
      { type: 'python', value: 'file://../asserts.py:snake', metric: 'style' },
    ]);
    // Test sources are read before their assertions are parsed.
    assert.deepEqual(suite.source.files, [
      'promptfooconfig.yaml',
      'tests.csv',
      '../default.mjs',
      '../named.mjs',
      '../asserts.py',
      '../common.cjs',
    ]);
  });

  it('loads CSV `javascript:`, `fn:`, `python:` and `file://` script columns', async () => {
    const suite = await loadPromptfooSuite(fixture('code', 'suite', 'promptfooconfig.yaml'), { env: ENV });
    assert.deepEqual(plain(suite.cases[3].asserts), [
      { type: 'javascript', value: "output.endsWith('ok')" },
      { type: 'python', value: "output.endswith('ok')" },
      { type: 'python', value: 'file://../asserts.py' },
    ]);
    assert.deepEqual(plain(suite.cases[4].asserts), [
      { type: 'javascript', value: 'file://../common.cjs' },
      { type: 'javascript', value: "output === 'cjs'" },
      { type: 'python', value: "output == 'nope'" },
    ]);
  });

  it('scores the suite end to end through scoreCase', async () => {
    const suite = await loadPromptfooSuite(fixture('code', 'suite', 'promptfooconfig.yaml'), { env: ENV });
    const outcomes = await scoreSuite(suite);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['pass', 'pass', 'pass', 'pass', 'fail'],
    );
    assert.deepEqual(
      outcomes[2].verdicts.map((v) => [v.type, v.pass, v.score]),
      [
        ['javascript', true, 1],
        ['javascript', true, 0.2],
        ['python', true, 1],
        ['python', true, 0.7],
      ],
    );
    assert.deepEqual(outcomes[2].namedScores, { style: 0.7 });
    assert.equal(outcomes[4].reason, "Python code returned false\noutput == 'nope'");
    assert.equal(outcomes[4].score, 2 / 3);
  });

  it('changes the content hash when a script changes', async () => {
    const config = writeSuite({
      'promptfooconfig.yaml':
        'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: x}\n    assert:\n      - type: python\n        value: file://checks/check.py:grade\n',
      'checks/check.py': 'def grade(output, context):\n    return True\n',
    });
    const first = await loadPromptfooSuite(config, { env: ENV });
    assert.deepEqual(first.source.files, ['promptfooconfig.yaml', 'checks/check.py']);
    writeFileSync(
      join(dirname(config), 'checks/check.py'),
      'def grade(output, context):\n    return False\n',
    );
    const second = await loadPromptfooSuite(config, { env: ENV });
    assert.notEqual(first.source.contentHash, second.source.contentHash);
  });

  it('refuses a script file that does not exist, positioned at the value', async () => {
    const diags = await withAsserts(`      - type: python
        value: file://missing.py
      - type: not-javascript
        value: file://lib/missing.mjs:check
`);
    assert.deepEqual(at(diags), [
      '7:16 python script file missing.py: file not found',
      '9:16 not-javascript script file lib/missing.mjs: file not found',
    ]);
  });

  it('refuses a missing TypeScript file, other file types and inline JavaScript that does not compile', async () => {
    const diags = await withAsserts(`      - type: javascript
        value: file://check.ts
      - type: python
        value: file://check.rb
      - type: javascript
        value: output ===
      - type: javascript
        value: 42
`);
    assert.deepEqual(at(diags), [
      '7:16 javascript script file check.ts: file not found',
      '8:9 tests[0].assert[1]: python: file://check.rb is not a script assay can run (use .js, .mjs, .cjs, .ts or .py)',
      "10:9 tests[0].assert[2]: javascript: inline code does not compile: SyntaxError: Unexpected token '}'",
      '12:9 tests[0].assert[3]: "javascript" needs a string value (inline code or file://path), got a number',
    ]);
  });

  it('refuses a missing script named in a CSV column, at its row', async () => {
    const diags = await errorsOf('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n', {
      't.csv': 'q,__expected\na,file://nowhere.py\nb,python: output == "b"\n',
    });
    assert.deepEqual(
      diags.map((d) => `${d.line} ${d.message}`),
      ['2 python script file nowhere.py: file not found'],
    );
  });

  it('loads ruby assertions (run when Ruby is installed; last-mile-features.test.ts)', async () => {
    const suite = await loadText(
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: one}\n    assert:\n      - type: ruby\n        value: output == "one"\n',
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'ruby', value: 'output == "one"' }]);
  });

  it('renders templates in inline code before it runs, as promptfoo does', async () => {
    const suite = await loadText(
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: one, want: one}\n    assert:\n      - type: javascript\n        value: output === "{{want}}"\n      - type: python\n        value: output == "{{want}}"\n',
    );
    const [o] = await Promise.all(
      suite.cases.map((c) =>
        scoreCase(c, {
          output: 'one',
          outputValue: 'one',
          vars: c.vars,
          prompt: 'one',
          response: {},
          basePath: suite.basePath,
        }),
      ),
    );
    assert.equal(o.status, 'pass');
    assert.deepEqual(
      o.verdicts.map((v) => v.renderedValue),
      ['output === "one"', 'output == "one"'],
    );
  });
});
