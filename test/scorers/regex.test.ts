import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec } from '../../src/core/types.js';
import { getScorer, ScorerInputError } from '../../src/scorers/index.js';
import type { ScoreResult } from '../../src/scorers/types.js';

async function run(value: unknown, output: string, spec: Partial<AssertionSpec> = {}): Promise<ScoreResult> {
  const scorer = getScorer('regex');
  assert.ok(scorer, 'regex is registered');
  return scorer.score({
    output,
    outputValue: output,
    value,
    spec: { type: 'regex', value, ...spec },
    vars: {},
    prompt: '',
    response: {},
  });
}

describe('regex', () => {
  it('matches anywhere (unanchored), no flags', async () => {
    assert.deepEqual(await run('\\d{3}', 'call 555 now'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    const r = await run('^\\d+$', 'abc 123');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output to match regex "^\\d+$"');
    // No `i` flag.
    assert.equal((await run('hello', 'HELLO')).pass, false);
  });

  it('negated', async () => {
    const r = await run('secret', 'the secret is out', { negate: true });
    assert.equal(r.pass, false);
    assert.equal(r.reason, 'Expected output to not match regex "secret"');
    assert.equal((await run('secret', 'nothing here', { negate: true })).pass, true);
  });

  it('no `m` or `s` flag: ^/$ anchor the whole text and . does not cross lines', async () => {
    const out = 'first\nsecond';
    assert.equal((await run('^second', out)).pass, false);
    assert.equal((await run('first.second', out)).pass, false);
    assert.equal((await run('first[\\s\\S]second', out)).pass, true);
    assert.equal((await run('^first\\nsecond$', out)).pass, true);
  });

  it('empty output', async () => {
    assert.equal((await run('x', '')).pass, false);
    assert.equal((await run('^$', '')).pass, true);
    assert.equal((await run('x', '', { negate: true })).pass, true);
  });

  it('unicode: without the u flag an emoji is two code units', async () => {
    assert.equal((await run('Straße', 'In der Straße')).pass, true);
    assert.equal((await run('^.$', '😀')).pass, false);
    assert.equal((await run('^..$', '😀')).pass, true);
    assert.equal((await run('caf\u00e9', 'cafe\u0301')).pass, false);
  });

  // §11 #27
  it('an invalid pattern is a failed verdict with "Invalid regex pattern", not an error', async () => {
    const r = await run('(?i)abc', 'abc');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.match(r.reason, /^Invalid regex pattern: /);
    // Still a failure when negated: promptfoo does not invert an unusable pattern.
    const n = await run('(?i)abc', 'abc', { negate: true });
    assert.equal(n.pass, false);
    assert.match(n.reason, /Invalid regex pattern/);
    // The cached error is reported the same way the second time.
    assert.match((await run('(?i)abc', 'x')).reason, /Invalid regex pattern/);
    assert.match((await run('[unclosed', 'x')).reason, /Invalid regex pattern/);
  });

  it('reuses a compiled pattern across calls without lastIndex state', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await run('a', 'banana')).pass, true);
  });

  it('a missing, empty or non-string value is an error', async () => {
    await assert.rejects(run('', 'x'), ScorerInputError);
    await assert.rejects(run(undefined, 'x'), ScorerInputError);
    await assert.rejects(run(5, '5'), /non-empty string/);
    const scorer = getScorer('regex');
    assert.ok(scorer?.validate);
    assert.match(scorer.validate({ type: 'regex', value: ['a'] }) ?? '', /string value/);
    assert.equal(scorer.validate({ type: 'regex', value: '(?i)bad' }), undefined);
    // Reported at load: every job would be an error otherwise.
    assert.equal(
      scorer.validate({ type: 'regex', value: '' }),
      'regex needs a non-empty value, got an empty string',
    );
    assert.equal(scorer.validate({ type: 'regex' }), 'regex needs a non-empty value, got no value');
  });
});
