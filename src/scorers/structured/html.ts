// is-html and contains-html with promptfoo's rules (`src/assertions/html.ts`). contains-html counts
// pattern "indicators"; is-html reads the output the way an HTML5 parser (promptfoo uses jsdom)
// builds a document, with the parts of tree construction that decide its verdict: which text lands
// directly in <body>, and which elements the author wrote.
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';

/** Outputs above this size are not inspected (promptfoo's guard against pathological inputs). */
const MAX_INPUT_SIZE = 10 * 1024 * 1024;

const OPENING_TAG = /<[a-zA-Z][a-zA-Z0-9-]*(?:\s[^>]*)?>/;
const CLOSING_TAG = /<\/[a-zA-Z][a-zA-Z0-9-]*\s*>/;
const SELF_CLOSING_TAG = /<[a-zA-Z][a-zA-Z0-9-]*(?:\s[^>]*)?\/>/;
const ENTITY = /&(?:[a-zA-Z]+|#[0-9]+|#x[0-9a-fA-F]+);/;
const HTML_DOCTYPE = /<!DOCTYPE\s+html/i;
const COMMENT = /<!--[^-]*(?:-[^-]+)*-->/;
const QUOTED_ATTRIBUTE = /\s[a-zA-Z-]+=\s*["'][^"']*["']/;
const COMMON_TAG =
  /<(?:html|head|body|div|span|p|a|img|h[1-6]|ul|ol|li|table|tr|td|th|form|input|button|script|style|link|meta|br|hr)\b/i;

/**
 * promptfoo's contains-html: at least two "indicators" — paired open and close tags (2, or 1 for
 * either alone), a self-closing tag, an entity, an HTML doctype (2), a comment, a quoted attribute,
 * a common HTML tag name (2). Two are needed so "a < b" or a lone "<example>" is not HTML.
 */
export function containsHtml(text: string): boolean {
  if (text.length > MAX_INPUT_SIZE) return false;
  let indicators = 0;
  const opening = OPENING_TAG.test(text);
  const closing = CLOSING_TAG.test(text);
  if (opening && closing) indicators += 2;
  else if (opening || closing) indicators += 1;
  if (SELF_CLOSING_TAG.test(text)) indicators += 1;
  if (ENTITY.test(text)) indicators += 1;
  if (HTML_DOCTYPE.test(text)) indicators += 2;
  if (COMMENT.test(text)) indicators += 1;
  if (QUOTED_ATTRIBUTE.test(text)) indicators += 1;
  if (COMMON_TAG.test(text)) indicators += 2;
  return indicators >= 2;
}

/** Current HTML elements (obsolete ones excluded), as promptfoo's list has them. */
const HTML_ELEMENTS: ReadonlySet<string> = new Set(
  (
    'html head title base link meta style body article section nav aside h1 h2 h3 h4 h5 h6 header footer ' +
    'address p hr pre blockquote ol ul li dl dt dd figure figcaption main div a em strong small s cite q ' +
    'dfn abbr ruby rt rp data time code var samp kbd sub sup i b u mark bdi bdo span br wbr img iframe ' +
    'embed object param picture source video audio track map area svg math script noscript canvas ins ' +
    'del table caption colgroup col tbody thead tfoot tr td th form label input button select datalist ' +
    'optgroup option textarea output progress meter fieldset legend details summary dialog menu slot template'
  ).split(' '),
);

const VOID_ELEMENTS: ReadonlySet<string> = new Set(
  'area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr'.split(
    ' ',
  ),
);
/** Elements whose content is text up to their own end tag (tags inside are not tags). */
const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(
  'script style textarea title xmp iframe noembed noframes'.split(' '),
);
/** Start tags that close an open <p> first (HTML5 "in body" insertion mode). */
const CLOSES_P: ReadonlySet<string> = new Set(
  (
    'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer ' +
    'form h1 h2 h3 h4 h5 h6 header hgroup hr listing main menu nav ol p pre search section summary ul ' +
    'li dd dt plaintext xmp'
  ).split(' '),
);
/** Elements a <p> cannot be closed across (the boundaries of its "button scope"). */
const SCOPE_BOUNDARIES: ReadonlySet<string> = new Set(
  'applet button caption marquee object table td th template'.split(' '),
);
/** Where text is foster-parented out: non-space text directly in these goes before the table. */
const TABLE_SECTIONS: ReadonlySet<string> = new Set(['table', 'tbody', 'thead', 'tfoot', 'tr']);
/** A list item is closed by the next one only within its own list. */
const LIST_SCOPE_BOUNDARIES: ReadonlySet<string> = new Set([...SCOPE_BOUNDARIES, 'ol', 'ul']);
const TABLE_PARTS: ReadonlySet<string> = new Set([
  'caption',
  'col',
  'colgroup',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
]);
const HEADINGS: ReadonlySet<string> = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** The document skeleton an HTML parser always creates, written or not. */
const SKELETON: readonly string[] = ['html', 'head', 'body'];

/** What is-html needs from a parse: the element names and whether text landed directly in <body>. */
interface HtmlShape {
  elements: Set<string>;
  bodyText: boolean;
}

function isAsciiLetter(ch: string | undefined): boolean {
  return ch !== undefined && /^[A-Za-z]$/.test(ch);
}

/** A start or end tag's name and where it ends; undefined when the input ends inside the tag. */
function readTag(text: string, at: number): { name: string; end: number; selfClosing: boolean } | undefined {
  let i = at;
  while (i < text.length && !/[\s/>]/.test(text[i])) i++;
  const name = text.slice(at, i).toLowerCase();
  // Attributes: only a value right after `=` may be quoted (and then hide a `>`).
  while (i < text.length) {
    const ch = text[i];
    if (ch === '>') return { name, end: i + 1, selfClosing: text[i - 1] === '/' };
    if (ch === '=') {
      i++;
      while (i < text.length && /\s/.test(text[i])) i++;
      const quote = text[i];
      if (quote === '"' || quote === "'") {
        const close = text.indexOf(quote, i + 1);
        if (close === -1) return undefined;
        i = close + 1;
        continue;
      }
      continue;
    }
    i++;
  }
  return undefined;
}

/** Where a raw-text element's content ends: at `</name` followed by space, `/` or `>`. */
function rawTextEnd(text: string, lower: string, from: number, name: string): number {
  for (let at = lower.indexOf(`</${name}`, from); at !== -1; at = lower.indexOf(`</${name}`, at + 1)) {
    const after = text[at + 2 + name.length];
    if (after === undefined || after === '>' || after === '/' || /\s/.test(after)) return at;
  }
  return -1;
}

/**
 * Builds as much of the HTML5 tree as is-html's verdict depends on: implied end tags (<p> closed by
 * a block, <li> by the next <li>), void and raw-text elements, self-closing syntax honoured only in
 * SVG/MathML, table foster-parenting of text, and `</p>` / `</br>` creating elements.
 */
function htmlShape(text: string): HtmlShape {
  const elements = new Set<string>(SKELETON);
  const stack: string[] = [];
  let bodyText = false;
  let quirks = true;
  // ASCII-only lower case keeps indices aligned with `text` (full toLowerCase may change lengths).
  const lower = text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

  const textParentIsBody = (): boolean => {
    const top = stack[stack.length - 1];
    if (top === undefined) return true;
    if (!TABLE_SECTIONS.has(top)) return false;
    const table = stack.lastIndexOf('table');
    return table <= 0;
  };
  const addText = (run: string): void => {
    if (!bodyText && run.trim() !== '' && textParentIsBody()) bodyText = true;
  };
  const popThrough = (index: number): void => {
    stack.length = index;
  };
  const inScope = (name: string, boundaries: ReadonlySet<string>): number => {
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i] === name) return i;
      if (boundaries.has(stack[i])) return -1;
    }
    return -1;
  };
  const closeP = (): void => {
    const p = inScope('p', SCOPE_BOUNDARIES);
    if (p !== -1) popThrough(p);
  };
  const start = (name: string, selfClosing: boolean): void => {
    // Table parts outside a table are parse errors the tree builder ignores: no element is made.
    if (TABLE_PARTS.has(name) && !stack.includes('table')) return;
    elements.add(name);
    if (SKELETON.includes(name)) return;
    if (CLOSES_P.has(name) || (name === 'table' && !quirks)) closeP();
    if (name === 'li') {
      const li = inScope('li', LIST_SCOPE_BOUNDARIES);
      if (li !== -1) popThrough(li);
    } else if (name === 'dd' || name === 'dt') {
      const d = Math.max(inScope('dd', SCOPE_BOUNDARIES), inScope('dt', SCOPE_BOUNDARIES));
      if (d !== -1) popThrough(d);
    } else if (HEADINGS.has(name) && HEADINGS.has(stack[stack.length - 1])) {
      stack.pop();
    } else if (name === 'option' && stack[stack.length - 1] === 'option') {
      stack.pop();
    } else if (name === 'tr' || name === 'td' || name === 'th') {
      const table = stack.lastIndexOf('table');
      const open =
        name === 'tr' ? stack.lastIndexOf('tr') : Math.max(stack.lastIndexOf('td'), stack.lastIndexOf('th'));
      if (open > table) popThrough(open);
    }
    if (VOID_ELEMENTS.has(name)) return;
    const foreign = name === 'svg' || name === 'math' || stack.includes('svg') || stack.includes('math');
    if (selfClosing && foreign) return;
    stack.push(name);
  };
  const end = (name: string): void => {
    if (name === 'br') {
      elements.add('br');
      return;
    }
    if (name === 'p' && inScope('p', SCOPE_BOUNDARIES) === -1) {
      elements.add('p');
      return;
    }
    if (SKELETON.includes(name)) return;
    let index = stack.lastIndexOf(name);
    if (index === -1 && HEADINGS.has(name)) {
      for (let i = stack.length - 1; i >= 0 && index === -1; i--) if (HEADINGS.has(stack[i])) index = i;
    }
    if (index !== -1) popThrough(index);
  };

  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt === -1) {
      addText(text.slice(i));
      break;
    }
    if (lt > i) addText(text.slice(i, lt));
    i = lt;
    const next = text[i + 1];
    if (text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i + 4);
      i = close === -1 ? text.length : close + 3;
    } else if (next === '!' || next === '?') {
      if (/^<!doctype\s+html/i.test(text.slice(i, i + 20))) quirks = false;
      const close = text.indexOf('>', i + 2);
      i = close === -1 ? text.length : close + 1;
    } else if (next === '/') {
      if (isAsciiLetter(text[i + 2])) {
        const tag = readTag(text, i + 2);
        if (!tag) break;
        end(tag.name);
        i = tag.end;
      } else if (text[i + 2] === '>') {
        i += 3;
      } else if (text[i + 2] === undefined) {
        addText('</');
        break;
      } else {
        const close = text.indexOf('>', i + 2);
        i = close === -1 ? text.length : close + 1;
      }
    } else if (isAsciiLetter(next)) {
      // A tag the input ends inside is dropped, as an HTML tokenizer drops it.
      const tag = readTag(text, i + 1);
      if (!tag) break;
      i = tag.end;
      start(tag.name, tag.selfClosing);
      if (tag.name === 'plaintext') break;
      if (RAW_TEXT_ELEMENTS.has(tag.name) && stack[stack.length - 1] === tag.name) {
        const close = rawTextEnd(text, lower, i, tag.name);
        if (close === -1) break;
        stack.pop();
        i = text.indexOf('>', close);
        i = i === -1 ? text.length : i + 1;
      }
    } else {
      addText('<');
      i++;
    }
  }
  return { elements, bodyText };
}

