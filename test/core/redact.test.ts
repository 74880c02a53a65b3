import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactObject, secretValues } from '../../src/core/redact.js';
import { Secrets } from '../../src/core/secrets.js';

describe('redactObject', () => {
  it('hides secret-looking fields at any depth but keeps numeric and boolean settings', () => {
    const out = redactObject({
      apiKey: 'sk-live-123456',
      config: { headers: { Authorization: 'Bearer abc' }, max_tokens: 1024, max_completion_tokens: 10 },
      token_usage_enabled: true,
      tokens: [{ secret: 'x' }],
      note: 'fine',
      empty_token: '',
    });
    assert.deepEqual(out, {
      apiKey: '[redacted]',
      config: { headers: { Authorization: '[redacted]' }, max_tokens: 1024, max_completion_tokens: 10 },
      token_usage_enabled: true,
      tokens: '[redacted]',
      note: 'fine',
      empty_token: '',
    });
  });
});

describe('secretValues and Secrets.addEnv', () => {
  it('scrub the values of secret environment variables from text', () => {
    const secrets = secretValues({ OPENAI_API_KEY: 'sk-abcdefgh12', HOME: '/root', SHORT_TOKEN: 'abc' });
    assert.deepEqual(secrets, ['sk-abcdefgh12']);
    const known = new Secrets().addEnv({
      OPENAI_API_KEY: 'sk-abcdefgh12',
      HOME: '/root',
      SHORT_TOKEN: 'abc',
    });
    assert.equal(known.redact('failed with key sk-abcdefgh12!'), 'failed with key [redacted]!');
    assert.equal(known.redact('home /root, abc'), 'home /root, abc');
  });
});
