// Which ids name the generic `http` provider, and which of its inputs are credentials: known
// without loading the provider (the registry asks for every id and every spec).
import { type Config, credentialHeaderValues, isRecord } from './http-kit.js';

/** Whether an id names the http provider. */
export function isHttpProviderId(id: string): boolean {
  return id === 'http' || id === 'https' || /^https?:\/\/\S+$/.test(id);
}

/** The values of a config that are credentials (header values, auth fields), to redact everywhere. */
export function httpSecrets(config: Config | undefined): string[] {
  if (!config) return [];
  const out = credentialHeaderValues(config.headers);
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
