// The run's one redaction boundary (src/core/secrets.ts): every spelling a secret takes on its way
// out is redacted. The spellings are made by the tests' own encoders (test/support/spellings.ts),
// not by the code under test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCredentialParam, maskUrlCredentials, Secrets } from '../../src/core/secrets.js';
import { scriptSafeJson } from '../../src/report/report-data.js';
import { inJson, spellingsOf } from '../support/spellings.js';

const NASTY = 'k3y+a/b=c "q" \\ <t>&x é~1';
const spellings = spellingsOf;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('Secrets: every spelling of a secret', () => {
  it('redacts a secret that needs escaping in each spelling, inside longer text', () => {
    const secrets = new Secrets([NASTY]);
    for (const [how, spelled] of Object.entries(spellings(NASTY))) {
      const text = `before ${spelled} after`;
      const out = secrets.redact(text);
      assert.equal(
        out,
        'before [redacted] after',
        `${how}: ${JSON.stringify(spelled)} → ${JSON.stringify(out)}`,
      );
      assert.ok(secrets.foundIn(text), how);
    }
  });

  it('redacts a plain key in each spelling, and a password inside Basic base64(user:password) at any offset', () => {
    const key = 'sk-proj-0123456789abcdefXYZ';
    const secrets = new Secrets([key]);
    for (const [how, spelled] of Object.entries(spellings(key)))
      assert.equal(secrets.redact(`[${spelled}]`), '[[redacted]]', how);
    for (const user of ['u', 'us', 'use', 'user@example.com']) {
      const basic = b64(`${user}:${key}`);
      const out = secrets.redact(basic);
      assert.ok(out.includes('[redacted]'), `Basic for ${user}: ${out}`);
      // What is left is the user's part and at most one character of the key's first and last bytes.
      assert.ok(out.length < basic.length - 20, out);
    }
  });

  it('finds each of many secrets (a text scanned once for all their anchors)', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `key-${i}-${'abcdefghij'.slice(i % 5)}-${i * 7919}`);
    const secrets = new Secrets(keys);
    const text = keys.map((k, i) => (i % 2 === 0 ? spellingsOf(k).base64 : inJson(`"${k}"`, 2))).join(' | ');
    const out = secrets.redact(text);
    assert.equal(out.match(/\[redacted\]/g)?.length, keys.length, out);
    for (const k of keys) assert.ok(!out.includes(k));
    assert.equal(secrets.redact('none of them here'), 'none of them here');
  });

  it('keeps a JSON text valid, even when a secret ends in a backslash matched inside an escape', () => {
    const secret = 'abcdefgh\\';
    const secrets = new Secrets([secret]);
    const json = JSON.stringify({ a: `${secret.slice(0, -1)}"quoted"`, b: `x ${secret} y` });
    const out = secrets.redactJson(json);
    const parsed = JSON.parse(out);
    assert.equal(parsed.b, 'x [redacted] y');
    // `abcdefgh"…` is not the secret (`abcdefgh\`): kept, though its JSON text holds `abcdefgh\`.
    assert.equal(parsed.a, 'abcdefgh"quoted"');
  });

  it('leaves a text without secrets as it is (the same string), and knows nothing when empty', () => {
    const text = 'nothing to see here';
    assert.equal(new Secrets().redact(text), text);
    assert.equal(new Secrets().empty, true);
    assert.equal(new Secrets(['sk-0123456789']).redact(text), text);
  });

  it('redacts the start of a secret an excerpt cut short (`…`), from 8 characters on', () => {
    const secrets = new Secrets(['abcdefghijklmnop']);
    assert.equal(secrets.redact('body: key=abcdefghij…'), 'body: key=[redacted]…');
    assert.equal(
      secrets.redact(`form: ${encodeURIComponent('abcdefghijklmnop').slice(0, 9)}…`),
      'form: [redacted]…',
    );
    // Under 8 characters of it is left: it could be any word.
    assert.equal(secrets.redact('body: key=abcdefg…'), 'body: key=abcdefg…');
  });

  it('sees a secret declared later (the holders share one instance)', () => {
    const secrets = new Secrets();
    const holder = (text: string) => secrets.redact(text);
    assert.equal(holder('token tok-0123456789'), 'token tok-0123456789');
    secrets.add('tok-0123456789');
    assert.equal(holder('token tok-0123456789'), 'token [redacted]');
  });

  it('does not redact a value under 8 characters, and says so by name, never by value', () => {
    const warnings: string[] = [];
    const secrets = new Secrets([], { warn: (m) => warnings.push(m) });
    secrets.add('sk-123', 'OPENAI_API_KEY (the key of provider "openai:chat:m")');
    secrets.add('sk-123', 'OPENAI_API_KEY (the key of provider "openai:chat:m")');
    secrets.add('abc'); // no name: a guess (a variable's name), not a declaration
    assert.equal(secrets.redact('key sk-123'), 'key sk-123');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^OPENAI_API_KEY \(the key of provider "openai:chat:m"\) is 6 characters long/);
    assert.ok(!warnings[0].includes('sk-123'));
  });
});

describe('Secrets: credentials in URLs', () => {
  it('declares credential query parameters of a URL and masks `?name=value` whatever the length', () => {
    const warnings: string[] = [];
    const secrets = new Secrets([], { warn: (m) => warnings.push(m) });
    secrets.addUrl('http://127.0.0.1:9/api?model=x&token=tok-0123456789&sig=ab1', 'provider "http"');
    assert.equal(
      secrets.redact('http://127.0.0.1:9/api?model=x&token=tok-0123456789&sig=ab1'),
      'http://127.0.0.1:9/api?model=x&token=[redacted]&sig=[redacted]',
    );
    // The long value alone is a secret; the short one is masked where it follows its name only.
    assert.equal(secrets.redact('echo tok-0123456789 ab1'), 'echo [redacted] ab1');
    // In JSON, in the report's script (`&` as \u0026), percent-encoded whole.
    assert.equal(secrets.redact(scriptSafeJson('?x=1&sig=ab1')), '"?x=1\\u0026sig=[redacted]"');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^query parameter "sig" of provider "http" is 3 characters long/);
  });

  it('decodes a percent-encoded value: every spelling of what it stands for is a secret', () => {
    const secrets = new Secrets().addUrl('https://h/v1?api_key=k3y%2Ba%2Fb%3Dc', 'x');
    for (const spelled of ['k3y+a/b=c', 'k3y%2Ba%2Fb%3Dc', 'k3y%2ba%2fb%3dc', inJson('k3y+a/b=c', 2)])
      assert.equal(secrets.redact(`<${spelled}>`), '<[redacted]>', spelled);
  });

  it('names credential parameters by a documented rule', () => {
    for (const name of [
      'token',
      'access_token',
      'api_key',
      'apikey',
      'api-key',
      'key',
      'code',
      'sig',
      'signature',
      'X-Amz-Signature',
      'X-Amz-Security-Token',
      'password',
      'client_secret',
      'subscription-key',
      'auth',
      'session_id',
    ])
      assert.ok(isCredentialParam(name), name);
    for (const name of ['model', 'api-version', 'q', 'limit', 'format', 'region'])
      assert.ok(!isCredentialParam(name), name);
  });

  it('masks credential parameters and a userinfo password in a URL shown', () => {
    assert.equal(
      maskUrlCredentials('https://u:pw@h/x?a=1&api_key=zz&code=7'),
      'https://u:[redacted]@h/x?a=1&api_key=[redacted]&code=[redacted]',
    );
  });
});
