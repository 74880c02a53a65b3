// The `__expected` mini-language of promptfoo CSV rows (§3.3 of the spec), including its quirks:
// threshold types default to 0.75 (0.8 for `similar`) and unknown shapes fall back to `equals`.
import { parseCommaList } from '../../scorers/util.js';
import { baseTypeEntry, PROMPTFOO_BASE_TYPES } from './assertion-types.js';

/**
 * Marks an assertion built from a row's `__expected` cell, holding the cell, metric and column
 * config it was built from. Such an assertion has no position of its own (the row's line is the
 * case's), so equal ones can be parsed once and shared by every row. A symbol, so it stays out of
 * the assertion's fields.
 */
export const ROW_KEY: unique symbol = Symbol('row assertion key');

/** An assertion as promptfoo writes it (before translation into assay's model). */
export interface RawAssertion {
  type: string;
  value?: unknown;
  threshold?: number;
  metric?: string;
  [ROW_KEY]?: string;
  [key: string]: unknown;
}

// A JS/TS file, optionally naming a function (`check.js:grade`, as older promptfoo accepted).
const JS_FILE = /^(?!.*\.d\.ts(?::|$)).*\.(?:cjs|cts|js|jsx|mjs|mts|ts|tsx)(?::[^:]*)?$/;

let typeRegex: RegExp | undefined;
function assertionRegex(): RegExp {
  typeRegex ??= new RegExp(
    `^(not-)?(${PROMPTFOO_BASE_TYPES.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:\\((\\d+(?:\\.\\d+)?)\\))?(?::([\\s\\S]*))?$`,
  );
  return typeRegex;
}

/** Parses one (already trimmed) `__expected` cell into a promptfoo assertion. */
export function assertionFromString(expected: string): RawAssertion {
  for (const prefix of ['javascript:', 'fn:', 'eval:']) {
    if (expected.startsWith(prefix))
      return { type: 'javascript', value: expected.slice(prefix.length).trim() };
  }
  // promptfoo strips `file://` here, which leaves a bare path that then runs as inline code and
  // always fails; assay keeps the prefix so the file runs, as the user meant.
  if (expected.startsWith('file://') && JS_FILE.test(expected.slice('file://'.length))) {
    return { type: 'javascript', value: expected };
  }
  if (expected.startsWith('grade:')) return { type: 'llm-rubric', value: expected.slice('grade:'.length) };
  if (expected.startsWith('llm-rubric:')) {
    return { type: 'llm-rubric', value: expected.slice('llm-rubric:'.length) };
  }
  if (expected.startsWith('python:'))
    return { type: 'python', value: expected.slice('python:'.length).trim() };
  if (expected.startsWith('file://') && (expected.endsWith('.py') || expected.includes('.py:'))) {
    return { type: 'python', value: expected };
  }

  const match = assertionRegex().exec(expected);
  if (!match) return { type: 'equals', value: expected };
  const [, not, base, thresholdText, rest] = match;
  const type = not ? `not-${base}` : base;
  const cell = baseTypeEntry(base)?.cell;
  if (cell === 'list') return { type, value: rest ? listItems(rest, type) : rest };
  if (cell === 'raw') return { type, value: rest };
  if (cell === 'threshold') {
    const parsed = thresholdText ? Number.parseFloat(thresholdText) : Number.NaN;
    const threshold = Number.isFinite(parsed) ? parsed : base === 'similar' ? 0.8 : 0.75;
    return { type, value: rest?.trim(), threshold };
  }
  return { type, value: rest?.trim() };
}

/**
 * A list cell's items as promptfoo 0.123.1 reads them (the rule its contains-any scorer applies to
 * a text value, parseCommaList): double quotes protect commas, blank items are dropped. A list it
 * cannot read (an unterminated quote) stays text, which the scorer's validate then refuses at load
 * (promptfoo refuses the file).
 */
function listItems(text: string, type: string): string[] | string {
  try {
    return parseCommaList(text, type);
  } catch {
    return text;
  }
}
