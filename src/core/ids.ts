import { sha256 } from './hash.js';
import type { Case } from './types.js';

// Positions say where a case was written, not what it is: they stay out of its identity.
const withoutSource = (key: string, value: unknown): unknown => (key === 'source' ? undefined : value);

/**
 * Exactly `JSON.stringify(value, withoutSource)` (ids recorded in old run logs depend on these
 * bytes), written out for plain data: a replacer function called on every key cost more than the
 * hashing at 100k cases. Anything but plain objects, arrays and primitives goes to JSON.stringify.
 */
function contentJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break;
    default:
      return JSON.stringify(value, withoutSource);
  }
  if (value === null) return 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return JSON.stringify(value, withoutSource);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += contentJson(value[i]) ?? 'null';
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return JSON.stringify(value, withoutSource);
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    if (key === 'source') continue;
    const item = contentJson((value as Record<string, unknown>)[key]);
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  return `${out}}`;
}

/** The text a case's id is the hash of (exported for the test that pins it to the original form). */
export function caseContent(c: Omit<Case, 'id'>): string {
  return contentJson([
    c.description ?? null,
    c.vars,
    c.asserts,
    c.conversations ?? null,
    c.preparation?.options ?? null,
    c.replay?.output ?? null,
    ...(c.replay?.runs !== undefined ? [c.replay.runs] : []),
  ]) as string;
}

/** contentJson of an array's item (undefined ones are `null`, as JSON.stringify writes them). */
function itemJson(value: unknown): string {
  return contentJson(value) ?? 'null';
}

/** The JSON of frozen assertions (a CSV cell's, shared by every row that repeats it), by object. */
const frozenJson = new WeakMap<object, string>();

/** contentJson of a case's assertion list, each frozen assertion written once however many cases share it. */
function assertsJson(asserts: unknown): string {
  if (!Array.isArray(asserts)) return itemJson(asserts);
  let out = '[';
  for (let i = 0; i < asserts.length; i++) {
    const a: unknown = asserts[i];
    let text: string | undefined;
    if (a !== null && typeof a === 'object' && Object.isFrozen(a)) {
      text = frozenJson.get(a);
      if (text === undefined) {
        text = itemJson(a);
        frozenJson.set(a, text);
      }
    } else text = itemJson(a);
    out += i > 0 ? `,${text}` : text;
  }
  return `${out}]`;
}

/**
 * {@link caseContent} and {@link askedContent} of one case, built from the same pieces (the
 * description and vars are written once for both): byte for byte the texts those give.
 */
function contents(c: Omit<Case, 'id'>): { content: string; asked: string } {
  const description = itemJson(c.description ?? null);
  const vars = itemJson(c.vars);
  const conversations = itemJson(c.conversations ?? null);
  let content = `[${description},${vars},${assertsJson(c.asserts)},${conversations},${itemJson(c.preparation?.options ?? null)},${itemJson(c.replay?.output ?? null)}`;
  if (c.replay?.runs !== undefined) content += `,${itemJson(c.replay.runs)}`;
  return { content: `${content}]`, asked: `[${description},${vars},${conversations}]` };
}

/**
 * Sets on every case (in place) an id derived from its content (description, vars, assertions, conversations,
 * options, fixed output), so the id survives reordering; identical cases get `-2`, `-3`… in order
 * of appearance. Loaders build cases with keys in a fixed order, so plain JSON is canonical enough
 * (and several times cheaper than sorting keys, which matters at 100k cases). Then sets its ref
 * (see {@link assignCaseRefs}).
 */
export function assignCaseIds(cases: Omit<Case, 'id'>[]): Case[] {
  const ids = new CaseIdentities();
  for (const c of cases) ids.assign(c);
  return cases as Case[];
}

/** The text a case's default ref is the hash of: what the model is asked, not how it is checked. */
export function askedContent(c: Omit<Case, 'id'>): string {
  return contentJson([c.description ?? null, c.vars, c.conversations ?? null]) as string;
}

/**
 * Sets every case's stable identity (in place): the loader's `ref` (the format's own id) when it
 * gave one, else `h:` and a hash of the case's description, vars and conversations. A ref used
 * again gets `#2`, `#3`… in order of appearance, so refs are unique within the suite.
 */
export function assignCaseRefs<C extends Omit<Case, 'id'>>(cases: C[]): C[] {
  const refs = new Repeats();
  for (const c of cases) setRef(c, (key) => refs.count(key));
  return cases;
}

/**
 * Gives cases their id and ref one at a time, in suite order, as {@link assignCaseIds} does for a
 * list: a streamed suite's cases are never all in memory, and each pass over them must give every
 * case the same identity. The first pass (`assign`) hashes each case and keeps its id and content
 * ref as two 48-bit numbers (16 bytes a case) plus where repeats fell; later passes (`again`, with
 * the case's position) read them back without hashing.
 */
