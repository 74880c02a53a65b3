// The per-job path builds its objects with every field in place (an object literal, then plain
// assignments), never `{ ...base, added, … }`: on Node 20 each property added after a spread
// costs microseconds, paid for every job (issue 23, item 3). This test fails when the pattern
// comes back in the files every job goes through.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';
import { spreadThenAdd } from '../support/spread-then-add.js';

/**
 * The files every job goes through: generation, judging, scoring, the result, the echo provider,
 * the structured answer and the output rules that read it.
 */
const HOT_PATH = [
  'src/core/answer.ts',
  'src/formats/promptfoo/output-rule.ts',
  'src/engine/call.ts',
  'src/engine/generate.ts',
  'src/engine/job.ts',
  'src/engine/judge.ts',
  'src/engine/result.ts',
  'src/engine/score.ts',
  'src/providers/echo.ts',
];

describe('objects on the per-job path', () => {
  it('are never a spread followed by added properties', () => {
    const found = HOT_PATH.flatMap((file) =>
      spreadThenAdd(readFileSync(join(repoRoot, file), 'utf8')).map((f) => `${file}:${f.line}: ${f.text}`),
    );
    assert.deepEqual(found, [], `spread then added properties on the per-job path:\n${found.join('\n')}`);
  });

  it('the check finds the pattern, and only it', () => {
    const source = [
      'const a = { ...base, status: "pass", output };', // line 1: found
      'const b = { ...base, ...more };', // spreads only
      'const c = { status: "pass", ...base };', // a spread last adds nothing after it
      'const { x, ...rest } = value;', // destructuring
      'f(...args, last);', // call arguments
      'const d = [...list, item];', // an array
      // strings, a template's text (its expression is code) and comments
      `const e = \`$\{JSON.stringify({ ...t })} { ...x, y }\`; // '{ ...base, z }'`,
      'const g = /{ ...a, b }/.test(s);', // a regular expression
      'const h = { key, nested: { ...inner, extra: 1 } };', // line 9: the inner one is found
    ].join('\n');
    assert.deepEqual(
      spreadThenAdd(source).map((f) => f.line),
      [1, 9],
    );
  });
});
