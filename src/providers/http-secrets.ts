// Which ids name the generic `http` provider, and which of its inputs are credentials: known
// without loading the provider (the registry asks for every id and every spec).
import { isCredentialParam, urlCredentials } from '../core/secrets.js';
import { type Config, credentialHeaderValues, isRecord } from './http-kit.js';

/** Whether an id names the http provider. */
export function isHttpProviderId(id: string): boolean {
  return id === 'http' || id === 'https' || /^https?:\/\/\S+$/.test(id);
}

/**
 * The values of a config that are credentials (header and query values, auth fields), to redact
 * everywhere; `url` is the URL the provider's id gives (promptfoo's `http://host/api?token=…`).
 */
export function httpSecrets(config: Config | undefined, url?: string): string[] {
  const out: string[] = [];
  // Query parameters named like credentials (`api_key`, `token`, `sig`…), in the id's URL, config.url
  // or a raw request's request line.
  for (const u of [url, config?.url, config?.request])
    if (typeof u === 'string') for (const c of urlCredentials(u)) out.push(...c.values);
  if (!config) return out.filter((v) => v.length >= 4);
  out.push(...credentialHeaderValues(config.headers));
  out.push(...credentialHeaderValues(config.queryParams));
  if (isRecord(config.queryParams))
    for (const [name, value] of Object.entries(config.queryParams))
      if (isCredentialParam(name) && typeof value === 'string') out.push(value);
  if (isRecord(config.session)) out.push(...credentialHeaderValues(config.session.headers));
  if (isRecord(config.auth)) {
    for (const key of ['token', 'password', 'value', 'clientSecret']) {
      const v = config.auth[key];
      if (typeof v === 'string' && v !== '') out.push(v);
    }
    const { username, password } = config.auth;
    if (typeof username === 'string' && typeof password === 'string')
      out.push(Buffer.from(`${username}:${password}`).toString('base64'));
  }
  if (typeof config.request === 'string') {
    for (const line of config.request.split(/\r?\n/)) {
      const m = /^([^:\s][^:]*):\s*(.*)$/.exec(line);
      if (m) out.push(...credentialHeaderValues({ [m[1]]: m[2] }));
    }
  }
  return out.filter((v) => v.length >= 4);
}
