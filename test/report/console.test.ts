// The console never passes untrusted text through raw: escape sequences from model output, test
// text or server messages are shown as visible escapes. Counts and rates read as they are.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { printable } from '../../src/core/printable.js';
import { formatRate, percent, plural } from '../../src/report/console.js';
import { cleanEnv, runCli } from '../support/cli.js';
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
});
