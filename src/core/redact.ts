const SECRET_KEY =
  /(api[-_]?key|token|secret|password|passwd|authorization|auth[-_]?header|credential|private[-_]?key|cookie|auth[-_]?key|subscription[-_]?key)/i;

/** A copy of a value with every field whose name looks secret replaced by `[redacted]`. */
export function redactObject<T>(value: T): T {
  return redact(value, 0) as T;
}

/** Whether {@link redactObject} would change anything of a value (a field whose name looks secret holds a text or an object). */
export function needsRedaction(value: unknown, depth = 0): boolean {
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const v of value) if (needsRedaction(v, depth + 1)) return true;
    return false;
  }
  // redactObject copies anything else into a plain object (a Date's JSON would change): a copy is needed.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return true;
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    if (SECRET_KEY.test(k) ? hidden(v) : needsRedaction(v, depth + 1)) return true;
  }
  return false;
}

function redact(value: unknown, depth: number): unknown {
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = SECRET_KEY.test(k) && hidden(v) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

/**
 * Whether the value of a field whose name looks secret is hidden. Numbers and booleans are
 * settings, not secrets (`max_tokens: 1024` must stay readable); nothing, null and '' hide nothing.
 */
function hidden(v: unknown): boolean {
  return !(v === undefined || v === null || v === '' || typeof v === 'number' || typeof v === 'boolean');
}

/** The values of environment variables that hold secrets (names ending in KEY, TOKEN, SECRET…), longest first. */
export function secretValues(env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v && v.length >= 8 && /(KEY|TOKEN|SECRET|PASSWORD)$/i.test(k)) out.push(v);
  }
  return out.sort((a, b) => b.length - a.length);
}

/**
 * The values of the secret-looking fields of a config (a provider's `apiKey`, an auth header
 * under `headers`), at any depth: strings of 8 characters or more.
 */
export function secretConfigValues(value: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && v.length >= 8 && SECRET_KEY.test(k)) out.push(v);
    else secretConfigValues(v, depth + 1, out);
  }
  return out;
}

/** Whether a field of this name holds a secret (`apiKey`, `Authorization`, `client_secret`, `password`…). */
export function isSecretFieldName(name: string): boolean {
  return SECRET_KEY.test(name);
}

/** Every text of a config at any depth, with its path (`headers.Authorization`) and its field's name. */
export function configTexts(
  value: unknown,
  path = '',
  depth = 0,
  out: { path: string; field: string; text: string }[] = [],
): { path: string; field: string; text: string }[] {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value)) {
    const at = path === '' ? k : Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`;
    if (typeof v === 'string') out.push({ path: at, field: k, text: v });
    else configTexts(v, at, depth + 1, out);
  }
  return out;
}
