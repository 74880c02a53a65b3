import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape, hasTemplate } from '../util.js';
import { readXmlName } from './xml-chars.js';
import { parseXml } from './xml-parser.js';
import { hasXmlPath } from './xml-paths.js';

/** The outcome of checking a text for XML: valid (well-formed and has the paths) or why not. */
interface XmlCheck {
  valid: boolean;
  reason: string;
  wellFormed: boolean;
}

/**
 * The element paths an is-xml/contains-xml value requires: none (no value, an empty list or object),
 * a comma-separated string, a list, or `{requiredElements: [...]}`. An empty path can never exist, so
 * it is an error rather than a silent failure. Throws ScorerInputError.
 */
function requiredPaths(type: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  let paths: string[];
  if (typeof value === 'string') {
    paths = value.split(',').map((path) => path.trim());
  } else if (Array.isArray(value)) {
    paths = value.map((path, i) => {
      if (typeof path === 'string' || typeof path === 'number') return String(path).trim();
      throw new ScorerInputError(
        `"${type}" element path ${i + 1} must be a string, got ${describeShape(path)}`,
      );
    });
  } else if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return [];
    const required = (value as Record<string, unknown>).requiredElements;
    if (!Array.isArray(required) || keys.some((key) => key !== 'requiredElements')) {
      throw new ScorerInputError(`"${type}" value must be a string, a list or {requiredElements: [...]}`);
    }
    return requiredPaths(type, required);
  } else {
    throw new ScorerInputError(
      `"${type}" value must be element paths (a string, a list or {requiredElements: [...]}), got ${describeShape(value)}`,
    );
  }
  if (paths.some((path) => path === '')) {
    throw new ScorerInputError(`"${type}" value has an empty element path: ${JSON.stringify(value)}`);
  }
  return paths;
}

function checkPaths(parse: ReturnType<typeof parseXml>, paths: readonly string[]): XmlCheck {
  if (!parse.ok) {
    return {
      valid: false,
      wellFormed: false,
      reason: parse.unsupported ? parse.reason : `XML parsing failed: ${parse.reason}`,
    };
  }
  const missing = paths.filter((path) => !hasXmlPath(parse.tree, path));
  if (missing.length > 0) {
    return {
      valid: false,
      wellFormed: true,
      reason: `XML is missing required elements: ${missing.join(', ')}`,
    };
  }
  return { valid: true, wellFormed: true, reason: 'XML is valid and contains all required elements' };
}

/** The whole output is one well-formed XML document holding every required path. */
export function checkXmlDocument(output: string, paths: readonly string[]): XmlCheck {
  return checkPaths(parseXml(output, 'document'), paths);
}

interface Candidate {
  start: number;
  end: number;
  parent?: number;
}

type Tag =
  | { kind: 'open'; name: string; end: number; selfClosing: boolean }
  | { kind: 'close'; name: string; end: number }
  | { kind: 'other'; end: number };

/** The `>` ending a tag that starts at `start`, skipping quoted values; -1 if a `<` or the end comes first. */
function tagEnd(text: string, start: number): number {
  let quote: string | undefined;
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '<') return -1;
    else if (ch === '>') return i;
  }
  return -1;
}

/** The index of the last character of `delimiter` after `from`, or the text's last index. */
function endOf(text: string, from: number, delimiter: string): number {
  const at = text.indexOf(delimiter, from);
  return at === -1 ? text.length - 1 : at + delimiter.length - 1;
}

/** The tag-like thing at a `<`, or undefined when the `<` starts no tag (prose like "a < b"). */
function tagAt(text: string, start: number): Tag | undefined {
  const next = text[start + 1];
  if (next === undefined) return undefined;
  if (next === '!') {
    if (text.startsWith('<!--', start)) return { kind: 'other', end: endOf(text, start + 4, '-->') };
    if (text.startsWith('<![CDATA[', start)) return { kind: 'other', end: endOf(text, start + 9, ']]>') };
    let quote: string | undefined;
    let depth = 0;
    for (let i = start + 2; i < text.length; i++) {
      const ch = text[i];
      if (quote) {
        if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '[') depth++;
      else if (ch === ']' && depth > 0) depth--;
      else if (ch === '>' && depth === 0) return { kind: 'other', end: i };
    }
    return { kind: 'other', end: text.length - 1 };
  }
  if (next === '?') return { kind: 'other', end: endOf(text, start + 2, '?>') };
  const closing = next === '/';
  const name = readXmlName(text, start + (closing ? 2 : 1));
  if (name === undefined) return undefined;
  const end = tagEnd(text, start);
  if (end === -1) return undefined;
  if (closing) return { kind: 'close', name, end };
  let last = end - 1;
  while (last > start && /\s/.test(text[last])) last--;
  return { kind: 'open', name, end, selfClosing: text[last] === '/' };
}

