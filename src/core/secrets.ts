// The one redaction boundary of a run. It knows each secret the run declared — a provider's key,
// a credential header, a credential query parameter of any URL assay was given, the values of
// secret-named environment variables, a token obtained while running — and derives every spelling
// of it (core/spellings.ts). Every sink writes through it: the run log, the cache, the outputs made
// from the log, and everything printed to the terminal.
import {
  anchorsOf,
  base64Spellings,
  escapedBase64Spellings,
  type Parts,
  textSpellings,
} from './spellings.js';

/** What a secret is replaced by, in every spelling. */
export const REDACTED = '[redacted]';

/** Values shorter than this are not redacted: they are too likely to be ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/** Names of environment variables whose values are secrets. */
const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD)$/i;

/**
 * Query parameters that carry credentials, by name (case and `-`/`_` aside): any name holding
 * key, token, secret, password (passwd, pwd), auth, signature, credential, session or cookie (`api_key`,
 * `access_token`, `client_secret`, `X-Amz-Signature`, `subscription-key`), and the names that are
 * credentials whole: `code` (an OAuth code), `sig` (an Azure SAS signature), `pass`, `jwt`.
 */
const CREDENTIAL_PARAM = /key|token|secret|passw|pwd|auth|signature|credential|session|cookie/;
const CREDENTIAL_PARAM_WHOLE = new Set(['code', 'sig', 'pass', 'jwt']);

/** Whether a query parameter of this name carries a credential. */
export function isCredentialParam(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, '');
  return CREDENTIAL_PARAM.test(n) || CREDENTIAL_PARAM_WHOLE.has(n);
}

