// A fast reading of a YAML document that can still say where each value was written.
//
// The `yaml` package keeps a full document tree with positions, which is what diagnostics need,
// but building it costs about 2 s for a 2.4 MB suite written inline. js-yaml's event parser reads
// the same text in a tenth of that. So a document is read with js-yaml (the parser promptfoo itself
// uses), its events are kept, and positions are looked up in them only when something asks where a
// value was written. Documents it cannot take as they are (a syntax error, an alias, several
// documents, an empty one) are left to the `yaml` package, which reports them exactly.
import { createRequire } from 'node:module';
import type { Event, EVENT_ID as EventIds } from 'js-yaml';

type JsYaml = typeof import('js-yaml');

/**
 * js-yaml, loaded on first use (its CommonJS build, the same code as its ES module): only large
 * files are read with it, so start-up and small suites never compile its 130 kB.
 */
let lib: { js: JsYaml; schema: ReturnType<JsYaml['CORE_SCHEMA']['withTags']> } | undefined;
/** js-yaml's event kinds: set with the library, before any event exists to compare with them. */
let EVENT_ID!: typeof EventIds;
function jsYaml(): NonNullable<typeof lib> {
  if (!lib) {
    const js = createRequire(import.meta.url)('js-yaml') as JsYaml;
    lib = { js, schema: js.CORE_SCHEMA.withTags(js.mergeTag) };
    EVENT_ID = js.EVENT_ID;
  }
  return lib;
}

/**
 * Files smaller than this are read by the yaml package alone: its full document costs little at
 * that size, and it is the stricter reader (js-yaml accepts some malformed text it reports).
 */
export const FAST_YAML_MIN_CHARS = 256 * 1024;

/** A node of the position index: where it starts, and for collections, its children. */
type Located =
  | { kind: 'map'; start: number; keys: (string | undefined)[]; keyStarts: number[]; values: Located[] }
  | { kind: 'seq'; start: number; items: Located[] }
  | { kind: 'leaf'; start: number };

/** A document read by the fast path. */
export interface FastYaml {
  value: unknown;
  /** The offset where the value at `path` (or its nearest written ancestor) starts. */
  offsetOf(path: readonly (string | number)[]): number;
  /** The offset of the key of the mapping entry at `path`, when it was written as a plain key. */
  keyOffsetOf(path: readonly (string | number)[]): number | undefined;
}

/**
 * Reads `text` with js-yaml (YAML 1.2 core schema with merge keys, as the `yaml` package reads it
 * here); undefined when the document needs the exact reader: it does not parse, holds an alias or
 * several documents, or is empty. `json`: duplicate keys are legal and the last wins.
 */
export function readYamlFast(text: string, opts: { json?: boolean } = {}): FastYaml | undefined {
  // A line that starts a mapping value with no key (`: x`): the yaml package reports it.
  if (/^[ \t-]*:[ \t\r\n]/m.test(text)) return undefined;
  const read = readEvents(text, opts);
  return read && fastYaml(text, read.events, read.value);
}

/** The events and value of a single-document text, or undefined when the exact reader must read it. */
function readEvents(text: string, opts: { json?: boolean }): { events: Event[]; value: unknown } | undefined {
  let events: Event[];
  let documents: unknown[];
  try {
    const { js, schema } = jsYaml();
    events = js.parseEvents(text, {});
    let docs = 0;
    for (const e of events) {
      if (e.type === EVENT_ID.ALIAS) return undefined;
      if (e.type === EVENT_ID.DOCUMENT && ++docs > 1) return undefined;
      // A plain scalar cannot start with a flow indicator, nor with ": ": js-yaml reads such text
      // where the yaml package reports the syntax error (with its position) that it is.
      if (e.type === EVENT_ID.SCALAR && e.style === 1 && e.valueStart >= 0) {
        const c = text[e.valueStart];
        if (c === ',' || c === '[' || c === ']' || c === '{' || c === '}') return undefined;
        if (c === ':' && /\s/.test(text[e.valueStart + 1] ?? ' ')) return undefined;
      }
    }
    documents = js.constructFromEvents(events, { source: text, schema, json: opts.json === true });
  } catch {
    return undefined;
  }
  if (documents.length !== 1) return undefined;
  return { events, value: documents[0] };
}

