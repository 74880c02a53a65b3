/**
 * Google OAuth access tokens for the Vertex provider, from a service-account key (a JWT signed
 * RS256 with Node's crypto, exchanged at the key's `token_uri`) or an application-default
 * `authorized_user` credential (its refresh token exchanged at its token URI), without an SDK.
 *
 * Why not google-auth-library: it brings gaxios, gcp-metadata, a JWS library and more (promptfoo
 * loads it as an optional peer) for two form POSTs and one RS256 signature; Node's crypto signs
 * RS256 natively, the exchange goes through assay's own HTTP transport (so the run's connection
 * pools, timeouts and error descriptions apply), and the token URL comes from the key file, so
 * tests point it at a loopback mock. The metadata server (credentials of a GCE/Cloud Run
 * instance) is not consulted: assay says so when no credential file is found.
 */
import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { isRecord } from '../core/records.js';
import { excerpt, sendOnce } from './http-transport.js';

export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A credential file's content, as far as tokens go. */
export type GoogleCredential =
  | {
      type: 'service_account';
      clientEmail: string;
      privateKey: string;
      privateKeyId?: string;
      tokenUri: string;
      projectId?: string;
      source: string;
    }
  | {
      type: 'authorized_user';
      clientId: string;
      clientSecret: string;
      refreshToken: string;
      tokenUri: string;
      projectId?: string;
      source: string;
    };

/** The secrets of a credential (to redact wherever they might be echoed). */
export function credentialSecrets(c: GoogleCredential): string[] {
  return c.type === 'service_account' ? [c.privateKey] : [c.clientSecret, c.refreshToken];
}

/**
 * Where a Vertex provider's credential comes from, in promptfoo's order: `config.credentials`
 * (an object, a JSON string, or `file://path`), `config.keyFilename`,
 * `GOOGLE_APPLICATION_CREDENTIALS`, then gcloud's application-default file
 * (`$CLOUDSDK_CONFIG` or `~/.config/gcloud/application_default_credentials.json`).
 * Undefined when none exists; an error text for one that cannot be used.
 */
export function findGoogleCredential(
  config: Record<string, unknown>,
  env: Record<string, string | undefined>,
  basePath: string | undefined,
): GoogleCredential | { error: string } | undefined {
  const base = basePath ?? process.cwd();
  const fileAt = (p: string): string => (isAbsolute(p) ? p : resolve(base, p));
  const creds = config.credentials;
  if (creds !== undefined && creds !== null && creds !== '') {
    if (typeof creds === 'object') return parseCredential(creds, "the provider's config.credentials");
    if (typeof creds === 'string') {
      if (creds.startsWith('file://')) return readCredential(fileAt(creds.slice('file://'.length)));
      try {
        return parseCredential(JSON.parse(creds), "the provider's config.credentials");
      } catch {
        return { error: "the provider's config.credentials is not JSON (nor file://path)" };
      }
    }
    return { error: "the provider's config.credentials must be an object, a JSON string or file://path" };
  }
  const keyFile =
    typeof config.keyFilename === 'string' && config.keyFilename !== ''
      ? config.keyFilename
      : isRecord(config.googleAuthOptions) && typeof config.googleAuthOptions.keyFilename === 'string'
        ? config.googleAuthOptions.keyFilename
        : undefined;
  if (keyFile) return readCredential(fileAt(keyFile));
  const adc = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (adc) return readCredential(fileAt(adc));
  const gcloudDir = env.CLOUDSDK_CONFIG || join(env.HOME || homedir(), '.config', 'gcloud');
  const wellKnown = join(gcloudDir, 'application_default_credentials.json');
  const found = readCredential(wellKnown, true);
  return found;
}

