// promptfoo 0.123.1's sanitising of a result's testCase, vars and prompt (sanitizeObject), as
// assay's promptfoo JSON applies it. The vars and prompts of test/fixtures/promptfoo-diff/output.yaml
// pin it to promptfoo's recorded output; these cases cover the rules that config does not reach,
// each expectation what promptfoo 0.123.1's own sanitizeObject returned for the same input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isSecretField,
  looksLikeSecret,
  sanitizeForPromptfoo,
} from '../../../src/formats/promptfoo/sanitize.js';

describe('promptfoo result sanitising', () => {
  it('re-serialises JSON objects and arrays compactly, recursively, and leaves other JSON text alone', () => {
    assert.deepEqual(
      sanitizeForPromptfoo({
        a: '{ "x" : [1, 2] }',
        b: '[ {"y": "{ \\"z\\": 1 }"} ]',
        n: ' 42 ',
        t: 'true',
        s: '"q"',
      }),
      { a: '{"x":[1,2]}', b: '[{"y":"{\\"z\\":1}"}]', n: ' 42 ', t: 'true', s: '"q"' },
    );
  });

  it('redacts credential-looking values and credential-named keys at any depth', () => {
    const key = `sk-${'a'.repeat(24)}`;
    assert.deepEqual(
      sanitizeForPromptfoo({
        vars: {
          q: key,
          nested: [{ Api_Key: 'x', 'client-secret': 'y', other: 'Bearer abcdefghijklmnopqrstuvwxyz' }],
        },
        json: `{"token": "t", "ok": "${'b'.repeat(70)}"}`,
      }),
      {
        vars: {
          q: '[REDACTED]',
          nested: [{ Api_Key: '[REDACTED]', 'client-secret': '[REDACTED]', other: '[REDACTED]' }],
        },
        json: '{"token":"[REDACTED]","ok":"[REDACTED]"}',
      },
    );
  });

  it('keeps only harmless headers', () => {
    assert.deepEqual(
      sanitizeForPromptfoo({
        headers: {
          'Content-Type': 'application/json',
          'X-Custom': 'v',
          'User-Agent': 'Bearer abcdefghijklmnopqrstuvwxyz',
        },
      }),
      {
        headers: { 'Content-Type': 'application/json', 'X-Custom': '[REDACTED]', 'User-Agent': '[REDACTED]' },
      },
    );
  });

  it('looksLikeSecret and isSecretField follow promptfoo', () => {
    assert.equal(looksLikeSecret('A'.repeat(64)), true);
    assert.equal(looksLikeSecret('A'.repeat(63)), false);
    assert.equal(looksLikeSecret(`${'A'.repeat(70)} `), false);
    assert.equal(looksLikeSecret('AKIAABCDEFGHIJKLMNOP'), true);
    assert.equal(isSecretField('API-KEY'), true);
    assert.equal(isSecretField('apiKeys'), false);
    assert.equal(isSecretField('max_tokens'), false);
  });

  it('drops undefined members as a JSON round trip does', () => {
    assert.deepEqual(sanitizeForPromptfoo({ a: undefined, b: 1 }), { b: 1 });
  });
});
