// What promptfoo 0.123.1 does to a result's `testCase`, `vars` and `prompt` before it writes them
// (EvalResult.createFromEvaluateResult → sanitizeForDbWithSecrets → sanitizeObject): every string
// that parses as a JSON object or array is re-serialised compactly (its contents sanitised too), a
// string that looks like a credential becomes "[REDACTED]", and so does the value of a key named
// like a credential (`apiKey`, `password`, `token`, …) or a credential header. assay's
// `--output-format promptfoo` applies the same to the same fields, so a row reads as promptfoo's.
//
// Not ported (no effect on the fields written from a promptfoo suite run by assay, or too narrow):
// Azure blob SAS tokens inside URLs, URL-encoded form data, and the URL rewriting of `url` /
// `apiHost` keys.

export const REDACTED = '[REDACTED]';

/** promptfoo's SECRET_FIELD_NAMES, matched after normalizeFieldName. */
const SECRET_FIELD_NAMES = new Set([
  'password',
  'passwd',
  'pwd',
  'secret',
  'secrets',
  'secretkey',
  'credentials',
  'apikey',
  'apisecret',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'bearertoken',
  'authtoken',
  'clientsecret',
  'webhooksecret',
  'anthropicapikey',
  'awsbearertokenbedrock',
  'secretaccesskey',
  'awssecretaccesskey',
  'sessiontoken',
  'awssessiontoken',
  'accesskeyid',
  'awsaccesskeyid',
  'authorization',
  'auth',
  'bearer',
  'apikeyenvar',
  'xapikey',
  'xauthtoken',
  'xaccesstoken',
  'xauth',
  'xsecret',
  'xcsrftoken',
  'portkeyapikey',
  'portkeyvirtualkey',
  'xportkeyapikey',
  'xportkeyvirtualkey',
  'xportkeyawsaccesskeyid',
  'xportkeyawssecretaccesskey',
  'xportkeyawssessiontoken',
  'xsessiondata',
  'csrftoken',
  'sessionid',
  'session',
  'cookie',
  'setcookie',
  'certificatepassword',
  'keystorepassword',
  'pfxpassword',
  'privatekey',
  'certkey',
  'encryptionkey',
  'signingkey',
  'signature',
  'sig',
  'passphrase',
  'certificatecontent',
  'keystorecontent',
  'pfx',
  'pfxcontent',
  'keycontent',
  'certcontent',
]);

/** Headers promptfoo keeps (when their value does not look like a credential). */
const KEPT_HEADERS = new Set([
  'accept',
  'content-type',
  'openai-beta',
  'openai-organization',
  'openai-project',
  'user-agent',
  'x-openai-originator',
  'x-org-id',
  'x-organization-id',
  'x-scope-orgid',
  'x-tenant-id',
]);

/** promptfoo's isSecretField: lowercase, without `-`, `_`, whitespace and `=`. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD_NAMES.has(name.toLowerCase().replace(/[-_\s=]/g, ''));
}

/** promptfoo's looksLikeSecret: provider key prefixes, auth schemes, or 64+ characters of base64/hex-like text. */
export function looksLikeSecret(value: string): boolean {
  return (
    /^sk-[a-zA-Z0-9-_]{20,}/.test(value) ||
    /^key-[a-zA-Z0-9]{20,}/.test(value) ||
    /^Bearer\s+.{20,}/i.test(value) ||
    /^Basic\s+.{20,}/i.test(value) ||
    /^AKIA[A-Z0-9]{16}/.test(value) ||
    /^AIza[a-zA-Z0-9_-]{35}/.test(value) ||
    (value.length >= 64 && !/[^a-zA-Z0-9+/=_-]/.test(value))
  );
}

/** A credential-looking header name (promptfoo's isTracingCredentialHeader, by name and value). */
function isCredentialHeader(name: string, value: string): boolean {
  const normalized = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return (
    isSecretField(name) ||
    /(?:^|[-_\s])(?:api[-_\s]?key|access[-_\s]?key|auth(?:orization)?|token|password|passwd|secret|credentials?|cookie)(?:$|[-_\s])/i.test(
      normalized,
    ) ||
    normalized.replace(/[-_]/g, '') === 'xhoneycombteam' ||
    /^(?:bearer|basic|token|api[-_]?key)\s+\S+/i.test(value.trim()) ||
    looksLikeSecret(value.trim())
  );
}

function sanitizeString(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return looksLikeSecret(text) ? REDACTED : text;
  }
  // Only objects and arrays are re-serialised; a string that parses as a number or `true` stays.
  return parsed !== null && typeof parsed === 'object' ? JSON.stringify(sanitizeValue(parsed)) : text;
}

function sanitizeValue(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeString(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sanitizeValue);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (isSecretField(key)) out[key] = REDACTED;
    else if (key.toLowerCase() === 'headers' && item && typeof item === 'object')
      out[key] = Object.fromEntries(
        Object.entries(item).map(([name, h]) => [
          name,
          typeof h === 'string' && !isCredentialHeader(name, h) && KEPT_HEADERS.has(name.toLowerCase())
            ? h
            : REDACTED,
        ]),
      );
    else if (typeof item === 'string' && looksLikeSecret(item)) out[key] = REDACTED;
    else out[key] = sanitizeValue(item);
  }
  return out;
}

/**
 * A field of a result as promptfoo writes it (sanitizeObject with no depth limit): a JSON round
 * trip (undefined members dropped), then the rules above.
 */
export function sanitizeForPromptfoo<T>(value: T): T {
  if (value === null || value === undefined) return value;
  return sanitizeValue(JSON.parse(JSON.stringify(value))) as T;
}
