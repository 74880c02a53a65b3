import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec } from '../../src/core/types.js';
import { getScorer, ScorerInputError } from '../../src/scorers/index.js';
import type { ScoreResult } from '../../src/scorers/types.js';

async function run(
  type: string,
  value: unknown,
  output: string,
  spec: Partial<AssertionSpec> = {},
): Promise<ScoreResult> {
  const scorer = getScorer(type);
  assert.ok(scorer, `${type} is registered`);
  return scorer.score({
    output,
    outputValue: output,
    value,
    spec: { type, value, ...spec },
    vars: {},
    prompt: '',
    response: {},
  });
}

const not = { negate: true };

function validate(type: string, value: unknown): string | undefined {
  const scorer = getScorer(type);
  assert.ok(scorer?.validate, `${type} has validate`);
  return scorer.validate({ type, value });
}

describe('contains', () => {
  it('passes when the value occurs, case-sensitively', async () => {
    assert.deepEqual(await run('contains', 'world', 'hello world'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    const r = await run('contains', 'World', 'hello world');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output to contain "World"');
  });

  it('negated: fails with a "not contain" reason when the value occurs', async () => {
    const r = await run('contains', 'x', 'a x b', not);
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output to not contain "x"');
    assert.equal((await run('contains', 'x', 'abc', not)).pass, true);
  });

  // §11 #23
  it('accepts a number value: 0 is found in "10"', async () => {
    const r = await run('contains', 0, '10');
    assert.equal(r.pass, true);
    assert.equal(r.score, 1);
    assert.equal((await run('contains', 3.5, 'pi is not 3.5')).pass, true);
  });

  // §11 #22
  it('an empty or missing value is an error, not a failure', async () => {
    await assert.rejects(run('contains', '', 'anything'), ScorerInputError);
    await assert.rejects(run('contains', undefined, 'anything'), ScorerInputError);
    await assert.rejects(run('contains', '', 'anything', not), ScorerInputError);
    await assert.rejects(run('contains', Number.NaN, 'NaN'), ScorerInputError);
    // A list is loaded (with a warning) and errors each row, as promptfoo 0.123.1 does (fixtures/promptfoo/habits).
    await assert.rejects(
      run('contains', ['a'], 'a'),
      /Invariant failed: "contains" assertion type must have a string or number value/,
    );
  });

  it('empty output fails the positive form and passes the negated one', async () => {
    assert.equal((await run('contains', 'a', '')).pass, false);
    assert.equal((await run('contains', 'a', '', not)).pass, true);
  });

  it('searches across lines', async () => {
    const out = 'first line\nsecond line\nthird';
    assert.equal((await run('contains', 'line\nsecond', out)).pass, true);
    assert.equal((await run('contains', 'third', out)).pass, true);
  });

  it('unicode: code units as written', async () => {
    assert.equal((await run('contains', 'Straße', 'Die Straße ist lang')).pass, true);
    assert.equal((await run('contains', '🎉', 'party 🎉 time')).pass, true);
    assert.equal((await run('contains', 'cafe\u0301', 'un caf\u00e9')).pass, false);
  });

  it('validate flags values of the wrong shape and accepts strings and numbers', () => {
    assert.match(validate('contains', true) ?? '', /string or number/);
    // A list or mapping is promptfoo's row error, not a load error.
    assert.equal(validate('contains', ['a']), undefined);
    assert.equal(validate('contains', { a: 1 }), undefined);
    assert.equal(validate('contains', 'x'), undefined);
    assert.equal(validate('contains', 7), undefined);
    assert.equal(validate('contains', 0), undefined);
  });

  it('validate reports an empty or missing value (§11 #22 would make every job an error)', () => {
    assert.equal(validate('contains', ''), 'contains needs a non-empty value, got an empty string');
    assert.equal(validate('contains', undefined), 'contains needs a non-empty value, got no value');
    assert.equal(validate('icontains', ''), 'icontains needs a non-empty value, got an empty string');
    assert.equal(validate('starts-with', undefined), 'starts-with needs a non-empty value, got no value');
    assert.equal(
      getScorer('contains')?.validate?.({ type: 'contains', negate: true, value: '' }),
      'not-contains needs a non-empty value, got an empty string',
    );
    // A template can only be judged once rendered.
    assert.equal(validate('contains', '{{ expected }}'), undefined);
  });

  it('truncates a long value in the reason', async () => {
    const r = await run('contains', 'z'.repeat(1000), 'abc');
    assert.ok(r.reason.length < 400);
  });
});

describe('icontains', () => {
  it('ignores ASCII case', async () => {
    assert.equal((await run('icontains', 'WORLD', 'hello World')).pass, true);
    const r = await run('icontains', 'moon', 'hello World');
    assert.equal(r.pass, false);
    assert.equal(r.reason, 'Expected output to contain "moon"');
  });

  it('negated', async () => {
    const r = await run('icontains', 'WORLD', 'hello world', not);
    assert.equal(r.pass, false);
    assert.equal(r.reason, 'Expected output to not contain "WORLD"');
    assert.equal((await run('icontains', 'moon', 'hello world', not)).pass, true);
  });

  it('number values and empty/missing values', async () => {
    assert.equal((await run('icontains', 0, 'x10')).pass, true);
    await assert.rejects(run('icontains', '', 'x'), ScorerInputError);
    await assert.rejects(run('icontains', undefined, 'x'), ScorerInputError);
  });

  it('unicode follows toLowerCase on both sides, without normalisation (as promptfoo)', async () => {
    assert.equal((await run('icontains', 'STRASSE', 'straße')).pass, false);
    assert.equal((await run('icontains', 'STRAßE', 'die straße')).pass, true);
    assert.equal((await run('icontains', 'ÉCOLE', 'une école')).pass, true);
    // "İ".toLowerCase() is "i̇" (i + combining dot), so "İstanbul" is found in "i̇stanbul" but not "istanbul".
    assert.equal((await run('icontains', 'İstanbul', 'welcome to istanbul')).pass, false);
    assert.equal((await run('icontains', 'istanbul', 'İSTANBUL')).pass, false);
    assert.equal((await run('icontains', 'İstanbul', 'İSTANBUL')).pass, true);
    assert.equal((await run('icontains', 'ΣΟΦΙΑ', 'σοφια')).pass, true);
    assert.equal((await run('icontains', '🎉 YAY', 'well 🎉 yay')).pass, true);
  });

  it('empty output and multiline output', async () => {
    assert.equal((await run('icontains', 'a', '')).pass, false);
    assert.equal((await run('icontains', 'B\nC', 'a\nb\nc')).pass, true);
  });
});

describe('starts-with', () => {
  it('passes on a prefix only', async () => {
    assert.equal((await run('starts-with', 'Yes', 'Yes, of course')).pass, true);
    const r = await run('starts-with', 'Yes', 'Well, yes');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output to start with "Yes"');
  });

  it('negated', async () => {
    const r = await run('starts-with', 'Yes', 'Yes!', not);
    assert.equal(r.pass, false);
    assert.equal(r.reason, 'Expected output to not start with "Yes"');
    assert.equal((await run('starts-with', 'Yes', 'No', not)).pass, true);
  });

  it('is case- and whitespace-sensitive; empty and multiline output', async () => {
    assert.equal((await run('starts-with', 'yes', 'Yes')).pass, false);
    assert.equal((await run('starts-with', 'Yes', ' Yes')).pass, false);
    assert.equal((await run('starts-with', 'a', '')).pass, false);
    assert.equal((await run('starts-with', 'line1\nli', 'line1\nline2')).pass, true);
    assert.equal((await run('starts-with', '🚀', '🚀 launch')).pass, true);
  });

  it('needs a non-empty string value (a number is an error, as in promptfoo)', async () => {
    await assert.rejects(run('starts-with', '', 'x'), ScorerInputError);
    await assert.rejects(run('starts-with', undefined, 'x'), ScorerInputError);
    await assert.rejects(run('starts-with', 1, '1'), /non-empty string/);
    assert.match(validate('starts-with', 5) ?? '', /a string/);
  });
});

describe('contains-any / icontains-any', () => {
  it('passes when at least one item occurs', async () => {
    assert.equal((await run('contains-any', ['cat', 'dog'], 'a dog barks')).pass, true);
    const r = await run('contains-any', ['cat', 'dog'], 'a bird sings');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output to contain one of "cat, dog"');
  });

  it('negated: passes only when none occurs', async () => {
    assert.equal((await run('contains-any', ['cat', 'dog'], 'a bird', not)).pass, true);
    const r = await run('contains-any', ['cat', 'dog'], 'a cat', not);
    assert.equal(r.pass, false);
    assert.equal(r.reason, 'Expected output to not contain one of "cat, dog"');
  });

  it('splits a string value on commas, trimming items (§11 #6 shape)', async () => {
    assert.equal((await run('contains-any', ' a, b ,c', 'xxc')).pass, true);
    assert.equal((await run('contains-any', 'Paris, London', 'I like London')).pass, true);
    assert.equal((await run('contains-any', 'Paris, London', 'I like Rome')).pass, false);
  });

  it('quoted items keep their commas', async () => {
    assert.equal((await run('contains-any', '"Hello, world", bye', 'Hello, world!')).pass, true);
    assert.equal((await run('contains-any', '"Hello, world"', 'Hello')).pass, false);
  });

  it('number items and case sensitivity', async () => {
    assert.equal((await run('contains-any', [1, 2], 'route 66')).pass, false);
    assert.equal((await run('contains-any', [6, 'x'], 'route 66')).pass, true);
    assert.equal((await run('contains-any', ['PARIS'], 'paris')).pass, false);
    assert.equal((await run('icontains-any', ['PARIS'], 'paris')).pass, true);
  });

  it('icontains-any negated and unicode', async () => {
    const r = await run('icontains-any', 'FOO, bar', 'has Foo', not);
    assert.equal(r.pass, false);
    assert.match(r.reason, /to not contain one of "FOO, bar"/);
    assert.equal((await run('icontains-any', ['ÉTÉ', 'hiver'], "l'été")).pass, true);
    assert.equal((await run('icontains-any', ['x'], '')).pass, false);
  });

  it('no usable items is an error', async () => {
    await assert.rejects(run('contains-any', [], 'x'), /no items/);
    await assert.rejects(run('contains-any', ' , ,', 'x'), ScorerInputError);
    await assert.rejects(run('contains-any', '', 'x'), ScorerInputError);
    await assert.rejects(run('contains-any', undefined, 'x'), ScorerInputError);
    await assert.rejects(run('icontains-any', { a: 1 }, 'x'), /array or a comma-separated string/);
    await assert.rejects(run('contains-any', ['a', ''], 'x'), /item 2/);
    await assert.rejects(run('contains-any', ['a', null], 'x'), /item 2/);
    await assert.rejects(run('contains-any', '"unterminated, x', 'x'), /unterminated/);
  });

  it('validate flags wrong shapes, ignores templated strings', () => {
    assert.match(validate('contains-any', { a: 1 }) ?? '', /an object/);
    assert.match(validate('contains-any', ['a', { b: 1 }]) ?? '', /item 2/);
    assert.match(validate('icontains-all', '"oops') ?? '', /unterminated/);
    assert.equal(validate('contains-any', ['a', 1]), undefined);
    assert.equal(validate('contains-any', 'a, "b, c"'), undefined);
    assert.equal(validate('contains-any', '{{ list }}'), undefined);
    assert.equal(validate('contains-any', ['{{ a }}', 'b']), undefined);
  });

  it('validate reports nothing to look for at load, not as an error per job', () => {
    // "Any of nothing" always fails and "all of nothing" always passes, whatever the model said.
    assert.equal(validate('contains-all', []), 'contains-all needs a non-empty list, got an empty list');
    assert.equal(validate('contains-any', ''), 'contains-any needs a non-empty value, got an empty string');
    assert.equal(validate('icontains-any', undefined), 'icontains-any needs a non-empty value, got no value');
    assert.equal(validate('icontains-all', ' , ,'), 'icontains-all needs at least one item, got " , ,"');
    assert.equal(
      validate('contains-any', ['a', '']),
      '"contains-any" item 2 must be non-empty, got an empty string',
    );
    const scorer = getScorer('contains-any');
    assert.equal(
      scorer?.validate?.({ type: 'contains-any', negate: true, value: [] }),
      'not-contains-any needs a non-empty list, got an empty list',
    );
  });
});

describe('contains-all / icontains-all', () => {
  it('passes when every item occurs, reports the missing ones', async () => {
    assert.equal((await run('contains-all', ['a', 'b'], 'b and a')).pass, true);
    const r = await run('contains-all', ['apple', 'pear', 'plum'], 'apple pie');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output to contain all of [apple, pear, plum]. Missing: [pear, plum]');
  });

  it('negated: passes when at least one is missing', async () => {
    assert.equal((await run('contains-all', ['a', 'z'], 'abc', not)).pass, true);
    const r = await run('contains-all', ['a', 'b'], 'abc', not);
    assert.equal(r.pass, false);
    assert.match(r.reason, /to not contain all of \[a, b\]/);
  });

  it('comma string with escapes', async () => {
    assert.equal((await run('contains-all', '"say \\"hi\\"", "x,y"', 'they say "hi" to x,y')).pass, true);
    assert.equal((await run('contains-all', '"a ""b""", c', 'a "b" c')).pass, true);
  });

  it('icontains-all ignores case; multiline and empty output', async () => {
    assert.equal((await run('icontains-all', 'ALPHA, beta', 'Alpha\nBETA')).pass, true);
    const r = await run('icontains-all', ['alpha', 'gamma'], 'ALPHA');
    assert.equal(r.pass, false);
    assert.match(r.reason, /Missing: \[gamma\]/);
    assert.equal((await run('icontains-all', ['a'], '')).pass, false);
    assert.equal((await run('icontains-all', ['a'], '', not)).pass, true);
  });

  it('no usable items is an error (an empty list would pass vacuously)', async () => {
    await assert.rejects(run('contains-all', [], 'x'), ScorerInputError);
    await assert.rejects(run('icontains-all', ',,,', 'x'), ScorerInputError);
    await assert.rejects(run('contains-all', 5, '5'), ScorerInputError);
  });
});