/** A read document; `text` is what its positions index (the parsed text, or one with the same offsets). */
function fastYaml(text: string, events: Event[], value: unknown, shift = 0): FastYaml {
  let root: Located | undefined;
  const index = (): Located => {
    root ??= buildIndex(text, events);
    return root;
  };
  return {
    value,
    offsetOf(path) {
      let node = index();
      for (const part of path) {
        const child = childOf(node, part);
        if (!child) break;
        node = child;
      }
      return node.start < 0 ? node.start : node.start + shift;
    },
    keyOffsetOf(path) {
      if (path.length === 0) return undefined;
      let node: Located | undefined = index();
      for (const part of path.slice(0, -1)) {
        node = childOf(node, part);
        if (!node) return undefined;
      }
      if (node.kind !== 'map') return undefined;
      const at = node.keys.lastIndexOf(String(path[path.length - 1]));
      if (at < 0) return undefined;
      const start = node.keyStarts[at];
      return start < 0 ? start : start + shift;
    },
  };
}

/**
 * A document whose root mapping's `key` holds a block sequence, read without that sequence's items:
 * `rest` reads as the document with the key's value empty (null), at the same offsets, and
 * `bounds` holds where each item's text starts (the last entry: where the sequence ends). The
 * items are read a chunk at a time by {@link readSequenceChunk}, so a pass over them never holds
 * them all. Undefined unless the rest reads as {@link readYamlFast} reads a whole text (one
 * document, no alias), with a `key:` line at the start of a line once, whose sequence's lines
 * are found, and a root without any of `refuseRootKeys`. Whether the items read as the whole text
 * would read them is for readSequenceChunk to say.
 */
export function splitRootSequence(
  text: string,
  key: string,
  opts: { json?: boolean; refuseRootKeys?: readonly string[] } = {},
): { rest: FastYaml; bounds: Float64Array } | undefined {
  if (/^[ \t-]*:[ \t\r\n]/m.test(text)) return undefined;
  const keyLine = new RegExp(`^${key}:[ \\t]*(?:#[^\\n]*)?\\r?$`, 'gm');
  const found = [...text.matchAll(keyLine)];
  if (found.length !== 1) return undefined;
  const keyStart = found[0].index;
  const starts: number[] = [];
  let indent = -1;
  let end = text.length;
  let line = text.indexOf('\n', keyStart);
  for (let at = line < 0 ? text.length : line + 1; at < text.length; at = line + 1) {
    line = text.indexOf('\n', at);
    if (line < 0) line = text.length;
    let i = at;
    while (i < line && text.charCodeAt(i) === 32) i++;
    const c = text[i];
    // A blank line, or a comment, belongs to no item (a block scalar's own lines are indented more).
    if (i === line || c === '\r' || c === '#') continue;
    // A tab where indentation goes: the exact reader says what it makes of it.
    if (c === '\t') return undefined;
    const n = i - at;
    if (indent < 0) indent = n;
    if (n > indent) continue;
    const next = text[i + 1];
    if (n === indent && c === '-' && (next === ' ' || next === '\n' || next === '\r' || next === undefined)) {
      starts.push(at);
      continue;
    }
    end = at;
    break;
  }
  if (starts.length === 0) return undefined;
  const bounds = Float64Array.from([...starts, end]);
  // The items are read (and checked, see readSequenceChunk) a chunk at a time as they are used.
  // The rest: the text without the items' lines (they start and end at line starts), its
  // events moved back to where they are in the whole text.
  const read = readEvents(text.slice(0, bounds[0]) + text.slice(end), opts);
  if (!read || !isPlainRecord(read.value)) return undefined;
  const value = read.value;
  if (value[key] !== null || (opts.refuseRootKeys ?? []).some((k) => k in value)) return undefined;
  const rest = fastYaml(text, shiftedEvents(read.events, bounds[0], end - bounds[0]), value);
  if (rest.keyOffsetOf([key]) !== keyStart) return undefined;
  return { rest, bounds };
}

