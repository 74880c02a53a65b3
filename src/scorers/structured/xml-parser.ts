// A small XML 1.0 well-formedness checker that also builds the element tree the `is-xml` and
// `contains-xml` paths are looked up in. Two modes:
//  - document: the whole text must be a well-formed document, as promptfoo's saxes-based check
//    demands (one root, declared entities only, no text outside the root, a DTD internal subset
//    refused);
//  - fragment: a piece cut from prose, read as leniently as promptfoo's fast-xml-parser reads it
//    (several roots, text between them, bare `&`, unknown entities, unquoted or valueless attributes),
//    but with every element properly closed.

import { isName, isSpace, isXmlChar, readXmlName } from './xml-chars.js';

/** An element: its name, attributes, child elements and the text directly inside it. */
export interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
}

/** The top-level elements of a document or fragment (the XML declaration as a `?xml` pseudo-element). */
export interface XmlTree {
  roots: XmlElement[];
}

/** A parse: the tree, or why the text is not well-formed (`unsupported`: refused by policy, not malformed). */
export type XmlParse = { ok: true; tree: XmlTree } | { ok: false; reason: string; unsupported?: boolean };

class XmlSyntaxError extends Error {
  constructor(
    readonly at: number,
    message: string,
    readonly unsupported = false,
  ) {
    super(message);
  }
}

const PREDEFINED_ENTITIES = new Set(['lt', 'gt', 'amp', 'apos', 'quot']);

function newElement(name: string): XmlElement {
  return { name, attributes: new Map(), children: [], text: '' };
}

class XmlReader {
  private i = 0;
  private readonly strict: boolean;
  private standalone = false;
  /** A DTD with an external subset may declare entities we cannot see: undeclared ones are then kept. */
  private externalEntities = false;
  private seenDoctype = false;

  constructor(
    private readonly text: string,
    mode: 'document' | 'fragment',
  ) {
    this.strict = mode === 'document';
  }

  read(): XmlTree {
    const { text } = this;
    const roots: XmlElement[] = [];
    if (this.strict) this.checkCharacters();
    if (text.charCodeAt(0) === 0xfeff) this.i = 1;
    const declared =
      text.startsWith('<?xml', this.i) && (isSpace(text[this.i + 5]) || text[this.i + 5] === '?');
    if (this.strict && declared) roots.push(this.declaration());
    while (this.i < text.length) {
      if (text[this.i] !== '<') {
        const end = this.indexOrEnd('<', this.i);
        const run = text.slice(this.i, end);
        if (this.strict && run.trim() !== '')
          this.fail(this.i + run.search(/\S/), 'text data outside of root node');
        this.i = end;
        continue;
      }
      if (text.startsWith('<!--', this.i)) this.comment();
      else if (text.startsWith('<?', this.i)) this.instruction();
      else if (text.startsWith('<!DOCTYPE', this.i)) this.doctype(roots.length > 0);
      else if (text.startsWith('<![CDATA[', this.i)) {
        if (this.strict) this.fail(this.i, 'CDATA section outside of root node');
        this.cdata();
      } else if (text.startsWith('</', this.i)) {
        this.fail(this.i, `unexpected close tag ${this.tagAt(this.i)} with no open element`);
      } else if (readXmlName(text, this.i + 1) !== undefined) {
        if (this.strict && roots.some((r) => r.name !== '?xml')) {
          this.fail(this.i, 'document must contain only one root element');
        }
        roots.push(this.element());
      } else if (this.strict) {
        this.fail(this.i + 1, 'disallowed character in tag name');
      } else {
        this.i++;
      }
    }
    if (this.strict && !roots.some((r) => r.name !== '?xml')) {
      this.fail(text.length, 'document must contain a root element');
    }
    return { roots };
  }

  private fail(at: number, message: string): never {
    throw new XmlSyntaxError(at, message);
  }

  private indexOrEnd(needle: string, from: number): number {
    const at = this.text.indexOf(needle, from);
    return at === -1 ? this.text.length : at;
  }

  /** `</name>` as written, for messages. */
  private tagAt(at: number): string {
    const name = readXmlName(this.text, at + 2);
    return name ? `</${name}>` : '</';
  }