/** promptfoo's is-html verdict and reason. */
export function validateHtml(output: string): { valid: boolean; reason: string } {
  const trimmed = output.trim();
  if (trimmed === '') return { valid: false, reason: 'Output is empty' };
  if (trimmed.length > MAX_INPUT_SIZE) return { valid: false, reason: 'Output exceeds maximum size limit' };
  if (/^\s*<\?xml/i.test(trimmed)) return { valid: false, reason: 'Output appears to be XML, not HTML' };
  const lower = trimmed.toLowerCase();
  const shape = htmlShape(trimmed);
  // The parser wraps a fragment in <body>; text directly in it means prose, not HTML (jsdom check).
  if (!lower.includes('<body') && shape.bodyText) {
    return { valid: false, reason: 'Output must be wrapped in HTML tags' };
  }
  const authored = [...shape.elements].some((name) => {
    // The skeleton counts only when the text mentions it (promptfoo's substring test).
    if (SKELETON.includes(name) && !lower.includes(`<${name}`)) return false;
    return HTML_ELEMENTS.has(name) || name.includes('-');
  });
  if (!authored) return { valid: false, reason: 'Output does not contain recognized HTML elements' };
  return { valid: true, reason: 'Output is valid HTML' };
}

/** is-html and contains-html. */
export const htmlScorers: Scorer[] = [
  {
    type: 'is-html',
    description: 'The whole output is HTML (elements only, no stray text outside them)',
    score(input: ScoreInput): ScoreResult {
      const negate = input.spec.negate === true;
      const result = validateHtml(input.output);
      const pass = result.valid !== negate;
      return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : result.reason };
    },
  },
  {
    type: 'contains-html',
    description: 'Output contains HTML (at least two HTML indicators)',
    score(input: ScoreInput): ScoreResult {
      const negate = input.spec.negate === true;
      const pass = containsHtml(input.output) !== negate;
      return {
        pass,
        score: pass ? 1 : 0,
        reason: pass ? 'Assertion passed' : `Expected output to ${negate ? 'not ' : ''}contain HTML content`,
      };
    },
  },
];
