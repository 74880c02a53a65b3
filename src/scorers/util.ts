import type { AssertionSpec } from '../core/types.js';
import type { ScoreResult } from './types.js';
import { ScorerInputError } from './types.js';

/** The longest stretch of output or expected value quoted in a verdict reason. */
export const REASON_TEXT_LIMIT = 200;

/** Shortens text for a verdict reason, never splitting a surrogate pair. */
export function truncate(text: string, limit = REASON_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/** "not " when the assertion is negated, for reasons phrased like promptfoo's. */
export function not(negate: boolean): string {
  return negate ? 'not ' : '';
}

/** A 1/0 result; promptfoo says only "Assertion passed" on success. */
export function verdict(pass: boolean, failReason: string): ScoreResult {
  return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : failReason };
}

/** Names a value's shape in an error message ("an array", "a number"). */
export function describeShape(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'no value';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t}`;
}

/** The type as the user wrote it (`not-contains`), for load-time messages. */
export function writtenType(type: string, spec: AssertionSpec): string {
  return spec.negate ? `not-${type}` : type;
}

/** True when a string still holds template syntax, so load-time checks cannot judge it. */
export function hasTemplate(text: string): boolean {
  return text.includes('{{') || text.includes('{%');
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || /\s/.test(ch);
}

/**
 * Splits a comma-separated list as promptfoo's newer contains-any rule does: double quotes protect
 * commas, `\"`, `\\` and `""` escape inside quotes, unquoted items are trimmed, blanks are dropped.
 * Throws ScorerInputError on an unterminated quote or text after a closing quote.
 */
export function parseCommaList(value: string, type = 'contains-any'): string[] {
  const items: string[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    while (i < n && (value[i] === ',' || isWhitespace(value[i]))) i++;
    if (i >= n) break;
    if (value[i] === '"') {
      let item = '';
      let closed = false;
      i++;
      while (i < n) {
        const ch = value[i];
        const next = value[i + 1];
        if (ch === '\\' && (next === '"' || next === '\\')) {
          item += next;
          i += 2;
        } else if (ch === '"' && next === '"') {
          item += '"';
          i += 2;
        } else if (ch === '"') {
          i++;
          closed = true;
          break;
        } else {
          item += ch;
          i++;
        }
      }
      if (!closed) throw new ScorerInputError(`"${type}" value has an unterminated quoted item: ${value}`);
      while (i < n && isWhitespace(value[i])) i++;
      if (i < n && value[i] !== ',') {
        throw new ScorerInputError(
          `"${type}" value has text after a quoted item (expected a comma): ${value}`,
        );
      }
      // Quotes protect surrounding spaces, so the item is kept verbatim; an empty one means nothing.
      if (item !== '') items.push(item);
    } else {
      const start = i;
      while (i < n && value[i] !== ',') i++;
      const item = value.slice(start, i).trim();
      if (item !== '') items.push(item);
    }
  }
  return items;
}
