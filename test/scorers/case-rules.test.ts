// "Case-insensitive" means what each tool's Python means by it. pramana (py-equals and friends,
// case_sensitive: false) and ÈwéBench (exact_match, keywords) both lower-case with Python's
// str.lower(), which differs from JavaScript's toLowerCase on characters newer than Python's
// Unicode tables. Expected values from python3 3.11:
//   '\u1c89'.lower() == '\u1c8a'.lower()   -> False (JavaScript: true)
//   '\u1c8a' in '\u1c89 x'.lower()          -> False (JavaScript: true)
//   'İ'.lower() == 'i\u0307'                 -> True (both)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec } from '../../src/core/types.js';
import { getScorer } from '../../src/scorers/index.js';

async function score(spec: AssertionSpec, output: string): Promise<number> {
  const scorer = getScorer(spec.type);
  assert.ok(scorer, spec.type);
  const r = await scorer.score({
    output,
    outputValue: output,
    value: spec.value,
    spec,
    vars: {},
    prompt: '',
    response: {},
  });
  return r.score;
}

describe('case-insensitive comparison is Python’s str.lower(), for every tool that asks for it', () => {
  it('ÈwéBench exact_match (equals with strip and ignoreCase)', async () => {
    const exact = (expected: string): AssertionSpec => ({
      type: 'equals',
      value: expected,
      options: { strip: true, ignoreCase: true },
    });
    assert.equal(
      await score(exact('\u1c8a'), ' \u1c89 '),
      0,
      'JavaScript would lower-case U+1C89; Python 3.11 does not',
    );
    assert.equal(await score(exact('i\u0307'), 'İ'), 1);
    assert.equal(await score(exact('Paris'), ' PARIS\n'), 1);
  });

  it('ÈwéBench keywords (keyword-recall)', async () => {
    const keywords = (list: string[]): AssertionSpec => ({
      type: 'keyword-recall',
      value: list,
      options: { ifEmpty: 0 },
    });
    assert.equal(await score(keywords(['\u1c8a']), '\u1c89 x'), 0);
    assert.equal(await score(keywords(['ɖe', 'NYE']), 'Ɖe nye'), 1);
  });

  it('pramana exact_match with case_sensitive: false (py-equals)', async () => {
    const exact = (expected: string): AssertionSpec => ({
      type: 'py-equals',
      value: expected,
      options: { caseSensitive: false },
    });
    assert.equal(await score(exact('\u1c8a'), '\u1c89'), 0);
    assert.equal(await score(exact('i\u0307'), 'İ'), 1);
  });
});