export class CaseIdentities {
  private readonly ids = new Repeats();
  private readonly refs = new Repeats();
  /** Position → suffix number, for the (rare) repeated ids and refs. */
  private readonly idRepeats = new Map<number, number>();
  private readonly refRepeats = new Map<number, number>();
  /** Per position: the id's 48 bits, then the content ref's (-1: the format gave the ref). */
  private hashes = new Float64Array(2048);
  private position = 0;

  /** Sets the next case's id and ref (first pass). */
  assign<C extends Omit<Case, 'id'>>(c: C): C & Case {
    const at = this.position++;
    const { content, asked } = contents(c);
    const base = sha256(content).slice(0, 12);
    const value = Number.parseInt(base, 16);
    const n = this.ids.count(value);
    if (n > 1) this.idRepeats.set(at, n);
    (c as unknown as Case).id = n === 1 ? base : `${base}-${n}`;
    const hashed = c.ref === undefined;
    const m = setRef(c, (key) => this.refs.count(key), asked);
    if (m > 1) this.refRepeats.set(at, m);
    if (2 * at + 2 > this.hashes.length) {
      const grown = new Float64Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[2 * at] = value;
    this.hashes[2 * at + 1] = hashed ? Number.parseInt((c.ref as string).slice(2, 14), 16) : -1;
    return c as C & Case;
  }

  /** Sets the id and ref the first pass gave the case at this position. */
  again<C extends Omit<Case, 'id'>>(c: C, position: number): C & Case {
    const base = hex48(this.hashes[2 * position]);
    const n = this.idRepeats.get(position) ?? 1;
    (c as unknown as Case).id = n === 1 ? base : `${base}-${n}`;
    const ref = this.hashes[2 * position + 1];
    const m = this.refRepeats.get(position) ?? 1;
    if (ref >= 0) {
      const hashedRef = `h:${hex48(ref)}`;
      c.ref = m === 1 ? hashedRef : `${hashedRef}#${m}`;
    } else setRef(c, () => m);
    return c as C & Case;
  }

  /** The first pass is over: the tables that told repeats apart are no longer needed. */
  done(): void {
    this.ids.clear();
    this.refs.clear();
    this.hashes = this.hashes.slice(0, 2 * this.position);
  }
}

/** A 48-bit number as the 12 hex digits it was read from. */
function hex48(value: number): string {
  // Two 24-bit halves: small integers print far faster than a 48-bit double does.
  const high = Math.floor(value / 0x1000000);
  const low = value - high * 0x1000000;
  return high.toString(16).padStart(6, '0') + low.toString(16).padStart(6, '0');
}

/**
 * Sets a case's ref from its own or its content, `#n` added for the n-th use; `use` says which use
 * this is, given the ref's 48-bit key; `asked`: the case's {@link askedContent}, when known. Returns n.
 */
function setRef(c: Omit<Case, 'id'>, use: (key: number) => number, asked?: string): number {
  const hashed = c.ref === undefined;
  const base = c.ref ?? `h:${sha256(asked ?? askedContent(c)).slice(0, 12)}`;
  // A content ref is 48 bits already; a format's own ref is told apart by 48 bits of its hash.
  const n = use(Number.parseInt(hashed ? base.slice(2) : sha256(base).slice(0, 12), 16));
  c.ref = n === 1 ? base : `${base}#${n}`;
  return n;
}

/**
 * How many times each 48-bit value has been seen: an open-addressing table of doubles (8 bytes a
 * value, load at most ½) plus a map for the values seen more than once, which are rare.
 */
class Repeats {
  private table = new Float64Array(1024).fill(-1);
  private size = 0;
  private readonly more = new Map<number, number>();

  /** Records one more sighting of `value` (a whole number below 2^48); returns how many so far. */
  count(value: number): number {
    if ((this.size + 1) * 2 > this.table.length) this.grow();
    const mask = this.table.length - 1;
    for (let i = this.slot(value, mask); ; i = (i + 1) & mask) {
      const v = this.table[i];
      if (v === -1) {
        this.table[i] = value;
        this.size++;
        return 1;
      }
      if (v === value) {
        const n = (this.more.get(value) ?? 1) + 1;
        this.more.set(value, n);
        return n;
      }
    }
  }

  clear(): void {
    this.table = new Float64Array(0);
    this.size = 0;
    this.more.clear();
  }

  private slot(value: number, mask: number): number {
    // The low 32 bits of a hash are already uniform.
    return (value % 4294967296) & mask;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Float64Array(Math.max(1024, old.length * 2)).fill(-1);
    const mask = this.table.length - 1;
    for (const v of old) {
      if (v === -1) continue;
      let i = this.slot(v, mask);
      while (this.table[i] !== -1) i = (i + 1) & mask;
      this.table[i] = v;
    }
  }
}
