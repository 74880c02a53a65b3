// A fast reading of a YAML document that can still say where each value was written.
//
// The `yaml` package keeps a full document tree with positions, which is what diagnostics need,
// but building it costs about 2 s for a 2.4 MB suite written inline. js-yaml's event parser reads
// the same text in a tenth of that. So a document is read with js-yaml (the parser promptfoo itself
// uses), its events are kept, and positions are looked up in them only when something asks where a
// value was written. Documents it cannot take as they are (a syntax error, an alias, several
// documents, an empty one) are left to the `yaml` package, which reports them exactly.
import {
  CORE_SCHEMA,
  constructFromEvents,
  EVENT_ID,
  type Event,
  getScalarValue,
  mergeTag,
  parseEvents,
} from 'js-yaml';

const SCHEMA = CORE_SCHEMA.withTags(mergeTag);

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
  let events: Event[];
  let documents: unknown[];
  try {
    events = parseEvents(text, {});
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
    documents = constructFromEvents(events, { source: text, schema: SCHEMA, json: opts.json === true });
  } catch {
    return undefined;
  }
  if (documents.length !== 1) return undefined;
  let root: Located | undefined;
  const index = (): Located => {
    root ??= buildIndex(text, events);
    return root;
  };
  return {
    value: documents[0],
    offsetOf(path) {
      let node = index();
      for (const part of path) {
        const child = childOf(node, part);
        if (!child) break;
        node = child;
      }
      return node.start;
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
      return at < 0 ? undefined : node.keyStarts[at];
    },
  };
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
        add({ kind: 'leaf', start: scalarStart(text, e) }, isKey ? getScalarValue(text, e) : undefined);
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