  private checkCharacters(): void {
    const { text } = this;
    for (let i = 0; i < text.length; i++) {
      const cp = text.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      else if (!isXmlChar(cp))
        this.fail(i, `disallowed character U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
    }
  }

  private skipSpaces(): boolean {
    const start = this.i;
    while (isSpace(this.text[this.i])) this.i++;
    return this.i > start;
  }

  /** `<?xml version="1.0" encoding="…" standalone="yes|no"?>`, in that order; kept as `?xml` pseudo-element. */
  private declaration(): XmlElement {
    const start = this.i;
    const element = newElement('?xml');
    this.i += 5;
    const fields = ['version', 'encoding', 'standalone'];
    let next = 0;
    for (;;) {
      const spaced = this.skipSpaces();
      if (this.text.startsWith('?>', this.i)) {
        this.i += 2;
        break;
      }
      const name = readXmlName(this.text, this.i);
      const index = name === undefined ? -1 : fields.indexOf(name, next);
      if (!spaced || name === undefined || index === -1 || (index > 0 && next === 0)) {
        this.fail(start, 'malformed XML declaration');
      }
      const value = this.attributeValue(name);
      const valid =
        (name === 'version' && /^1\.[0-9]+$/.test(value)) ||
        (name === 'encoding' && /^[A-Za-z][A-Za-z0-9._-]*$/.test(value)) ||
        (name === 'standalone' && (value === 'yes' || value === 'no'));
      if (!valid) this.fail(start, `malformed XML declaration: invalid ${name} "${value}"`);
      if (name === 'standalone') this.standalone = value === 'yes';
      element.attributes.set(name, value);
      next = index + 1;
    }
    if (!element.attributes.has('version')) this.fail(start, 'XML declaration must contain a version');
    return element;
  }

  /** `= "value"` after an attribute name (the name already read); returns the raw value. */
  private attributeValue(name: string): string {
    this.i += name.length;
    this.skipSpaces();
    if (this.text[this.i] !== '=') this.fail(this.i, `attribute ${name} without value`);
    this.i++;
    this.skipSpaces();
    const quote = this.text[this.i];
    if (quote !== '"' && quote !== "'") this.fail(this.i, `unquoted attribute value for ${name}`);
    const close = this.text.indexOf(quote, this.i + 1);
    if (close === -1) this.fail(this.i, `unclosed attribute value for ${name}`);
    const value = this.text.slice(this.i + 1, close);
    this.i = close + 1;
    return value;
  }

  private comment(): void {
    const start = this.i;
    const end = this.text.indexOf('-->', start + 4);
    if (end === -1) this.fail(start, 'unclosed comment');
    const body = this.text.slice(start + 4, end);
    if (this.strict && (body.includes('--') || body.endsWith('-'))) {
      this.fail(start, 'double-hyphen in comment');
    }
    this.i = end + 3;
  }

  private instruction(): void {
    const start = this.i;
    const target = readXmlName(this.text, start + 2);
    if (target === undefined) {
      if (this.strict) this.fail(start, 'processing instruction without a target');
    } else if (this.strict) {
      if (target.toLowerCase() === 'xml') {
        this.fail(start, 'XML declaration allowed only at the start of the document');
      }
      const after = start + 2 + target.length;
      if (!this.text.startsWith('?>', after) && !isSpace(this.text[after])) {
        this.fail(after, 'disallowed character in processing instruction target');
      }
    }
    const end = this.text.indexOf('?>', start + 2);
    if (end === -1) this.fail(start, 'unclosed processing instruction');
    this.i = end + 2;
  }

  private cdata(): string {
    const start = this.i;
    const end = this.text.indexOf(']]>', start + 9);
    if (end === -1) this.fail(start, 'unclosed CDATA section');
    this.i = end + 3;
    return this.text.slice(start + 9, end);
  }

  /** `<!DOCTYPE name [SYSTEM "…" | PUBLIC "…" "…"]>`; an internal subset `[…]` is refused. */
  private doctype(afterRoot: boolean): void {
    const start = this.i;
    const end = declarationEnd(this.text, start + 9);
    if (!this.strict) {
      this.i = end === -1 ? this.text.length : end + 1;
      return;
    }
    // Entity declarations in an internal subset could expand without bound: refused, as promptfoo does.
    if (hasInternalSubset(this.text, start + 9)) {
      throw new XmlSyntaxError(start, 'DTD internal subsets are not supported by is-xml validation', true);
    }
    if (afterRoot || this.seenDoctype) {
      this.fail(start, 'doctype declaration is only allowed once, before the root element');
    }
    if (end === -1) this.fail(start, 'unclosed doctype declaration');
    const external = doctypeExternal(this.text.slice(start + 9, end));
    if (external === undefined) this.fail(start, 'Malformed DOCTYPE declaration');
    this.externalEntities = external && !this.standalone;
    this.seenDoctype = true;
    this.i = end + 1;
  }

  /** One element and everything inside it, iteratively (deep nesting must not overflow the stack). */
  private element(): XmlElement {
    const { text } = this;
    const open: XmlElement[] = [];
    const starts: number[] = [];
    const root = this.startTag();
    if (root.selfClosing) return root.element;
    open.push(root.element);
    starts.push(root.start);
    while (open.length > 0) {
      const current = open[open.length - 1];
      if (this.i >= text.length) this.fail(starts[starts.length - 1], `unclosed tag: ${current.name}`);
      if (text[this.i] !== '<') {
        const end = this.indexOrEnd('<', this.i);
        const run = text.slice(this.i, end);
        if (this.strict) this.checkText(run, this.i);
        current.text += run;
        this.i = end;
        continue;
      }
      if (text.startsWith('</', this.i)) {
        const at = this.i;
        const name = readXmlName(text, at + 2);
        if (name === undefined) this.fail(at + 2, 'disallowed character in closing tag');
        this.i = at + 2 + name.length;
        this.skipSpaces();
        if (text[this.i] !== '>') this.fail(this.i, `unclosed close tag </${name}`);
        this.i++;
        if (name !== current.name)
          this.fail(at, `unexpected close tag </${name}>; expected </${current.name}>`);
        open.pop();
        starts.pop();
      } else if (text.startsWith('<!--', this.i)) this.comment();
      else if (text.startsWith('<![CDATA[', this.i)) current.text += this.cdata();
      else if (text.startsWith('<?', this.i)) this.instruction();
      else if (text.startsWith('<!', this.i)) {
        if (this.strict) this.fail(this.i, 'markup declaration inside an element');
        this.i = this.indexOrEnd('>', this.i) + 1;
      } else if (readXmlName(text, this.i + 1) !== undefined) {
        const child = this.startTag();
        current.children.push(child.element);
        if (!child.selfClosing) {
          open.push(child.element);
          starts.push(child.start);
        }
      } else if (this.strict) {
        this.fail(this.i + 1, 'disallowed character in tag name');
      } else {
        current.text += '<';
        this.i++;
      }
    }
    return root.element;
  }

  /** `<name attr="v" …>` or `…/>`; `this.i` is on the `<`. */
  private startTag(): { element: XmlElement; selfClosing: boolean; start: number } {
    const { text } = this;
    const start = this.i;
    const name = readXmlName(text, start + 1) as string;
    const element = newElement(name);
    this.i = start + 1 + name.length;
    for (;;) {
      const spaced = this.skipSpaces();
      if (this.i >= text.length) this.fail(start, `unclosed start tag <${name}`);
      if (text.startsWith('/>', this.i)) {
        this.i += 2;
        return { element, selfClosing: true, start };
      }
      if (text[this.i] === '>') {
        this.i++;
        return { element, selfClosing: false, start };
      }
      const attribute = readXmlName(text, this.i);
      if (attribute === undefined) {
        if (this.strict) this.fail(this.i, `disallowed character in attribute name of <${name}>`);
        this.i++;
        continue;
      }
      if (this.strict) {
        if (!spaced) this.fail(this.i, `no whitespace before attribute ${attribute} of <${name}>`);
        if (element.attributes.has(attribute)) this.fail(this.i, `duplicate attribute: ${attribute}`);
        const at = this.i;
        const value = this.attributeValue(attribute);
        if (value.includes('<')) this.fail(at, `disallowed character "<" in attribute value of ${attribute}`);
        this.checkReferences(value, at);
        element.attributes.set(attribute, value);
      } else {
        element.attributes.set(attribute, this.looseAttributeValue(attribute));
      }
    }
  }

  /** fast-xml-parser's leniency: `attr` alone, `attr=value` unquoted, or quoted. */
  private looseAttributeValue(name: string): string {
    const { text } = this;
    this.i += name.length;
    const before = this.i;
    this.skipSpaces();
    if (text[this.i] !== '=') {
      this.i = before;
      return '';
    }
    this.i++;
    this.skipSpaces();
    const quote = text[this.i];
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, this.i + 1);
      if (close === -1) this.fail(this.i, `unclosed attribute value for ${name}`);
      const value = text.slice(this.i + 1, close);
      this.i = close + 1;
      return value;
    }
    const from = this.i;
    while (
      this.i < text.length &&
      !isSpace(text[this.i]) &&
      text[this.i] !== '>' &&
      !text.startsWith('/>', this.i)
    ) {
      this.i++;
    }
    return text.slice(from, this.i);
  }

  private checkText(run: string, at: number): void {
    const cdataEnd = run.indexOf(']]>');
    if (cdataEnd !== -1) this.fail(at + cdataEnd, 'the string "]]>" is disallowed in char data');
    this.checkReferences(run, at);
  }

  /** Every `&` must start a character reference or a declared entity reference. */
  private checkReferences(run: string, at: number): void {
    for (let amp = run.indexOf('&'); amp !== -1; amp = run.indexOf('&', amp + 1)) {
      const semi = run.indexOf(';', amp + 1);
      const body = semi === -1 ? '' : run.slice(amp + 1, semi);
      if (body.startsWith('#')) {
        const code = /^#x[0-9a-fA-F]+$/.test(body)
          ? Number.parseInt(body.slice(2), 16)
          : /^#[0-9]+$/.test(body)
            ? Number.parseInt(body.slice(1), 10)
            : Number.NaN;
        if (!isXmlChar(code)) this.fail(at + amp, `invalid character reference &${body};`);
      } else if (!isName(body)) {
        this.fail(at + amp, '"&" must start an entity or character reference (write &amp;)');
      } else if (!PREDEFINED_ENTITIES.has(body) && !this.externalEntities) {
        this.fail(at + amp, `undefined entity: ${body}`);
      }
    }
  }
}

/** The `>` closing a markup declaration, skipping quoted literals and a bracketed subset; -1 if none. */
function declarationEnd(text: string, from: number): number {
  let quote: string | undefined;
  let depth = 0;
  for (let j = from; j < text.length; j++) {
    const ch = text[j];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']' && depth > 0) depth--;
    else if (ch === '>' && depth === 0) return j;
  }
  return -1;
}

/** Whether the doctype starting at `from` has `[` outside quoted literals. */
function hasInternalSubset(text: string, from: number): boolean {
  let quote: string | undefined;
  for (let j = from; j < text.length; j++) {
    const ch = text[j];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') return true;
    else if (ch === '>') return false;
  }
  return false;
}

/** A doctype body (after `<!DOCTYPE`): true with an external ID, false without, undefined if malformed. */
function doctypeExternal(body: string): boolean | undefined {
  const m = /^[ \t\r\n]+(\S+)([ \t\r\n]*)(.*)$/s.exec(body);
  if (!m || !isName(m[1])) return undefined;
  const rest = m[3];
  if (rest === '') return false;
  if (m[2] === '') return undefined;
  const system = /^SYSTEM[ \t\r\n]+("[^"]*"|'[^']*')[ \t\r\n]*$/.exec(rest);
  const pub = /^PUBLIC[ \t\r\n]+("[^"]*"|'[^']*')[ \t\r\n]+("[^"]*"|'[^']*')[ \t\r\n]*$/.exec(rest);
  if (system) return !system[1].includes('#') ? true : undefined;
  if (pub) {
    const publicId = pub[1].slice(1, -1);
    const ok = /^[\x20\r\na-zA-Z0-9'()+,./:=?;!*#@$_%-]*$/.test(publicId) && !pub[2].includes('#');
    return ok ? true : undefined;
  }
  return undefined;
}

function lineCol(text: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return `${line}:${at - lineStart + 1}`;
}

/**
 * Parses `text` as a whole XML document (`document`) or as a lenient fragment (`fragment`).
 * Never throws for bad input: the reason comes back with its line and column.
 */
export function parseXml(text: string, mode: 'document' | 'fragment'): XmlParse {
  try {
    return { ok: true, tree: new XmlReader(text, mode).read() };
  } catch (err) {
    if (!(err instanceof XmlSyntaxError)) throw err;
    if (err.unsupported) return { ok: false, reason: err.message, unsupported: true };
    return { ok: false, reason: `${lineCol(text, err.at)}: ${err.message}` };
  }
}