/** Events whose offsets from `from` on are moved by `by` (every other offset is kept). */
function shiftedEvents(events: Event[], from: number, by: number): Event[] {
  const move = (offset: number): number => (offset >= from ? offset + by : offset);
  return events.map((e) => {
    switch (e.type) {
      case EVENT_ID.SCALAR:
        return {
          ...e,
          valueStart: move(e.valueStart),
          valueEnd: move(e.valueEnd),
          anchorStart: move(e.anchorStart),
          anchorEnd: move(e.anchorEnd),
          tagStart: move(e.tagStart),
          tagEnd: move(e.tagEnd),
        };
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        return {
          ...e,
          start: move(e.start),
          anchorStart: move(e.anchorStart),
          anchorEnd: move(e.anchorEnd),
          tagStart: move(e.tagStart),
          tagEnd: move(e.tagEnd),
        };
      default:
        return e;
    }
  });
}

/**
 * Items read a chunk at a time: js-yaml's cost per call (about 80 µs) would otherwise exceed the
 * cost of reading a small item; a chunk of this many items is a few MB at most.
 */
export const SEQUENCE_CHUNK = 64;

/** Whether the events of a sequence hold only mappings none of whose own keys is refused. */
function plainItems(text: string, events: Event[], refused: ReadonlySet<string>): boolean {
  if (events[1]?.type !== EVENT_ID.SEQUENCE) return false;
  // Depth 0: the sequence's items; 1: an item's keys and values.
  let depth = 0;
  let isKey = true;
  for (let j = 2; j < events.length; j++) {
    const e = events[j];
    if (e.type === EVENT_ID.POP) {
      depth--;
      if (depth < 0) return true;
      if (depth === 1) isKey = !isKey;
    } else if (depth === 0) {
      if (e.type !== EVENT_ID.MAPPING) return false;
      depth = 1;
      isKey = true;
    } else if (e.type === EVENT_ID.MAPPING || e.type === EVENT_ID.SEQUENCE) {
      // A collection as a key: the exact reader says what it makes of it.
      if (depth === 1 && isKey) return false;
      depth++;
    } else if (depth === 1) {
      if (isKey && e.type === EVENT_ID.SCALAR && refused.has(jsYaml().js.getScalarValue(text, e)))
        return false;
      isKey = !isKey;
    }
  }
  return true;
}

/** Items `first`…`first + count - 1` of a sequence split by {@link splitRootSequence}, positioned in the whole text. */
export interface SequenceChunk {
  /** The chunk's text (the items' lines). */
  text: string;
  /** Where the chunk's text starts in the whole text. */
  start: number;
  values: unknown[];
  /** As {@link FastYaml.offsetOf}, below item `k` of the chunk; offsets in the whole text. */
  offsetOf(k: number, path: readonly (string | number)[]): number;
  keyOffsetOf(k: number, path: readonly (string | number)[]): number | undefined;
}

/**
 * Reads the items of a split sequence from `bounds[first]` to `bounds[first + count]`; undefined
 * unless they read as the whole text would read them: each a mapping (none of whose own keys is
 * in `refused`), with no alias, as {@link readYamlFast} requires. The whole text must then be
 * read whole (the first pass over the items finds out).
 */
