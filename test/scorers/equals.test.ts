import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec } from '../../src/core/types.js';
import { getScorer, ScorerInputError } from '../../src/scorers/index.js';
import type { ScoreResult } from '../../src/scorers/types.js';

async function run(
  value: unknown,
  output: string,
  spec: Partial<AssertionSpec> = {},
  outputValue: unknown = output,
): Promise<ScoreResult> {
  const scorer = getScorer('equals');
  assert.ok(scorer, 'equals is registered');
  return scorer.score({
    output,
    outputValue,
    value,
    spec: { type: 'equals', value, ...spec },
    vars: {},
    prompt: '',
    response: {},
  });
}

describe('equals', () => {
  it('passes on an exact string match and fails otherwise (case-sensitive)', async () => {
    assert.deepEqual(await run('Paris', 'Paris'), { pass: true, score: 1, reason: 'Assertion passed' });
    const r = await run('Paris', 'paris');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.equal(r.reason, 'Expected output "paris" to equal "Paris"');
  });

  it('does not trim: surrounding whitespace makes outputs differ', async () => {
    assert.equal((await run('Paris', 'Paris\n')).pass, false);
  });

  it('negated: passes when different, fails with a "not equal" reason when equal', async () => {
    const differ = await run('a', 'b', { negate: true });
    assert.equal(differ.pass, true);
    assert.equal(differ.score, 1);
    const same = await run('a', 'a', { negate: true });
    assert.equal(same.pass, false);
    assert.equal(same.score, 0);
    assert.equal(same.reason, 'Expected output "a" to not equal "a"');
  });

  it('compares numbers as strings', async () => {
    assert.equal((await run(42, '42')).pass, true);
    assert.equal((await run(42, '42.0')).pass, false);
    assert.equal((await run(0, '0')).pass, true);
  });

  it('handles empty output and an empty expected string', async () => {
    assert.equal((await run('', '')).pass, true);
    const r = await run('x', '');
    assert.equal(r.pass, false);
    assert.match(r.reason, /Expected output "" to equal "x"/);
  });

  it('compares multiline output exactly', async () => {
    assert.equal((await run('line 1\nline 2', 'line 1\nline 2')).pass, true);
    assert.equal((await run('line 1\nline 2', 'line 1\r\nline 2')).pass, false);
  });

  // §11 #24
  it('deep-equals an object value with JSON output, key order irrelevant', async () => {
    assert.equal((await run({ a: 1, b: 2 }, '{"b":2,"a":1}')).pass, true);
    const r = await run({ a: 1, b: 2 }, '{"a":"1","b":2}');
    assert.equal(r.pass, false);
    assert.match(r.reason, /to equal "\{"a":1,"b":2\}"/);
  });

  it('deep-equals arrays (order matters) and nested values', async () => {
    assert.equal((await run([1, { x: [true, null] }], ' [1, {"x": [true, null]}] ')).pass, true);
    assert.equal((await run([1, 2], '[2,1]')).pass, false);
  });

  // §11 #25
  it('object value vs unparsable output: equals fails, not-equals passes', async () => {
    const r = await run({ a: 1 }, 'not json');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    const n = await run({ a: 1 }, 'not json', { negate: true });
    assert.equal(n.pass, true);
    assert.equal(n.score, 1);
  });

  it('compares an object output through its JSON text', async () => {
    const outputValue = { a: 1, b: [2] };
    const output = JSON.stringify(outputValue);
    assert.equal((await run({ b: [2], a: 1 }, output, {}, outputValue)).pass, true);
    assert.equal((await run('{"a":1,"b":[2]}', output, {}, outputValue)).pass, true);
    assert.equal((await run('{"b":[2],"a":1}', output, {}, outputValue)).pass, false);
  });

  it('null value is compared structurally, as promptfoo does', async () => {
    assert.equal((await run(null, 'null')).pass, true);
    assert.equal((await run(null, '')).pass, false);
  });

  it('unicode: exact code points without normalisation', async () => {
    assert.equal((await run('Straße', 'Straße')).pass, true);
    assert.equal((await run('Straße', 'STRASSE')).pass, false);
    assert.equal((await run('İstanbul', 'İstanbul')).pass, true);
    assert.equal((await run('👍🏽 ok', '👍🏽 ok')).pass, true);
    assert.equal((await run('👍🏽 ok', '👍 ok')).pass, false);
    // "café" precomposed (NFC) vs e + combining acute (NFD).
    assert.equal((await run('caf\u00e9', 'cafe\u0301')).pass, false);
  });

  it('normalizeUnicode: true folds canonical forms (NFC) only', async () => {
    assert.equal((await run('caf\u00e9', 'cafe\u0301', { options: { normalizeUnicode: true } })).pass, true);
    // NFC never folds compatibility characters: x² stays different from x2.
    assert.equal((await run('x2', 'x\u00b2', { options: { normalizeUnicode: true } })).pass, false);
    assert.equal((await run('x2', 'x\u00b2', { options: { normalizeUnicode: 'NFKC' } })).pass, true);
    assert.equal(
      (await run('caf\u00e9', 'cafe\u0301', { options: { normalizeUnicode: false } })).pass,
      false,
    );
  });

  it('rejects an unknown normalisation form at load and at score time', async () => {
    const scorer = getScorer('equals');
    assert.ok(scorer?.validate);
    const problem = scorer.validate({ type: 'equals', value: 'x', options: { normalizeUnicode: 'NFX' } });
    assert.match(problem ?? '', /normalizeUnicode/);
    assert.equal(
      scorer.validate({ type: 'equals', value: 'x', options: { normalizeUnicode: 'nfc' } }),
      undefined,
    );
    await assert.rejects(run('x', 'x', { options: { normalizeUnicode: 'NFX' } }), ScorerInputError);
  });

  it('validate requires a value but accepts an empty string', () => {
    const scorer = getScorer('equals');
    assert.ok(scorer?.validate);
    assert.equal(scorer.validate({ type: 'equals' }), 'equals needs a value, got no value');
    assert.equal(scorer.validate({ type: 'equals', negate: true }), 'not-equals needs a value, got no value');
    assert.equal(scorer.validate({ type: 'equals', value: '' }), undefined);
    assert.equal(scorer.validate({ type: 'equals', value: 0 }), undefined);
  });

  it('truncates long outputs in the reason', async () => {
    const output = 'y'.repeat(5000);
    const r = await run('x', output);
    assert.equal(r.pass, false);
    assert.ok(r.reason.length < 400, `reason is ${r.reason.length} characters`);
    assert.match(r.reason, /more characters/);
  });
});
