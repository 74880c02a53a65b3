// Finds JSON-like objects embedded in free text (model prose, ``` fences, several objects in a row)
// and reads them as promptfoo 0.123.1 does (its `extractJsonObjects`, used by contains-json and by
// every grader whose reply is a JSON verdict), so the same text gives the same objects:
//
// - each `{` is a candidate start; braces are counted with no regard for strings, and a candidate
//   is tried when its braces balance, or, unbalanced, when the text (or 100,000 characters) ends,
//   then closed with the missing `}`s (a truncated object is still read);
// - the candidate is read as YAML in flow style (promptfoo's js-yaml with JSON-compatible
//   duplicate keys), after `//` comments outside quotes become `#` comments. So single quotes,
//   unquoted keys and values, trailing commas, comments, `True`/`None` (as text), dates and anchors
//   are all accepted, and `{placeholder}` in prose reads as `{placeholder: null}`;
// - a balanced candidate that does not read ends the attempts from that `{` (a `}` inside a string
//   can close an object early); the next `{` is tried next. An object read moves the search past it.
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import { yamlLib } from '../../core/yaml-lib.js';

/** promptfoo's limit on one candidate object's length. */
const MAX_OBJECT_LENGTH = 100_000;

const LETTER = /[a-zA-Z]/;

/** Whether the quote at `index` is escaped by an odd number of backslashes before it. */
function escaped(line: string, index: number): boolean {
  let n = 0;
  for (let i = index - 1; i >= 0 && line[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

/**
 * `//` comments outside quotes become `#` comments, line by line (promptfoo's rules: a `'` after a
 * letter is an apostrophe, not a quote; `//` inside a token containing `://` is a URL; a run of
 * slashes becomes half as many `#`).
 */
export function slashCommentsToHash(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let quote: '' | "'" | '"' = '';
      let out = '';
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (quote === "'") {
          out += c;
          if (c === "'" && !escaped(line, i) && !LETTER.test(line[i + 1] ?? '')) quote = '';
        } else if (quote === '"') {
          out += c;
          if (c === '"' && !escaped(line, i)) quote = '';
        } else if (c === "'" && !LETTER.test(i > 0 ? line[i - 1] : '')) {
          quote = "'";
          out += c;
        } else if (c === '"') {
          quote = '"';
          out += c;
        } else if (c === '/' && line[i + 1] === '/') {
          let tokenStart = 0;
          for (let j = i - 1; j >= 0; j--) {
            if (/\s/.test(line[j])) {
              tokenStart = j + 1;
              break;
            }
          }
          if (line.slice(tokenStart, i + 2).includes('://')) {
            out += c;
            continue;
          }
          let slashes = 2;
          while (i + slashes < line.length && line[i + slashes] === '/') slashes++;
          return out + '#'.repeat(Math.floor(slashes / 2)) + line.slice(i + slashes);
        } else out += c;
      }
      return out;
    })
    .join('\n');
}

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  // js-yaml's default schema as promptfoo builds it: the core schema plus merge keys, binary,
  // timestamps, omap, pairs and set.
  schema: 'core',
  customTags: ['timestamp', 'binary', 'omap', 'pairs', 'set'],
  merge: true,
  // js-yaml's `json: true`: a repeated key keeps its last value.
  uniqueKeys: false,
  prettyErrors: false,
};

/**
 * js-yaml takes `?` as an explicit-key indicator only before whitespace; before a flow indicator
 * (`?}`, `?,`) it is an error, where the yaml package reads an empty key.
 */
function bareQuestionMark(text: string): boolean {
  let quote = '';
  let prev = '{';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || (c === "'" && /[\s{[,:]/.test(prev))) quote = c;
    else if (c === '?' && /[{[,]/.test(prev) && /[,{}[\]]/.test(text[i + 1] ?? '')) return true;
    if (!/\s/.test(c)) prev = c;
  }
  return false;
}

/** The candidate read as js-yaml would read it, or undefined when it is not a mapping or does not parse. */
function readCandidate(text: string): Record<string, unknown> | undefined {
  // Strict JSON reads the same either way (nothing outside its strings is a comment or a quote),
  // and JSON.parse is much cheaper than a YAML parse.
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json === 'object' && json !== null) return json as Record<string, unknown>;
  } catch {
    // not strict JSON: read it as YAML below
  }
  const source = slashCommentsToHash(text);
  if (bareQuestionMark(source)) throw new Error('a bare "?" key');
  const { isCollection, isScalar, parseDocument, Scalar, visit } = yamlLib();
  const doc = parseDocument(source, YAML_OPTIONS);
  if (doc.errors.length > 0) throw doc.errors[0];
  // Where js-yaml is stricter or differs: an unknown tag is an error, a collection cannot be a
  // key (nor a date), and an empty or null key is the key "null".
  const unknownTag = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (unknownTag) throw unknownTag;
  visit(doc, {
    Pair(_, pair) {
      if (isCollection(pair.key) || (isScalar(pair.key) && pair.key.value instanceof Date))
        throw new Error('a collection or a date as a key');
      if (pair.key === null || (isScalar(pair.key) && pair.key.value === null)) pair.key = new Scalar('null');
    },
  });
  const value: unknown = doc.toJS({ maxAliasCount: -1 });
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

const COLLECTION_KEY = /\{[ \t\r\n]*[{[]/y;

/** Every object found in the text, in order, as promptfoo's extractor finds them. */
export function extractJsonObjects(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (let i = text.indexOf('{'); i !== -1 && i < text.length; i = text.indexOf('{', i + 1)) {
    // A mapping whose first key is itself a collection (`{ {`, `{[`) never reads in js-yaml:
    // skipping it at once keeps text with many unclosed braces from costing a parse per brace.
    COLLECTION_KEY.lastIndex = i;
    if (COLLECTION_KEY.test(text)) continue;
    let open = 1;
    let close = 0;
    let j = i + 1;
    const limit = Math.min(i + MAX_OBJECT_LENGTH, text.length);
    while (j < limit && open > close) {
      const c = text[j];
      if (c === '{') open++;
      else if (c === '}') close++;
      j++;
      if (open !== close && j !== text.length && j !== i + MAX_OBJECT_LENGTH) continue;
      let value: Record<string, unknown> | undefined;
      try {
        value = readCandidate(text.slice(i, j) + '}'.repeat(Math.max(0, open - close)));
      } catch {
        if (open === close) break;
        continue;
      }
      if (value !== undefined) {
        found.push(value);
        i = j - 1;
        break;
      }
    }
  }
  return found;
}
