/**
 * AWS Signature Version 4 for the Bedrock provider, with Node's crypto, and AWS credentials read
 * as the AWS SDKs read them: explicit keys, the standard environment variables, then a profile of
 * the shared credentials and config files. Checked against AWS's published SigV4 test-suite
 * signatures (test/providers/aws-sigv4.test.ts).
 *
 * Written here rather than taken from npm (`aws4`): the algorithm is short and fully specified,
 * the signature must be verified against AWS's vectors either way, and `aws4` reads
 * `process.env` itself, while assay resolves credentials from the run's environment (a suite's
 * or a provider's `env` overlays the process's), which a signer that looks for its own would
 * bypass.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** Where they came from, for messages (`AWS_ACCESS_KEY_ID`, `profile "dev" in ~/.aws/credentials`). */
  source: string;
}

export interface SignInput {
  method: string;
  /** Host (and `:port` when not the scheme's default), as sent in the Host header. */
  host: string;
  /** The path as sent on the wire (already percent-encoded), without the query. */
  path: string;
  /** The query string as sent (without `?`), '' for none. */
  query?: string;
  /** Headers to sign besides host and x-amz-date (names any case). */
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: Pick<AwsCredentials, 'accessKeyId' | 'secretAccessKey' | 'sessionToken'>;
  /** `YYYYMMDDTHHMMSSZ`. */
  amzDate: string;
}

/** `YYYYMMDDTHHMMSSZ` of a time. */
export function amzDateOf(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding, as SigV4 wants it (every byte but unreserved characters). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The canonical URI of a wire path: each segment encoded once more (services other than S3 sign
 * the path "double-encoded", so `v1%3A0` is signed as `v1%253A0`).
 */
export function canonicalUri(path: string): string {
  if (path === '' || path === '/') return '/';
  return path
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
}

/** The canonical query: parameters decoded, re-encoded, sorted by name then value. */
export function canonicalQuery(query: string): string {
  if (!query) return '';
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const name = decodeURIComponent(eq < 0 ? p : p.slice(0, eq));
      const value = eq < 0 ? '' : decodeURIComponent(p.slice(eq + 1).replace(/\+/g, ' '));
      return [uriEncode(name), uriEncode(value)] as const;
    });
  pairs.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The signing key for a day, region and service. */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/**
 * The headers to add to a request so AWS accepts it: `x-amz-date`, `x-amz-content-sha256`
 * (signed), `x-amz-security-token` with temporary credentials, and `authorization`.
 */
export function signV4(input: SignInput): Record<string, string> {
  const added: Record<string, string> = { 'x-amz-date': input.amzDate };
  if (input.credentials.sessionToken) added['x-amz-security-token'] = input.credentials.sessionToken;
  const payloadHash = sha256Hex(input.body);
  const all: Record<string, string> = { host: input.host, ...lowerCased(input.headers), ...added };
  const names = Object.keys(all).sort();
  const canonicalHeaders = names.map((n) => `${n}:${all[n].trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalUri(input.path),
    canonicalQuery(input.query ?? ''),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const date = input.amzDate.slice(0, 8);
  const scope = `${date}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', input.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac(
    'sha256',
    signingKey(input.credentials.secretAccessKey, date, input.region, input.service),
  )
    .update(stringToSign, 'utf8')
    .digest('hex');
  return {
    ...added,
    authorization: `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** An INI file as sections of key/value pairs (the AWS shared files' format); {} when unreadable. */
function readIni(path: string): Record<string, Record<string, string>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, Record<string, string>> = {};
  let section: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      section = out[header[1]] ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (section && eq > 0) section[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return out;
}

/**
 * AWS credentials as the SDKs' default chain finds them (the static parts of it): the config's
 * `accessKeyId`/`secretAccessKey`/`sessionToken`; `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`
 * (`AWS_SESSION_TOKEN`); else the profile (`config.profile`, `AWS_PROFILE`, `default`) of the
 * shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, `~/.aws/credentials`) or config file
 * (`AWS_CONFIG_FILE`, `~/.aws/config`, `[profile name]`). Undefined when none is found; an
 * error text when a named profile exists but holds no static keys (SSO, a role, a process).
 */
export function findAwsCredentials(
  config: Record<string, unknown>,
  env: Record<string, string | undefined>,
  home: string = env.HOME || homedir(),
): AwsCredentials | { error: string } | undefined {
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  const configKey = text(config.accessKeyId);
  const configSecret = text(config.secretAccessKey);
  if (configKey && configSecret)
    return {
      accessKeyId: configKey,
      secretAccessKey: configSecret,
      sessionToken: text(config.sessionToken),
      source: "the provider's config.accessKeyId",
    };
  const profileName = text(config.profile) ?? text(env.AWS_PROFILE) ?? 'default';
  const explicitProfile = text(config.profile) !== undefined;
  // A profile named in the config wins over the environment's keys, as in the SDKs.
  const envKey = text(env.AWS_ACCESS_KEY_ID);
  const envSecret = text(env.AWS_SECRET_ACCESS_KEY);
  if (!explicitProfile && envKey && envSecret)
    return {
      accessKeyId: envKey,
      secretAccessKey: envSecret,
      sessionToken: text(env.AWS_SESSION_TOKEN),
      source: 'AWS_ACCESS_KEY_ID',
    };
  const credentialsFile = text(env.AWS_SHARED_CREDENTIALS_FILE) ?? join(home, '.aws', 'credentials');
  const configFile = text(env.AWS_CONFIG_FILE) ?? join(home, '.aws', 'config');
  const fromFile = (
    sections: Record<string, Record<string, string>>,
    names: string[],
    file: string,
  ): AwsCredentials | { error: string } | undefined => {
    for (const name of names) {
      const s = sections[name];
      if (!s) continue;
      if (s.aws_access_key_id && s.aws_secret_access_key)
        return {
          accessKeyId: s.aws_access_key_id,
          secretAccessKey: s.aws_secret_access_key,
          sessionToken: s.aws_session_token || undefined,
          source: `profile "${profileName}" in ${file}`,
        };
      if (s.sso_session || s.sso_start_url || s.role_arn || s.credential_process)
        return {
          error: `profile "${profileName}" in ${file} uses SSO, a role or a credential process, which assay does not resolve: export its keys (aws configure export-credentials --profile ${profileName} --format env) or use a profile with aws_access_key_id`,
        };
    }
    return undefined;
  };
  const found =
    fromFile(readIni(credentialsFile), [profileName], credentialsFile) ??
    fromFile(
      readIni(configFile),
      profileName === 'default' ? ['default', 'profile default'] : [`profile ${profileName}`],
      configFile,
    );
  if (found) return found;
  if (explicitProfile || text(env.AWS_PROFILE))
    return { error: `AWS profile "${profileName}" not found in ${credentialsFile} or ${configFile}` };
  return undefined;
}
