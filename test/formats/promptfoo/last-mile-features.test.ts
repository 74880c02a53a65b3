// Issue 15's features where assay goes beyond promptfoo 0.123.1 on purpose, or refuses before a
// run; the verdicts that match promptfoo are pinned in last-mile.test.ts.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { evaluate } from '../../../src/evaluate.js';
import { tempDir } from '../../support/tmp.js';
import { errorsOf } from './helpers.js';
import { readResults, runConfig } from './run-config.js';

const tmp = tempDir('assay-last-mile-features-');
after(tmp.cleanup);

const ALLCAPS = 'module.exports = (s) => String(s).toUpperCase();\n';

describe('nunjucksFilters', () => {
  it('takes the file:// form the docs show (promptfoo 0.123.1 cannot load it); prompts only, as there (fidelity.test.ts)', async () => {
    const { results } = await runConfig(
      tmp.dir,
      `nunjucksFilters: {shout: file://shout.js}
prompts: ['{{ word | shout }}']
providers: [echo]
tests:
  - vars: {word: hey}
    assert:
      - {type: equals, value: 'HEY'}
`,
      { files: { 'shout.js': ALLCAPS } },
    );
    assert.deepEqual(
      results.map((r) => [r.output, r.status]),
      [['HEY', 'pass']],
    );
  });

  it('refuses a filter file that does not exist, at its line (exit 2)', async () => {
    const diags = await errorsOf(
      `nunjucksFilters:\n  shout: ./nowhere.js\nprompts: ['{{ w | shout }}']\nproviders: [echo]\n`,
    );
    assert.deepEqual(
      diags.map((d) => [d.line, d.message]),
      [[2, 'filter "shout": nowhere.js: file not found']],
    );
  });
});

describe('ruby assertions', () => {
  it('without a Ruby interpreter: that job is an error naming it, the other tests run (promptfoo: a failure)', async () => {
    // The interpreter is looked up in the process's environment, as python's is.
    const before = process.env.PROMPTFOO_RUBY;
    process.env.PROMPTFOO_RUBY = '/nonexistent/ruby';
    after(() => {
      if (before === undefined) delete process.env.PROMPTFOO_RUBY;
      else process.env.PROMPTFOO_RUBY = before;
    });
    const { results } = await runConfig(
      tmp.dir,
      `prompts: ['Hello {{name}}']
providers: [echo]
tests:
  - vars: {name: ann}
    assert:
      - {type: ruby, value: "output.include?('ann')"}
  - vars: {name: bob}
    assert:
      - {type: contains, value: bob}
`,
    );
    assert.deepEqual(
      results.map((r) => [r.case.vars.name, r.status]),
      [
        ['ann', 'error'],
        ['bob', 'pass'],
      ],
    );
    assert.match(results[0].reason, /Ruby is not installed: "\/nonexistent\/ruby" was not found/);
  });

  it('refuses a missing Ruby file at load, at the assertion', async () => {
    const diags = await errorsOf(
      `prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n    assert:\n      - {type: ruby, value: 'file://gone.rb'}\n`,
    );
    assert.deepEqual(
      diags.map((d) => d.message),
      ['ruby script file gone.rb: file not found'],
    );
  });
});

describe('executable prompts', () => {
  it('runs exec:./script and file://script.sh from the config folder, with the context JSON last (promptfoo 0.123.1 drops the ./ and finds no such command)', async () => {
    const script =
      '#!/bin/sh\necho "made by $1 for $(echo "$2" | sed \'s/.*"topic":"\\([^"]*\\)".*/\\1/\')"\n';
    const { results } = await runConfig(
      tmp.dir,
      `prompts:
  - exec:sh make.sh first
  - exec:./make.sh second
providers: [echo]
tests:
  - vars: {topic: tea}
`,
      { files: { 'make.sh': script } },
    );
    assert.deepEqual(
      results.map((r) => [r.output, r.status]),
      [
        ['made by first for tea', 'pass'],
        // Not executable (the test writes it 0644): an error naming the program.
        [null, 'error'],
      ],
    );
  });
});

describe('executable prompts as commands', () => {
  it('a program that reads its standard input sees end of input at once (it never waits on assay)', async () => {
    // Before: stdin was a pipe assay never closed, so this waited for the 60 s limit and failed.
    const { results } = await runConfig(
      tmp.dir,
      `prompts:
  - exec:sh reads.sh
providers: [echo]
tests:
  - vars: {topic: tea}
`,
      { files: { 'reads.sh': '#!/bin/sh\ncat > /dev/null\necho "stdin ended"\n' } },
    );
    assert.deepEqual(
      results.map((r) => [r.output, r.status]),
      [['stdin ended', 'pass']],
    );
  });
});

describe('_conversation on --resume', () => {
  it('a resumed thread still sees the turns the first run made', async () => {
    const config = `prompts:
  - "{% for t in _conversation %}[{{ t.input }}]{% endfor %} {{ q }}"
providers: [echo]
tests:
  - vars: {q: one}
  - vars: {q: two}
  - vars: {q: three}
`;
    const whole = await runConfig(tmp.dir, config);
    const expected = whole.results.map((r) => r.output);
    assert.deepEqual(expected, [' one', '[ one] two', '[ one][[ one] two] three']);
    // The run stopped after the first turn: the log keeps it alone, and a resume runs the rest.
    const log = join(whole.run.runDir, 'results.jsonl');
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const first = lines.filter((l) => JSON.parse(l).caseIndex === 0);
    writeFileSync(log, `${first.join('\n')}\n`);
    const resumed = await evaluate({
      suitePath: join(dirname(whole.run.runDir), '..', 'promptfooconfig.yaml'),
      resume: whole.run.runDir,
      cache: false,
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.deepEqual(
      readResults(resumed.runDir, resumed).map((r) => r.output),
      expected,
    );
  });
});
