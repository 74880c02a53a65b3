// The console never passes untrusted text through raw: escape sequences from model output, test
// text or server messages are shown as visible escapes. Counts and rates read as they are.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { printable } from '../../src/core/printable.js';
import { formatRate, percent, plural } from '../../src/report/console.js';
import { cleanEnv, runCli, runCliInTerminal, SCRIPT } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-console-');
let mock: MockServer;
// Clear screen, an OSC 8 hyperlink, a bell, a window title, and a right-to-left override.
const NASTY =
  '\u001b[2J\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007\u0007\u001b]0;owned\u0007\u202eevil';
before(async () => {
  mock = await startMockServer({ answers: [{ match: 'nasty', reply: `answer ${NASTY}` }] });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

describe('console output', () => {
  it('printable shows control characters and bidi overrides as escapes, and keeps the rest', () => {
    assert.equal(printable('a\u001b[31mb\u0007c\u009bd\u202ee'), 'a\\x1b[31mb\\x07c\\x9bd\\u202ee');
    assert.equal(printable('tab\tstays, é and 日本 stay'), 'tab\tstays, é and 日本 stay');
    assert.equal(printable('two\nlines'), 'two\\x0alines');
    assert.equal(printable('two\nlines', true), 'two\nlines');
  });

  it('never rounds a rate to a figure it is not, and counts in good English', () => {
    assert.equal(percent(1999 / 2000), '99.9');
    assert.equal(percent(1), '100.0');
    assert.equal(percent(1 / 2000), '0.1');
    assert.equal(percent(0), '0.0');
    assert.equal(formatRate({ value: 0.9995, low: 0.99, high: 0.9999, n: 2000 }), '99.9% (99.0–99.9%)');
    assert.equal(plural(1, 'error'), '1 error');
    assert.equal(plural(0, 'error'), '0 errors');
  });

  it('model output and test text with escape sequences reach the terminal inert, with or without colour', async () => {
    const dir = join(tmp.dir, 'nasty');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `prompts: ['{{q}}']
providers:
  - id: openai:chat:m
    config: {apiBaseUrl: ${mock.baseUrl}, maxRetries: 0}
tests:
  - description: ${JSON.stringify(`described ${NASTY}`)}
    vars: {q: nasty}
    assert: [{type: equals, value: nope}]
`,
    );
    for (const flags of [['--no-color'], []]) {
      const r = await runCli(['eval', '--no-progress', '--verbose', ...flags], { cwd: dir, env: cleanEnv });
      assert.equal(r.code, 1, r.stderr);
      for (const stream of [r.stdout, r.stderr]) {
        assert.ok(
          !/[\u0007\u202e]|\u001b\]|\u001b\[2J/.test(stream),
          `raw control sequence in:\n${JSON.stringify(stream)}`,
        );
      }
      assert.match(r.stdout, /\\x1b\[2J/, 'the escape is shown, not hidden');
      assert.match(r.stdout, /1 failed · 0 errors/);
    }
  });

  it('at an 80-column terminal: fits it, one entry per failing test with an output excerpt, points at the report and --filter-failing, ends on the outcome', {
    skip: SCRIPT ? false : 'no `script` command for a pseudo-terminal',
  }, async () => {
    const dir = join(tmp.dir, 'terminal');
    mkdirSync(dir, { recursive: true });
    const tests = [
      `  - description: nasty one\n    vars: {q: nasty}\n    assert: [{type: equals, value: nope}]`,
    ];
    for (let i = 0; i < 24; i++)
      tests.push(
        `  - description: wrong ${i}\n    vars: {q: 'word ${i}'}\n    assert: [{type: equals, value: nope}]`,
      );
    tests.push(`  - description: fine\n    vars: {q: fine}\n    assert: [{type: icontains, value: fine}]`);
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      `description: A suite whose name is long enough to need the whole width of a terminal
prompts: ['Say {{q}}', 'Repeat {{q}}']
providers:
  - id: openai:chat:a-model-with-a-long-name
    config: {apiBaseUrl: ${mock.baseUrl}, apiKey: k, maxRetries: 0}
  - id: openai:chat:another-model
    config: {apiBaseUrl: ${mock.baseUrl}, apiKey: k, maxRetries: 0}
tests:
${tests.join('\n')}
`,
    );
    const r = await runCliInTerminal(['eval', 'promptfooconfig.yaml'], {
      cwd: dir,
      columns: 80,
      env: cleanEnv,
    });
    assert.equal(r.code, 1, r.raw);
    // Nothing the model said reaches the terminal raw.
    assert.ok(!/[\u0007\u202e]|\u001b\]|\u001b\[2J/.test(r.raw), JSON.stringify(r.raw));
    // At once, before anything else: the suite is being read (on the terminal's stderr).
    assert.match(r.raw, /^[^\n]*loading suite…/);
    // The progress line tells the time gone and the time left.
    assert.match(r.raw, /\[\d+\/104\] [\d.]+% · .* jobs\/s · \d+:\d\d elapsed · ETA (\d+:\d\d|–)/);
    const screen = r.screen;
    const copyable = /^\s*(Run written to|Report: file:|… and \d+ more|or run the failing tests again)/;
    for (const line of screen)
      if (!copyable.test(line)) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
    // 25 failing tests × 2 prompts × 2 providers: each test is one entry, not four.
    const entries = screen.filter((l) => /^ {2}✗ fail {2}"/.test(l));
    assert.equal(entries.length, 10);
    assert.equal(screen.filter((l) => l.includes('"wrong 3"')).length, 1);
    const at = screen.findIndex((l) => l.includes('"nasty one"'));
    assert.ok(at >= 0, screen.join('\n'));
    assert.match(screen[at + 1], /^ +fails in 2 prompts × 2 providers$/);
    assert.match(screen[at + 2], /^ +equals: /);
    // The output excerpt: one line, escaped (the reply holds a clear-screen, a hyperlink, a bell).
    assert.match(
      screen[at + 3],
      /^ +output: "answer \\u001b\[2J\\u001b\]8;;http:\/\/evil\.example\\u0007click/,
    );
    // The rest are counted and pointed at the report and --filter-failing, not at results.jsonl:
    // at the report the run has written (its link), not a command that would write it again.
    const more = screen.findIndex((l) =>
      /^ {2}… and 60 more in the report: file:\/\/\S+\/\.assay\/runs\/\S+\/report\.html$/.test(l),
    );
    assert.ok(more >= 0, screen.join('\n'));
    assert.ok(!screen.some((l) => l.includes('--format html')), screen.join('\n'));
    assert.match(
      screen[more + 1],
      /^ {4}or run the failing tests again: assay eval promptfooconfig\.yaml --filter-failing \.assay\/runs\/\S+$/,
    );
    assert.ok(!screen.some((l) => l.includes('results.jsonl')));
    // The screen ends on the outcome (the headline again), then where the run and its report are.
    const end = screen.map((l) => l.trim()).filter((l) => l !== '');
    assert.match(end[end.length - 1], /^Report: file:\/\/.*\/report\.html$/);
    assert.match(end[end.length - 2], /^Run written to /);
    const headline = end.filter((l) => /^104 jobs: 4 passed · 100 failed · 0 errors$/.test(l));
    assert.equal(headline.length, 2);
    assert.match(end[end.length - 4], /^104 jobs: /);
    assert.match(end[end.length - 3], /^pass rate [\d.]+% \(/);
    // Piped, nothing of it: no loading line, no progress redraws.
    const piped = await runCli(['eval', 'promptfooconfig.yaml'], { cwd: dir, env: cleanEnv });
    assert.doesNotMatch(piped.stderr, /loading suite/);
  });
});