function readCredential(path: string, optional = false): GoogleCredential | { error: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (optional) return undefined;
    return {
      error: `cannot read the Google credential file ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    };
  }
  try {
    return parseCredential(JSON.parse(text), path);
  } catch {
    return { error: `the Google credential file ${path} is not JSON` };
  }
}

function parseCredential(value: unknown, source: string): GoogleCredential | { error: string } {
  if (!isRecord(value)) return { error: `${source}: expected a JSON object` };
  const str = (k: string): string | undefined =>
    typeof value[k] === 'string' && value[k] !== '' ? (value[k] as string) : undefined;
  const tokenUri = str('token_uri') ?? DEFAULT_TOKEN_URI;
  if (value.type === 'service_account') {
    const clientEmail = str('client_email');
    const privateKey = str('private_key');
    if (!clientEmail || !privateKey)
      return { error: `${source}: a service_account key needs client_email and private_key` };
    return {
      type: 'service_account',
      clientEmail,
      privateKey,
      privateKeyId: str('private_key_id'),
      tokenUri,
      projectId: str('project_id'),
      source,
    };
  }
  if (value.type === 'authorized_user') {
    const clientId = str('client_id');
    const clientSecret = str('client_secret');
    const refreshToken = str('refresh_token');
    if (!clientId || !clientSecret || !refreshToken)
      return {
        error: `${source}: an authorized_user credential needs client_id, client_secret and refresh_token`,
      };
    return {
      type: 'authorized_user',
      clientId,
      clientSecret,
      refreshToken,
      tokenUri,
      projectId: str('quota_project_id'),
      source,
    };
  }
  return {
    error: `${source}: credential type "${String(value.type)}" is not supported (service_account or authorized_user)`,
  };
}

const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** The signed JWT a service account presents at its token URI (RFC 7523), valid for an hour. */
export function serviceAccountAssertion(
  c: Extract<GoogleCredential, { type: 'service_account' }>,
  scope: string,
  nowSeconds: number,
): string {
  const header: Record<string, string> = { alg: 'RS256', typ: 'JWT' };
  if (c.privateKeyId) header.kid = c.privateKeyId;
  const claims = { iss: c.clientEmail, scope, aud: c.tokenUri, iat: nowSeconds, exp: nowSeconds + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(c.privateKey);
  return `${unsigned}.${base64url(signature)}`;
}

/** The form body of a token request. */
export function tokenRequestBody(c: GoogleCredential, scope: string, nowSeconds: number): string {
  const form = new URLSearchParams();
  if (c.type === 'service_account') {
    form.set('grant_type', 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    form.set('assertion', serviceAccountAssertion(c, scope, nowSeconds));
  } else {
    form.set('grant_type', 'refresh_token');
    form.set('client_id', c.clientId);
    form.set('client_secret', c.clientSecret);
    form.set('refresh_token', c.refreshToken);
  }
  return form.toString();
}

export type TokenOutcome =
  | { token: string; expiresAtMs: number }
  | { error: string; auth: boolean; transient: boolean; code?: string };

/**
 * Exchanges a credential for an access token (one attempt; the provider's call policy retries).
 * A refused credential (`invalid_grant`, 400/401) is an auth failure; the token endpoint's own
 * `error_description` is kept, as Google words what is wrong with the key there.
 */
export async function fetchAccessToken(
  c: GoogleCredential,
  scope: string,
  nowMs: number,
  signal?: AbortSignal,
): Promise<TokenOutcome> {
  let url: URL;
  try {
    url = new URL(c.tokenUri);
  } catch {
    return { error: `token_uri "${c.tokenUri}" in ${c.source} is not a URL`, auth: true, transient: false };
  }
  let body: string;
  try {
    body = tokenRequestBody(c, scope, Math.floor(nowMs / 1000));
  } catch (err) {
    return {
      error: `cannot sign with the private key in ${c.source}: ${(err as Error).message}`,
      auth: true,
      transient: false,
    };
  }
  const sent = await sendOnce({
    origin: url.origin,
    path: url.pathname + url.search,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    signal,
  });
  if (!sent.ok) {
    const auth = sent.kind === 'http' && (sent.status === 400 || sent.status === 401 || sent.status === 403);
    const what =
      sent.kind === 'http'
        ? `HTTP ${sent.status}: ${sent.message}`
        : `${sent.kind} error${sent.code ? ` ${sent.code}` : ''}: ${sent.message}`;
    return {
      error: `token exchange at ${url.origin}${url.pathname} failed (${what}); check ${c.source}`,
      auth,
      transient: sent.retryable,
      code: sent.code,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(sent.body);
  } catch {
    return { error: `token endpoint answered no JSON: ${excerpt(sent.body)}`, auth: false, transient: false };
  }
  if (!isRecord(parsed) || typeof parsed.access_token !== 'string' || parsed.access_token === '')
    return {
      error: `token endpoint answered no access_token: ${excerpt(sent.body)}`,
      auth: false,
      transient: false,
    };
  const expiresIn = typeof parsed.expires_in === 'number' ? parsed.expires_in : 3600;
  return { token: parsed.access_token, expiresAtMs: nowMs + expiresIn * 1000 };
}
