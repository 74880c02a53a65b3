// Scoped inline flags (`a(?i:b)`, `(?-i:…)`, `(?s:…)`, …) against Python 3.11: re.search over a grid of
// patterns × texts, with and without re.I, or the re.error Python raises (test/fixtures/python/
// regex-scoped-vectors.py generated regex-scoped-vectors.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compilePyRegex, PyRegexError, PyRegexUnsupported } from '../../src/core/python/re.js';
import { fixture } from '../support/paths.js';

const vectors = JSON.parse(readFileSync(fixture('python', 'regex-scoped-vectors.json'), 'utf8')) as {
  texts: string[];
  cases: { pattern: string; flags: number; error?: string; matches?: string[] }[];
};
const RE_I = 2;

describe('Python scoped inline flags run as JavaScript regexes', () => {
  for (const c of vectors.cases) {
    const flags = c.flags === RE_I ? { ignoreCase: true } : {};
    it(`${c.pattern}${c.flags === RE_I ? ' with re.I' : ''}: ${c.error ?? `${c.matches?.length} of ${vectors.texts.length} texts`}`, () => {
      if (c.error !== undefined) {
        assert.throws(
          () => compilePyRegex(c.pattern, flags),
          (err: unknown) => err instanceof PyRegexError && err.message === c.error,
          `Python raises "${c.error}"`,
        );
        return;
      }
      const re = compilePyRegex(c.pattern, flags);
      assert.deepEqual(
        vectors.texts.filter((t) => re.test(t)),
        c.matches,
      );
    });
  }

  it('refuses a scoped verbose flag and a backreference under a scoped i, instead of guessing', () => {
    assert.throws(() => compilePyRegex('(?x: a b )'), PyRegexUnsupported);
    assert.throws(() => compilePyRegex('(a)(?i:\\1)'), PyRegexUnsupported);
  });
});