/** A credential found in a URL: a query parameter named like one, or the password of `user:password@`. */
export interface UrlCredential {
  /** The parameter's name (`password` for a userinfo password). */
  name: string;
  /** What precedes the value in the URL (`?token=`, `&api_key=`, `:` before `password@`). */
  prefix: string;
  /** The value as written in the URL. */
  raw: string;
  /** The values it stands for: decoded (`%2B` as `+`; in a query `+` also as a space), and as written. */
  values: string[];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every credential in the URLs of a text (see {@link isCredentialParam}). */
export function urlCredentials(text: string): UrlCredential[] {
  const out: UrlCredential[] = [];
  if (!text.includes('=') && !text.includes('@')) return out;
  for (const m of text.matchAll(/([?&;])([^=&#?;\s"'<>]+)=([^&#;\s"'<>]*)/g)) {
    const [, sep, rawName, raw] = m;
    const name = decoded(rawName);
    if (raw === '' || !isCredentialParam(name)) continue;
    const values = new Set([decoded(raw), decoded(raw.replaceAll('+', ' ')), raw]);
    out.push({ name, prefix: `${sep}${rawName}=`, raw, values: [...values] });
  }
  for (const m of text.matchAll(/\/\/[^/?#@\s:"'<>]*:([^/?#@\s"'<>]+)@/g)) {
    const raw = m[1];
    out.push({ name: 'password', prefix: ':', raw, values: [...new Set([decoded(raw), raw])] });
  }
  return out;
}

/** A URL (or any text) with the values of its credential query parameters and userinfo password shown as `[redacted]`. */
export function maskUrlCredentials(text: string): string {
  let out = text;
  for (const c of urlCredentials(text)) out = out.split(`${c.prefix}${c.raw}`).join(`${c.prefix}${REDACTED}`);
  return out;
}

/** One spelling: the text to find, and what replaces it. */
type Spelling = readonly [from: string, to: string];

/** Spellings that share their anchors (core/spellings.ts anchorsOf): a text holding one of them holds every anchor. */
interface Group {
  anchors: string[];
  spellings: Spelling[];
}

/** From this many groups on, a text is scanned once for their anchors rather than searched for each. */
const SCAN_FROM_GROUPS = 8;

/** The mark assay's excerpts end with when they cut a text short. */
const CUT = '…';

/**
 * The length of the longest start of `spelling` (at least `min` characters, short of the whole)
 * that `text` holds just before `at`; 0 when there is none.
 */
function cutSpelling(text: string, at: number, spelling: string, min: number): number {
  const first = spelling[0];
  for (let start = Math.max(0, at - spelling.length + 1); at - start >= min; start++) {
    if (text[start] !== first) continue;
    const length = at - start;
    if (text.startsWith(spelling.slice(0, length), start)) return length;
  }
  return 0;
}

/** Whether a text holds every anchor of a group (the quick test that most texts fail). */
function anchored(text: string, anchors: string[]): boolean {
  for (const a of anchors) if (!text.includes(a)) return false;
  return true;
}

export interface SecretsOptions {
  /** Shorter values are not redacted (default {@link MIN_SECRET_LENGTH}). */
  minLength?: number;
  /** Told, once per name, of a declared credential too short to redact (the name, never the value). */
  warn?: (message: string) => void;
}

/**
 * The secrets of a run and every spelling of each. Holders share one instance: a secret declared
 * later (a grader built mid-run, an access token) is redacted by every sink from then on.
 */
export class Secrets {
  private readonly minLength: number;
  private readonly warn?: (message: string) => void;
  /** Declared values (and URL parameters as `prefix\0value`), so each is derived once. */
  private readonly known = new Set<string>();
  private readonly warned = new Set<string>();
  private groups: Group[] = [];
  private readonly byAnchor = new Map<string, Group>();
  /**
   * Every run of `minLength` characters of every spelling, to the spellings holding it: a text cut
   * inside a spelling ends in one of these runs, so most `…` are passed over with one look-up.
   * Made when first needed, again after a secret is added.
   */
  private cutIndex: Map<string, Spelling[]> | undefined;
  /** See {@link candidates}; made when first needed, again after a secret is added. */
  private scan: { table: Uint8Array; byPair: Map<number, Group[]>; unanchored: Group[] } | undefined;

  constructor(values: Iterable<string | undefined> = [], options: SecretsOptions = {}) {
    this.minLength = options.minLength ?? MIN_SECRET_LENGTH;
    this.warn = options.warn;
    for (const v of values) this.add(v);
  }

  /** Whether no secret is known (every sink then writes its text unchanged, at no cost). */
  get empty(): boolean {
    return this.groups.length === 0;
  }

  /**
   * Declares a secret. `name` says what holds it (`OPENAI_API_KEY`, `config.apiKey of provider
   * openai:chat:x`): a declared credential shorter than the minimum is not redacted, and the
   * warning says so by that name.
   */
  add(value: string | undefined, name?: string): this {
    if (typeof value !== 'string' || value === '') return this;
    if (value.length < this.minLength) {
      if (name !== undefined && this.warn && !this.warned.has(name)) {
        this.warned.add(name);
        this.warn(
          `${name} is ${value.length} character${value.length === 1 ? '' : 's'} long: a credential under ${this.minLength} characters is not redacted from what assay writes and prints (it could be an ordinary word)`,
        );
      }
      return this;
    }
    if (this.known.has(value)) return this;
    this.known.add(value);
    this.derive([value], 0);
    for (const encoded of base64Spellings(value, this.minLength))
      for (const s of escapedBase64Spellings(encoded)) this.addGroup(anchorsOf(s), [[s, REDACTED]]);
    return this;
  }

  /** Declares several secrets under one name. */
  addAll(values: Iterable<string | undefined>, name?: string): this {
    for (const v of values) this.add(v, name);
    return this;
  }

  /**
   * Declares the credentials in the URLs of a text (a provider id, a base URL): each value is a
   * secret, and `?name=value` is shown as `?name=[redacted]` wherever it is written, whatever the
   * value's length.
   */
  addUrl(text: string | undefined, name: string): this {
    if (typeof text !== 'string') return this;
    for (const c of urlCredentials(text)) {
      for (const v of c.values) {
        this.add(
          v,
          `${c.name === 'password' && c.prefix === ':' ? 'the password' : `query parameter "${c.name}"`} of ${name}`,
        );
        // A userinfo password (`:` before it) is too common a pair to mask whatever its length.
        const key = `${c.prefix}\u0000${v}`;
        if (c.prefix === ':' || this.known.has(key)) continue;
        this.known.add(key);
        this.derive([c.prefix, v], 1);
      }
    }
    return this;
  }

  /** Declares the values of secret-named environment variables (…KEY, …TOKEN, …SECRET, …PASSWORD) and the credentials in URL-valued ones. */
  addEnv(env: Record<string, string | undefined>): this {
    for (const [name, value] of Object.entries(env)) {
      if (!value) continue;
      // A name is a guess, not a declaration: a short value is no credential to warn about.
      if (SECRET_ENV_NAME.test(name) && value.length >= this.minLength) this.add(value);
      if (value.includes('://')) this.addUrl(value, `environment variable ${name}`);
    }
    return this;
  }

  /** Adds the character-by-character spellings of `parts`: the first `kept` parts are kept, the rest is replaced. */
  private derive(parts: Parts, kept: number): void {
    const anchors = anchorsOf(parts[parts.length - 1]);
    const spellings: Spelling[] = textSpellings(parts).map((p) => [
      p.join(''),
      kept === 0 ? REDACTED : `${p.slice(0, kept).join('')}${REDACTED}`,
    ]);
    this.addGroup(anchors, spellings);
  }

  private addGroup(anchors: string[], spellings: Spelling[]): void {
    const key = anchors.join('\u0000');
    let group = this.byAnchor.get(key);
    if (!group) {
      group = { anchors, spellings: [] };
      this.byAnchor.set(key, group);
      this.groups = [...this.groups, group];
    }
    this.cutIndex = undefined;
    this.scan = undefined;
    const seen = new Set(group.spellings.map((s) => s[0]));
    for (const s of spellings) if (!seen.has(s[0])) group.spellings.push(s);
  }

  /** Whether a text holds any spelling of a secret. */
  foundIn(text: string): boolean {
    const groups = this.candidates(text);
    if (!groups) return false;
    for (const g of groups) {
      if (!anchored(text, g.anchors)) continue;
      for (const [from] of g.spellings) if (text.includes(from)) return true;
    }
    return false;
  }

  /**
   * The groups whose first anchor a text may hold. With few groups, all of them (a search per
   * anchor is quickest); with more (several secrets, each with its base64 spellings), those whose
   * anchor starts at some pair of characters of the text, found in one pass over it: the cost of a
   * text no longer grows with the number of secrets. Undefined when there is none.
   */
  private candidates(text: string): readonly Group[] | undefined {
    if (this.groups.length === 0) return undefined;
    if (this.groups.length <= SCAN_FROM_GROUPS) return this.groups;
    const scan = this.pairScan();
    const out = new Set<Group>(scan.unanchored);
    const last = text.length - 1;
    let prev = text.charCodeAt(0) & 0xff;
    for (let i = 0; i < last; i++) {
      const next = text.charCodeAt(i + 1) & 0xff;
      const pair = (prev << 8) | next;
      prev = next;
      if (scan.table[pair] === 0) continue;
      for (const g of scan.byPair.get(pair) ?? []) if (text.startsWith(g.anchors[0], i)) out.add(g);
    }
    return out.size > 0 ? [...out] : undefined;
  }

  /** See {@link candidates}: the groups by the first two characters (low bytes) of their first anchor. */
  private pairScan(): NonNullable<Secrets['scan']> {
    if (this.scan) return this.scan;
    const table = new Uint8Array(65536);
    const byPair = new Map<number, Group[]>();
    const unanchored: Group[] = [];
    for (const g of this.groups) {
      const anchor = g.anchors[0];
      if (anchor === undefined) {
        unanchored.push(g);
        continue;
      }
      const pair = ((anchor.charCodeAt(0) & 0xff) << 8) | (anchor.charCodeAt(1) & 0xff);
      table[pair] = 1;
      const list = byPair.get(pair);
      if (list) list.push(g);
      else byPair.set(pair, [g]);
    }
    this.scan = { table, byPair, unanchored };
    return this.scan;
  }

  /** A text with every spelling of every secret replaced by `[redacted]` (the same text when none occurs). */
  redact(text: string): string {
    const out = this.redactWhole(text);
    return out.includes(CUT) && this.groups.length > 0 ? this.redactCut(out) : out;
  }

  private redactWhole(text: string): string {
    const groups = this.candidates(text);
    if (!groups) return text;
    let hits: Spelling[] | undefined;
    for (const g of groups) {
      if (!anchored(text, g.anchors)) continue;
      for (const s of g.spellings) {
        if (!text.includes(s[0])) continue;
        hits ??= [];
        hits.push(s);
      }
    }
    if (!hits) return text;
    // Longest first: a spelling that holds another (the whole base64 and its part) goes whole.
    hits.sort((a, b) => b[0].length - a[0].length);
    let out = text;
    for (const [from, to] of hits) if (out.includes(from)) out = out.split(from).join(to);
    return out;
  }

  /**
   * An excerpt cut inside a secret (a server's body quoted in an error, cut at 200 characters and
   * `…`) ends in the start of a spelling: the longest such start, from the minimum length on, is
   * replaced as the whole spelling would be.
   */
  private redactCut(text: string): string {
    const index = this.cutRuns();
    const m = this.minLength;
    let out = text;
    for (let at = out.indexOf(CUT); at >= 0; at = out.indexOf(CUT, at + 1)) {
      const candidates = at >= m ? index.get(out.slice(at - m, at)) : undefined;
      if (!candidates) continue;
      let best = 0;
      let replacement = REDACTED;
      for (const [from, to] of candidates) {
        const kept = to.length - REDACTED.length;
        const length = cutSpelling(out, at, from, Math.max(m, kept + 1));
        if (length > best) {
          best = length;
          replacement = to;
        }
      }
      if (best === 0) continue;
      out = `${out.slice(0, at - best)}${replacement}${out.slice(at)}`;
      at += replacement.length - best;
    }
    return out;
  }

  /** See {@link cutIndex}. */
  private cutRuns(): Map<string, Spelling[]> {
    if (this.cutIndex) return this.cutIndex;
    const index = new Map<string, Spelling[]>();
    const m = this.minLength;
    for (const g of this.groups)
      for (const spelling of g.spellings) {
        const [from] = spelling;
        const seen = new Set<string>();
        for (let i = 0; i + m < from.length; i++) {
          const run = from.slice(i, i + m);
          if (seen.has(run)) continue;
          seen.add(run);
          const list = index.get(run);
          if (list) list.push(spelling);
          else index.set(run, [spelling]);
        }
      }
    this.cutIndex = index;
    return index;
  }

  /**
   * A JSON text with every spelling of every secret replaced, still valid JSON: when replacing
   * the text would break it (a secret ending in a backslash, matched inside an escape), each string
   * of the parsed value is redacted instead and the value written again (`space` as JSON.stringify's).
   */
  redactJson(json: string, space?: number): string {
    const out = this.redact(json);
    if (out === json) return json;
    try {
      JSON.parse(out);
      return out;
    } catch {
      // Each string redacted in every spelling (escaped ones among them): no secret at any depth.
      return JSON.stringify(this.redactValue(JSON.parse(json)), null, space);
    }
  }

  /** A copy of a parsed JSON value with every string in it (names too) redacted. */
  redactValue(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.redact(k)] = this.redactValue(v);
    return out;
  }
}
