// Which ids name the generic `http` provider, and which of its inputs are credentials: known
// without loading the provider (the registry asks for every id and every spec).
import { type Config, credentialHeaderValues, isRecord } from './http-kit.js';

/** Whether an id names the http provider. */
export function isHttpProviderId(id: string): boolean {
  return id === 'http' || id === 'https' || /^https?:\/\/\S+$/.test(id);
}

/** The values of a config that are credentials (header and query values, auth fields), to redact everywhere. */
export function httpSecrets(config: Config | undefined): string[] {
  if (!config) return [];
  const out = credentialHeaderValues(config.headers);
  // Query parameters named like credentials (`api_key`, `token`…), in queryParams or in the URL.
  out.push(...credentialHeaderValues(config.queryParams));
  if (typeof config.url === 'string')
    for (const m of config.url.matchAll(/[?&]([^=&#]+)=([^&#]*)/g)) {
      let value = m[2];
      try {
        value = decodeURIComponent(value);
      } catch {
        // kept as written
      }
      out.push(...credentialHeaderValues({ [m[1]]: value }));
      if (value !== m[2]) out.push(...credentialHeaderValues({ [m[1]]: m[2] }));
    }
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