export function readSequenceChunk(
  text: string,
  bounds: Float64Array,
  first: number,
  count: number,
  opts: { json?: boolean; refused?: ReadonlySet<string> } = {},
): SequenceChunk | undefined {
  const start = bounds[first];
  const chunk = text.slice(start, bounds[first + count]);
  const read = readEvents(chunk, opts);
  if (!read || !Array.isArray(read.value) || read.value.length !== count) return undefined;
  if (!plainItems(chunk, read.events, opts.refused ?? new Set())) return undefined;
  const whole = fastYaml(chunk, read.events, read.value, start);
  return {
    text: chunk,
    start,
    values: read.value,
    offsetOf: (k, path) => whole.offsetOf([k, ...path]),
    keyOffsetOf: (k, path) => whole.keyOffsetOf([k, ...path]),
  };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function childOf(node: Located, part: string | number): Located | undefined {
  if (node.kind === 'seq') return typeof part === 'number' ? node.items[part] : undefined;
  if (node.kind === 'map') {
    // The last of duplicate keys is the one a JSON reading keeps.
    const at = node.keys.lastIndexOf(String(part));
    return at < 0 ? undefined : node.values[at];
  }
  return undefined;
}

/** Where a scalar starts as the `yaml` package says it: at its opening quote or block indicator. */
function scalarStart(text: string, e: Extract<Event, { type: typeof EVENT_ID.SCALAR }>): number {
  // Styles: 1 plain, 2 single-quoted, 3 double-quoted, 4 literal, 5 folded.
  if (e.style === 2 || e.style === 3) return e.valueStart - 1;
  if (e.style === 4 || e.style === 5) {
    const indicator = blockIndicator(text, e.valueStart);
    return indicator >= 0 ? indicator : e.valueStart;
  }
  return e.valueStart;
}

/** The `|` or `>` that opens a block scalar whose text starts at `start`, skipping a header comment's. */
function blockIndicator(text: string, start: number): number {
  let at = start - 1;
  while (at >= 0) {
    const found = Math.max(text.lastIndexOf('|', at), text.lastIndexOf('>', at));
    if (found < 0) return -1;
    const lineStart = text.lastIndexOf('\n', found - 1) + 1;
    let comment = -1;
    for (let k = lineStart; k < found && comment < 0; k++)
      if (text[k] === '#' && (k === lineStart || text[k - 1] === ' ' || text[k - 1] === '\t')) comment = k;
    if (comment < 0) return found;
    at = comment - 1;
  }
  return -1;
}

/** The position tree of the first document's events (built on the first position asked for). */
function buildIndex(text: string, events: Event[]): Located {
  type Open = Extract<Located, { kind: 'map' | 'seq' }> & { pendingKey?: { key?: string; start: number } };
  const stack: Open[] = [];
  let root: Located = { kind: 'leaf', start: 0 };
  const add = (node: Located, keyText?: string): void => {
    const parent = stack[stack.length - 1];
    if (!parent) {
      root = node;
      return;
    }
    if (parent.kind === 'seq') {
      parent.items.push(node);
      return;
    }
    if (!parent.pendingKey) {
      parent.pendingKey = { key: keyText, start: node.start };
      return;
    }
    parent.keys.push(parent.pendingKey.key);
    parent.keyStarts.push(parent.pendingKey.start);
    parent.values.push(node);
    parent.pendingKey = undefined;
  };
  for (const e of events) {
    switch (e.type) {
      case EVENT_ID.MAPPING: {
        const node: Open = { kind: 'map', start: e.start, keys: [], keyStarts: [], values: [] };
        add(node);
        stack.push(node);
        break;
      }
      case EVENT_ID.SEQUENCE: {
        const node: Open = { kind: 'seq', start: e.start, items: [] };
        add(node);
        stack.push(node);
        break;
      }
      case EVENT_ID.SCALAR: {
        const parent = stack[stack.length - 1];
        const isKey = parent?.kind === 'map' && !parent.pendingKey;
        add(
          { kind: 'leaf', start: scalarStart(text, e) },
          isKey ? jsYaml().js.getScalarValue(text, e) : undefined,
        );
        break;
      }
      case EVENT_ID.POP:
        if (stack.length > 0) stack.pop();
        break;
      default:
        break;
    }
  }
  return root;
}
