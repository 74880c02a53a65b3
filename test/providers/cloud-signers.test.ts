import assert from 'node:assert/strict';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  amzDateOf,
  canonicalQuery,
  canonicalUri,
  findAwsCredentials,
  signingKey,
  signV4,
} from '../../src/providers/aws-sigv4.js';
import { findGoogleCredential, serviceAccountAssertion } from '../../src/providers/google-auth.js';
import { tempDir } from '../support/tmp.js';

const temps: (() => void)[] = [];
after(() => {
  for (const cleanup of temps) cleanup();
});
function tmpDir(prefix: string): string {
  const t = tempDir(`assay-${prefix}-`);
  temps.push(t.cleanup);
  return t.dir;
}

// AWS's SigV4 test suite credentials and clock (aws-sig-v4-test-suite, "get-vanilla" and kin).
const SUITE = {
  region: 'us-east-1',
  service: 'service',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  amzDate: '20150830T123600Z',
};
const PREFIX =
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=';

describe('SigV4 against AWS published vectors', () => {
  it('get-vanilla', () => {
    const h = signV4({
      ...SUITE,
      method: 'GET',
      host: 'example.amazonaws.com',
      path: '/',
      headers: {},
      body: '',
    });
    assert.equal(
      h.authorization,
      `${PREFIX}5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    );
    assert.equal(h['x-amz-date'], '20150830T123600Z');
  });

  it('get-vanilla-query-order-key-case: the query is sorted before signing', () => {
    const h = signV4({
      ...SUITE,
      method: 'GET',
      host: 'example.amazonaws.com',
      path: '/',
      query: 'Param2=value2&Param1=value1',
      headers: {},
      body: '',
    });
    assert.equal(
      h.authorization,
      `${PREFIX}b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500`,
    );
  });

  it('post-vanilla', () => {
    const h = signV4({
      ...SUITE,
      method: 'POST',
      host: 'example.amazonaws.com',
      path: '/',
      headers: {},
      body: '',
    });
    assert.equal(
      h.authorization,
      `${PREFIX}5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b`,
    );
  });

  it('derives the documented signing key (AWS General Reference example)', () => {
    assert.equal(
      signingKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20120215', 'us-east-1', 'iam').toString('hex'),
      'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d',
    );
  });

  it('signs a Bedrock path double-encoded, the session token signed too', () => {
    assert.equal(
      canonicalUri('/model/anthropic.claude-v2%3A1/converse'),
      '/model/anthropic.claude-v2%253A1/converse',
    );
    assert.equal(canonicalQuery('b=2&a=1&A=0'), 'A=0&a=1&b=2');
    const h = signV4({
      ...SUITE,
      credentials: { ...SUITE.credentials, sessionToken: 'SESSIONTOKEN' },
      method: 'POST',
      host: 'example.amazonaws.com',
      path: '/',
      headers: {},
      body: '',
    });
    assert.equal(h['x-amz-security-token'], 'SESSIONTOKEN');
    assert.match(h.authorization, /SignedHeaders=host;x-amz-date;x-amz-security-token, /);
    assert.equal(amzDateOf(Date.UTC(2015, 7, 30, 12, 36, 0)), '20150830T123600Z');
  });
});

describe('AWS credentials as the SDK default chain finds them', () => {
  const home = tmpDir('aws-home');
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(
    join(home, '.aws', 'credentials'),
    '[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = secretdefault\n\n[dev]\naws_access_key_id=AKIDDEV\naws_secret_access_key=secretdev\naws_session_token=tokendev\n',
  );
  writeFileSync(
    join(home, '.aws', 'config'),
    '[profile sso]\nsso_session = corp\nregion = eu-west-1\n[profile cfg]\naws_access_key_id = AKIDCFG\naws_secret_access_key = secretcfg\n',
  );

  it('takes the config keys first, then the environment, then the profile', () => {
    const env = { HOME: home, AWS_ACCESS_KEY_ID: 'AKIDENV', AWS_SECRET_ACCESS_KEY: 'secretenv' };
    assert.deepEqual(findAwsCredentials({ accessKeyId: 'AKIDCFGKEY', secretAccessKey: 's' }, env), {
      accessKeyId: 'AKIDCFGKEY',
      secretAccessKey: 's',
      sessionToken: undefined,
      source: "the provider's config.accessKeyId",
    });
    assert.equal((findAwsCredentials({}, env) as { accessKeyId: string }).accessKeyId, 'AKIDENV');
    assert.equal(
      (findAwsCredentials({}, { HOME: home }) as { accessKeyId: string }).accessKeyId,
      'AKIDDEFAULT',
    );
    const dev = findAwsCredentials({}, { HOME: home, AWS_PROFILE: 'dev' }) as {
      sessionToken: string;
      source: string;
    };
    assert.equal(dev.sessionToken, 'tokendev');
    assert.match(dev.source, /profile "dev" in .*credentials/);
    // A profile named in the config wins over the environment's keys.
    assert.equal(
      (findAwsCredentials({ profile: 'cfg' }, env) as { accessKeyId: string }).accessKeyId,
      'AKIDCFG',
    );
  });

  it('says what is wrong with a profile it cannot use, and nothing when there is none', () => {
    assert.match((findAwsCredentials({ profile: 'sso' }, { HOME: home }) as { error: string }).error, /SSO/);
    assert.match(
      (findAwsCredentials({ profile: 'nope' }, { HOME: home }) as { error: string }).error,
      /not found/,
    );
    assert.equal(findAwsCredentials({}, { HOME: tmpDir('aws-empty') }), undefined);
  });
});

describe('Google service-account JWT', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('is an RS256 JWT for the token URI, verifiable with the public key', () => {
    const jwt = serviceAccountAssertion(
      {
        type: 'service_account',
        clientEmail: 'sa@proj.iam.gserviceaccount.com',
        privateKey: pem,
        privateKeyId: 'kid1',
        tokenUri: 'http://127.0.0.1:1/token',
        source: 'test',
      },
      'https://www.googleapis.com/auth/cloud-platform',
      1_700_000_000,
    );
    const [h, c, s] = jwt.split('.');
    assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString()), {
      alg: 'RS256',
      typ: 'JWT',
      kid: 'kid1',
    });
    assert.deepEqual(JSON.parse(Buffer.from(c, 'base64url').toString()), {
      iss: 'sa@proj.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: 'http://127.0.0.1:1/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    assert.ok(createVerify('RSA-SHA256').update(`${h}.${c}`).verify(publicKey, Buffer.from(s, 'base64url')));
  });

  it('finds the credential in promptfoo order, and says why one cannot be used', () => {
    const dir = tmpDir('gcp-creds');
    const sa = { type: 'service_account', client_email: 'a@b', private_key: pem, project_id: 'from-key' };
    writeFileSync(join(dir, 'key.json'), JSON.stringify(sa));
    writeFileSync(join(dir, 'bad.json'), '{"type":"external_account"}');
    const found = findGoogleCredential({ credentials: 'file://key.json' }, {}, dir) as { projectId: string };
    assert.equal(found.projectId, 'from-key');
    assert.equal(
      (
        findGoogleCredential({}, { GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'key.json') }, dir) as {
          type: string;
        }
      ).type,
      'service_account',
    );
    assert.match(
      (findGoogleCredential({ keyFilename: 'bad.json' }, {}, dir) as { error: string }).error,
      /external_account.*not supported/,
    );
    assert.equal(findGoogleCredential({}, { HOME: dir }, dir), undefined);
  });
});
