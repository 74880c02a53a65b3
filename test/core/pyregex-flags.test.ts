// Python `re` flags and global inline flags in the regex translator (LVE's RegexChecker `flags`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePyRegex, PyRegexError, PyRegexUnsupported } from '../../src/core/python/re.js';

const search = (p: string, t: string, flags = {}) => compilePyRegex(p, flags).test(t);

describe('Python re flags', () => {
  it('a leading (?i) is IGNORECASE for the whole pattern', () => {
    assert.equal(search('(?i)step one', 'STEP ONE'), true);
    assert.equal(search('step one', 'STEP ONE'), false);
    assert.equal(search('step one', 'Step One', { ignoreCase: true }), true);
  });
  it('DOTALL lets . match a newline; without it . stops there', () => {
    assert.equal(search('a.b', 'a\nb'), false);
    assert.equal(search('a.b', 'a\nb', { dotAll: true }), true);
    assert.equal(search('(?s)a.b', 'a\nb'), true);
  });
  it('MULTILINE anchors ^ and $ at every line; without it $ also matches before a final newline', () => {
    assert.equal(search('^b$', 'a\nb\nc'), false);
    assert.equal(search('^b$', 'a\nb\nc', { multiline: true }), true);
    assert.equal(search('^ab$', 'ab\n'), true);
    assert.equal(search('^ab$', 'ab\n\n'), false);
  });
  it('ASCII makes \\w, \\d and \\b ASCII-only', () => {
    assert.equal(search('^\\w+$', 'zürich'), true);
    assert.equal(search('^\\w+$', 'zürich', { ascii: true }), false);
    assert.equal(search('(?a)\\d', '٣'), false);
    assert.equal(search('\\d', '٣'), true);
  });
  it('refuses what Python refuses, and says what assay does not reproduce', () => {
    assert.throws(() => compilePyRegex('a(?i)b'), /global flags not at the start of the expression/);
    assert.throws(() => compilePyRegex('(?L)a'), PyRegexError);
    // Scoped flags are translated (pyregex-scoped.test.ts), a scoped verbose flag excepted.
    assert.equal(compilePyRegex('(?i:a)b').test('Ab'), true);
    assert.throws(() => compilePyRegex('(?x:a b)'), PyRegexUnsupported);
    // Verbose mode is reproduced (whitespace and comments dropped), except a {m, n} with spaces,
    // which Python reads as literal text.
    assert.equal(compilePyRegex('(?x)a b # c').test('ab'), true);
    assert.throws(() => compilePyRegex('(?x)a{1, 2}'), PyRegexUnsupported);
  });
});
