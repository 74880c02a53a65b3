// The spellings a secret takes on its way out: what a server, a proxy or an identity provider
// echoes is what it was sent (percent-encoded in a query or a form, base64 in a header), quoted
// inside JSON (by a server in its own dialect, then by every writer after it), and the report
// escapes it once more for HTML. A secret is redacted in each of these spellings (core/secrets.ts).

/** How many times a text is JSON-escaped at most (each level doubles the backslashes). */
export const MAX_JSON_DEPTH = 5;
/** How many of those levels a server's own dialect (ASCII-only, HTML-safe, PHP, .NET) may take. */
const MAX_DIALECT_DEPTH = 2;

/**
 * Percent-encodings: which ASCII characters besides letters and digits each encoder leaves as they
 * are. RFC 3986's unreserved set (Go, Python's `quote(safe='')`), encodeURIComponent's, encodeURI's
 * (a whole URL), HTML forms' (URLSearchParams, Java's URLEncoder) and Python's `quote` (keeps `/`).
 */
const KEPT_BY_ENCODERS = ['-_.~', "-_.!~*'()", "-_.!~*'();/?:@&=+$,#", '-_.*', '-_.~/'];

const HEX = '0123456789ABCDEF';
const utf8 = new TextEncoder();

/** `text` percent-encoded, keeping letters, digits and `kept`; a space as `+` or `%20`; hex digits in either case. */
export function percentEncode(text: string, kept: string, spaceAsPlus: boolean, lowerHex: boolean): string {
  let out = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (
      ch.length === 1 &&
      ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a))
    )
      out += ch;
    else if (ch.length === 1 && code < 0x80 && kept.includes(ch)) out += ch;
    else if (ch === ' ' && spaceAsPlus) out += '+';
    else
      for (const byte of utf8.encode(ch)) {
        const hex = `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
        out += lowerHex ? hex.toLowerCase() : hex;
      }
  }
  return out;
}

/** A text in parts (a query parameter's `?name=` and its value), each spelled the same way. */
export type Parts = readonly string[];

/** Spellings of parts, unique by their joined text. */
class SpellingSet {
  readonly byText = new Map<string, Parts>();
  add(parts: Parts): void {
    const key = parts.join('\u0000');
    if (!this.byText.has(key)) this.byText.set(key, parts);
  }
  get list(): Parts[] {
    return [...this.byText.values()];
  }
}

type Escape = (text: string) => string;

const each =
  (spell: Escape) =>
  (parts: Parts): Parts =>
    parts.map(spell);
const same = (a: Parts, b: Parts): boolean => a.every((p, i) => p === b[i]);

/** Every percent-encoding of the parts the encoders above make (the parts themselves when one leaves them as they are). */
function percentSpellings(parts: Parts): Parts[] {
  const out = new SpellingSet();
  out.add(parts);
  for (const kept of KEPT_BY_ENCODERS)
    for (const plus of [false, true])
      for (const lower of [false, true]) out.add(parts.map((p) => percentEncode(p, kept, plus, lower)));
  return out.list;
}

const u4 = (code: number, lower: boolean): string => {
  const hex = code.toString(16).padStart(4, '0');
  return `\\u${lower ? hex : hex.toUpperCase()}`;
};

/** JSON as JavaScript (and most servers) write it: `"`, `\` and control characters escaped. */
const jsonEscape: Escape = (text) => JSON.stringify(text).slice(1, -1);

/** Every code unit matching `re` of an already escaped text as `\uXXXX`. */
const unicodeEscapes =
  (re: RegExp, lower: boolean): Escape =>
  (text) =>
    text.replace(re, (ch) => u4(ch.charCodeAt(0), lower));

const NON_ASCII = /[^\u0000-\u007f]/g;
const HTML_SCRIPT = /[<>&\u2028\u2029]/g;
const asciiOnly = unicodeEscapes(NON_ASCII, true);
const scriptSafe = unicodeEscapes(HTML_SCRIPT, true);

/**
 * The JSON dialects a server may quote in: Python's `json.dumps` (non-ASCII as `\u00e9`), Go's
 * `encoding/json` and assay's report (`<`, `>`, `&` as `\u003c`…), PHP's `json_encode` (`\/` and
 * ASCII only), .NET's System.Text.Json (HTML-sensitive characters and non-ASCII as `\u002B`…).
 */
const DIALECTS: Escape[] = [
  (t) => asciiOnly(jsonEscape(t)),
  (t) => scriptSafe(jsonEscape(t)),
  (t) => asciiOnly(jsonEscape(t)).replaceAll('/', '\\/'),
  (t) =>
    jsonEscape(t)
      .replaceAll('\\"', '\\u0022')
      .replace(/[&'+<>`]|[^\u0000-\u007f]/g, (ch) => u4(ch.charCodeAt(0), false)),
];

/** HTML text: named entities (most servers, XML), and decimal and hex references (assay's report writes decimal ones). */
const ENTITIES: Escape[] = [
  (t) =>
    t.replace(
      /[&<>"']/g,
      (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
    ),
  (t) => t.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`),
  (t) => t.replace(/[&<>"']/g, (ch) => `&#x${ch.charCodeAt(0).toString(16)};`),
];

/** The parts JSON-escaped in `first`'s dialect `times` times, then as JavaScript up to the depth bound: every level. */
function escapeChain(parts: Parts, first: Escape, times: number, out: SpellingSet): void {
  let t = parts;
  for (let i = 0; i < times; i++) {
    const next = each(first)(t);
    if (same(next, t)) break;
    t = next;
    out.add(t);
  }
  if (t === parts && times > 0) return;
  for (let j = times; j < MAX_JSON_DEPTH; j++) {
    const next = each(jsonEscape)(t);
    if (same(next, t)) break;
    t = next;
    out.add(t);
  }
}

/**
 * Every character-by-character spelling of a text (given in parts, each spelled alike): as
 * written, percent-encoded, JSON-escaped to any depth (in each dialect), and each of those
 * HTML-escaped (entities, or the report's script escapes). Each spelling holds the text's runs of
 * letters and digits unchanged.
 */
export function textSpellings(parts: Parts): Parts[] {
  const escaped = new SpellingSet();
  for (const wire of percentSpellings(parts)) {
    escaped.add(wire);
    escapeChain(wire, jsonEscape, 0, escaped);
    for (const dialect of DIALECTS)
      for (let times = 1; times <= MAX_DIALECT_DEPTH; times++) escapeChain(wire, dialect, times, escaped);
  }
  const out = new SpellingSet();
  for (const s of escaped.list) {
    out.add(s);
    out.add(each(scriptSafe)(s));
    for (const entity of ENTITIES) out.add(each(entity)(s));
  }
  return out.list;
}

/**
 * The base64 and base64url spellings of a text (its UTF-8 bytes): whole, with and without padding,
 * and the part that stays the same wherever the text sits in a longer encoded value (a password
 * inside `Basic base64(user:password)`), whatever its alignment; parts shorter than `minLength` are left out.
 */
export function base64Spellings(text: string, minLength: number): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const out = new Set<string>();
  const whole = bytes.toString('base64');
  out.add(whole);
  out.add(whole.replace(/=+$/, ''));
  for (let offset = 0; offset < 3; offset++) {
    const total = offset + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // The first group mixes the bytes before the text, the last (partial) one the bytes after it.
    const core = encoded.slice(offset === 0 ? 0 : 4, total % 3 === 0 ? encoded.length : encoded.length - 1);
    if (core.length >= minLength) out.add(core);
  }
  for (const s of [...out]) out.add(s.replaceAll('+', '-').replaceAll('/', '_'));
  return [...out].filter((s) => s.length >= minLength);
}

/** The base64 spellings as they appear quoted in JSON (PHP's `\/`, .NET's `\u002B`…) too. */
export function escapedBase64Spellings(encoded: string): string[] {
  const out = new SpellingSet();
  out.add([encoded]);
  for (const dialect of DIALECTS) escapeChain([encoded], dialect, 1, out);
  return out.list.map((p) => p[0]);
}

/**
 * Runs of a text that every character-by-character spelling of it holds unchanged (letters,
 * digits, `-`, `_`, `.`: no encoder above touches them): the three longest of 2 characters or
 * more. A text that holds a spelling holds each of them.
 */
export function anchorsOf(text: string): string[] {
  const runs = [...text.matchAll(/[A-Za-z0-9._-]{2,}/g)].map((m) => m[0]);
  return runs.sort((a, b) => b.length - a.length).slice(0, 3);
}
