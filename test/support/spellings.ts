// The spellings servers, proxies and assay's own writers give a secret, made here with the
// platform's encoders (and Python's and PHP's JSON rules written out), independently of
// src/core/spellings.ts, so tests can look for each of them in what assay wrote and printed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { escapeHtml } from '../../src/report/html.js';
import { scriptSafeJson } from '../../src/report/report-data.js';

/** `s` JSON-escaped `times` times (what a JSON string holds, without its quotes). */
export function inJson(s: string, times: number): string {
  let out = s;
  for (let i = 0; i < times; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
}

const lowerHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
const asciiJson = (s: string): string =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Every spelling of `s` a test looks for, by name. */
export function spellingsOf(s: string): Record<string, string> {
  const form = new URLSearchParams({ v: s }).toString().slice(2);
  const b64 = Buffer.from(s).toString('base64');
  const b64url = Buffer.from(s).toString('base64url');
  return {
    'as written': s,
    'JSON-escaped once': inJson(s, 1),
    'JSON-escaped twice': inJson(s, 2),
    'JSON-escaped three times': inJson(s, 3),
    'JSON-escaped five times': inJson(s, 5),
    'Python json.dumps (ensure_ascii)': asciiJson(s),
    'Python json.dumps, then JSON again': inJson(asciiJson(s), 1),
    'PHP json_encode': asciiJson(s).replaceAll('/', '\\/'),
    encodeURIComponent: encodeURIComponent(s),
    'encodeURIComponent, lower-case hex': lowerHex(encodeURIComponent(s)),
    'form (URLSearchParams, + for space)': form,
    'form, lower-case hex': lowerHex(form),
    'encodeURIComponent with + for space': encodeURIComponent(s).replaceAll('%20', '+'),
    base64: b64,
    'base64 without padding': b64.replace(/=+$/, ''),
    base64url: b64url,
    'base64url with padding': b64url.padEnd(Math.ceil(b64url.length / 4) * 4, '='),
    'HTML (the report’s markup)': escapeHtml(s),
    'HTML named entities': s
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;'),
    'the report’s script JSON': scriptSafeJson(s).slice(1, -1),
    'the report’s script JSON of a JSON line': scriptSafeJson(inJson(s, 1)).slice(1, -1),
  };
}

/** Every file under a folder (recursively); a missing folder has none. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * Where any spelling of any of the secrets occurs in the files (their bytes) and the texts given:
 * `where: how NAME is spelled`, one line each; empty when there is none.
 */
export function leaks(
  secrets: Record<string, string>,
  places: { files?: string[]; texts?: Record<string, string | Buffer> },
): string[] {
  const found: string[] = [];
  const sources: [string, Buffer][] = [
    ...(places.files ?? []).filter((f) => existsSync(f)).map((f): [string, Buffer] => [f, readFileSync(f)]),
    ...Object.entries(places.texts ?? {}).map(([k, v]): [string, Buffer] => [
      k,
      Buffer.isBuffer(v) ? v : Buffer.from(v),
    ]),
  ];
  for (const [name, secret] of Object.entries(secrets)) {
    // Each distinct spelling once (a plain key is spelled alike in most of them).
    const seen = new Set<string>();
    const spellings = Object.entries(spellingsOf(secret)).filter(([, spelled]) => {
      if (seen.has(spelled)) return false;
      seen.add(spelled);
      return true;
    });
    for (const [where, bytes] of sources)
      for (const [how, spelled] of spellings)
        if (bytes.includes(spelled)) found.push(`${where}: ${how} ${name} (${JSON.stringify(spelled)})`);
  }
  return found;
}
