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
 * Adds secrets to a list kept for redaction, in place (holders of the list see the additions):
 * unique, 8 characters or more (shorter values are too likely to be ordinary words), longest first.
 */
export function addSecrets(list: string[], values: Iterable<string | undefined> = []): string[] {
  const all = new Set(list);
  for (const v of values) if (typeof v === 'string' && v.length >= 8) all.add(v);
  const sorted = [...all].filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
  list.length = 0;
  list.push(...sorted);
  return list;
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

/**
 * Replaces every known secret in a line of JSON, as written or as JSON escapes it, with
 * `[redacted]`; the line stays valid JSON. Cheap when no secret occurs (one `includes` each).
 */
export function redactJsonText(json: string, secrets: string[]): string {
  let out = json;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join('[redacted]');
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s && out.includes(escaped)) out = out.split(escaped).join('[redacted]');
  }
  return out;
}

/** Replaces every occurrence of a known secret in a text with `[redacted]`. */
export function redactText(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}
