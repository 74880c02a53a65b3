import { pyIsSpace } from '../../core/python/text.js';
import type { Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape } from '../util.js';

/** How each Markdown element is recognised (loose on purpose: the checks ÈwéBench's tool makes). */
const ELEMENTS: Record<string, (text: string) => boolean> = {
  table: (t) => t.includes('|') && t.includes('---'),
  header: (t) => lineStarts(t).some((i) => headerAt(t, i)),
  list: (t) => lineStarts(t).some((i) => (t[i] === '-' || t[i] === '*') && isSpaceAt(t, i + 1)),
  bold: (t) => t.includes('**'),
};

// Python's re.MULTILINE `^` matches only after '\n' (JavaScript's also after '\r', U+2028 and
// U+2029), and its `\s` is str.isspace (JavaScript's differs on U+FEFF and U+001C–U+001F): the
// line checks are written out so they agree with Python on every input.
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function isSpaceAt(text: string, i: number): boolean {
  return i < text.length && pyIsSpace(text[i]);
}

/** `^#{1,3}\s` at a line start: one to three `#`, then whitespace (a fourth `#` is not whitespace). */
function headerAt(text: string, start: number): boolean {
  let k = 0;
  while (text[start + k] === '#') k++;
  return k >= 1 && k <= 3 && isSpaceAt(text, start + k);
}

/** The element names `markdown-elements` recognises. */
export const MARKDOWN_ELEMENTS = Object.keys(ELEMENTS);

function elementList(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new ScorerInputError(
      `"markdown-elements" needs a list of element names, got ${describeShape(value)}`,
    );
  return value as string[];
}

/**
 * `markdown-elements`: the share of the listed elements (table, header, list, bold) present in
 * the output. The denominator is the list's length, so an unknown name or a repeated one counts
 * against the score, and an empty list scores 0.
 */
export const markdownElementsScorer: Scorer = {
  type: 'markdown-elements',
  description: 'Share of the listed Markdown elements (table, header, list, bold) the output contains',
  validate(spec) {
    try {
      elementList(spec.value);
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  },
  score(input) {
    const wanted = elementList(input.value);
    const present = Object.keys(ELEMENTS).filter(
      (name) => wanted.includes(name) && ELEMENTS[name](input.output),
    );
    const score = wanted.length > 0 ? present.length / wanted.length : 0;
    const threshold = input.spec.threshold ?? 1;
    const pass = (wanted.length > 0 && score >= threshold) !== (input.spec.negate === true);
    const missing = wanted.filter((w) => !present.includes(w));
    const reason =
      wanted.length === 0
        ? 'No Markdown elements listed'
        : missing.length === 0
          ? `Found ${present.join(', ')}`
          : `Missing Markdown elements: ${missing.join(', ')}`;
    return { pass, score, reason };
  },
};