/**
 * The stretches of prose that may hold XML, in the order promptfoo tries them: first, for each run of
 * sibling elements whose parent is not itself a candidate, the span from the first sibling to the
 * last (so "<a/> and <b/>" can satisfy paths `a` and `b` together); then every outermost balanced
 * element, earliest first. A close tag that does not match the innermost open one resets the scan.
 */
function xmlCandidates(text: string): Candidate[] {
  const stack: { name: string; start: number }[] = [];
  const found: Candidate[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '<') continue;
    const tag = tagAt(text, i);
    if (!tag) continue;
    if (tag.kind === 'open') {
      if (tag.selfClosing) found.push({ start: i, end: tag.end + 1, parent: stack[stack.length - 1]?.start });
      else stack.push({ name: tag.name, start: i });
    } else if (tag.kind === 'close') {
      const open = stack[stack.length - 1];
      if (open?.name === tag.name) {
        stack.pop();
        found.push({ start: open.start, end: tag.end + 1, parent: stack[stack.length - 1]?.start });
      } else {
        stack.length = 0;
      }
    }
    i = tag.end;
  }
  const starts = new Set(found.map((c) => c.start));
  const ordered: Candidate[] = [];
  const seen = new Set<string>();
  const add = (c: Candidate): void => {
    const key = `${c.start}:${c.end}`;
    if (seen.has(key)) return;
    seen.add(key);
    ordered.push(c);
  };
  const byParent = new Map<number | undefined, Candidate[]>();
  for (const c of found) {
    const siblings = byParent.get(c.parent);
    if (siblings) siblings.push(c);
    else byParent.set(c.parent, [c]);
  }
  for (const [parent, siblings] of byParent) {
    if (siblings.length <= 1 || (parent !== undefined && starts.has(parent))) continue;
    siblings.sort((a, b) => a.start - b.start || a.end - b.end);
    add({ start: siblings[0].start, end: siblings[siblings.length - 1].end, parent });
  }
  const outermost = found
    .filter((c) => c.parent === undefined || !starts.has(c.parent))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  for (const c of outermost) add(c);
  return ordered;
}

/**
 * Some XML fragment in the output is well-formed (read leniently, as promptfoo's fast-xml-parser
 * does) and holds every required path, paths starting at the fragment's own top element(s).
 */
export function checkXmlFragments(output: string, paths: readonly string[]): XmlCheck {
  const candidates = xmlCandidates(output);
  if (candidates.length === 0)
    return { valid: false, wellFormed: false, reason: 'No XML content found in the output' };
  const judged: Candidate[] = [];
  for (const c of candidates) {
    // Inside a well-formed fragment that lacked the paths, a smaller piece cannot have them either.
    if (judged.some((j) => c.start >= j.start && c.end <= j.end)) continue;
    const check = checkPaths(parseXml(output.slice(c.start, c.end), 'fragment'), paths);
    if (check.valid) return check;
    if (check.wellFormed) judged.push(c);
  }
  return { valid: false, wellFormed: false, reason: 'No valid XML content found matching the requirements' };
}

function xmlScorer(type: 'is-xml' | 'contains-xml', description: string): Scorer {
  const check = type === 'is-xml' ? checkXmlDocument : checkXmlFragments;
  return {
    type,
    description,
    validate(spec: AssertionSpec) {
      if (typeof spec.value === 'string' && hasTemplate(spec.value)) return undefined;
      try {
        requiredPaths(type, spec.value);
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
      return undefined;
    },
    score(input: ScoreInput): ScoreResult {
      const negate = input.spec.negate === true;
      const result = check(input.output, requiredPaths(type, input.value));
      const pass = result.valid !== negate;
      return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : result.reason };
    },
  };
}

/** is-xml (the whole output is a well-formed document) and contains-xml (some fragment is XML). */
export const xmlScorers: Scorer[] = [
  xmlScorer(
    'is-xml',
    'Output is a well-formed XML document, optionally with required element paths (root.child)',
  ),
  xmlScorer('contains-xml', 'Output contains well-formed XML, optionally with required element paths'),
];
