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
  let events: Event[];
  let documents: unknown[];
  try {
    events = parseEvents(text, {});
    let docs = 0;
    for (const e of events) {
      if (e.type === EVENT_ID.ALIAS) return undefined;
      if (e.type === EVENT_ID.DOCUMENT && ++docs > 1) return undefined;
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
    const indicator = Math.max(
      text.lastIndexOf('|', e.valueStart - 1),
      text.lastIndexOf('>', e.valueStart - 1),
    );
    return indicator >= 0 ? indicator : e.valueStart;
  }
  return e.valueStart;
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
