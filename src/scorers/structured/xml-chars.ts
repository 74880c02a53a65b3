// XML 1.0 (5th edition) character classes and names.

/** XML 1.0 (5th ed.) NameStartChar. */
function isNameStart(cp: number): boolean {
  return (
    cp === 0x3a ||
    cp === 0x5f ||
    (cp >= 0x41 && cp <= 0x5a) ||
    (cp >= 0x61 && cp <= 0x7a) ||
    (cp >= 0xc0 && cp <= 0xd6) ||
    (cp >= 0xd8 && cp <= 0xf6) ||
    (cp >= 0xf8 && cp <= 0x2ff) ||
    (cp >= 0x370 && cp <= 0x37d) ||
    (cp >= 0x37f && cp <= 0x1fff) ||
    (cp >= 0x200c && cp <= 0x200d) ||
    (cp >= 0x2070 && cp <= 0x218f) ||
    (cp >= 0x2c00 && cp <= 0x2fef) ||
    (cp >= 0x3001 && cp <= 0xd7ff) ||
    (cp >= 0xf900 && cp <= 0xfdcf) ||
    (cp >= 0xfdf0 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0xeffff)
  );
}

/** XML 1.0 NameChar. */
function isNameChar(cp: number): boolean {
  return (
    isNameStart(cp) ||
    cp === 0x2d ||
    cp === 0x2e ||
    (cp >= 0x30 && cp <= 0x39) ||
    cp === 0xb7 ||
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x203f && cp <= 0x2040)
  );
}

/** XML 1.0 Char: what may appear in a document at all. */
export function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** XML white space (S): space, tab, CR, LF. */
export function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

/** The XML name starting at `at`, or undefined when none starts there. */
export function readXmlName(text: string, at: number): string | undefined {
  const first = text.codePointAt(at);
  if (first === undefined || !isNameStart(first)) return undefined;
  let end = at + (first > 0xffff ? 2 : 1);
  for (let cp = text.codePointAt(end); cp !== undefined && isNameChar(cp); cp = text.codePointAt(end)) {
    end += cp > 0xffff ? 2 : 1;
  }
  return text.slice(at, end);
}

/** Whether the whole text is one XML name. */
export function isName(text: string): boolean {
  return text !== '' && readXmlName(text, 0) === text;
}
