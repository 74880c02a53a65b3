// `py-is-json`: the output parses with Python's json.loads, directly or inside one markdown fence.

import {
  PyJsonAbort,
  PyJsonError,
  type PyValue,
  pyJsonLoads,
  pyTypeName,
} from '../../core/python/json-loads.js';
import { pyStrip } from '../../core/python/text.js';
import { type Scorer, ScorerInputError } from '../types.js';

/**
 * Removes one markdown fence the way Python harnesses commonly do (pramana's rule, kept with its
 * quirks): an opening ``` with no newline loses only those three characters and nothing else is
 * stripped; otherwise everything through the first newline goes, and then, independently, a
 * closing ``` at the very end.
 */
export function stripFence(text: string): string {
  let s = pyStrip(text);
  if (s.startsWith('```')) {
    const nl = s.indexOf('\n');
    if (nl === -1) return pyStrip(s.slice(3));
    s = s.slice(nl + 1);
  }
  if (s.endsWith('```')) s = s.slice(0, -3);
  return pyStrip(s);
}

function parse(text: string): { value: PyValue } | { error: string } {
  try {
    return { value: pyJsonLoads(text) };
  } catch (err) {
    if (err instanceof PyJsonError) return { error: err.message };
    // Not a decode error: a tool that catches only JSONDecodeError stops here, with no verdict.
    if (err instanceof PyJsonAbort)
      throw new ScorerInputError(
        `Python's json.loads raises ${err.message}, which is not a JSONDecodeError: the Python tool stops here instead of judging the output`,
      );
    throw err;
  }
}

export const pyIsJsonScorer: Scorer = {
  type: 'py-is-json',
  description:
    "Output is JSON to Python's json.loads (any value, NaN and Infinity included), bare or inside one markdown fence",
  score(input) {
    const negate = input.spec.negate === true;
    const text = pyStrip(input.output);
    let parsed = parse(text);
    if ('error' in parsed) parsed = parse(stripFence(text));
    const pass = !('error' in parsed);
    const ok = pass !== negate;
    const details =
      'error' in parsed ? { error: parsed.error } : { parsed: true, type: pyTypeName(parsed.value) };
    const reason =
      'error' in parsed ? `Output is not JSON: ${parsed.error}` : `Output is JSON (${details.type})`;
    return { pass: ok, score: ok ? 1 : 0, reason: negate ? `not: ${reason}` : reason, details };
  },
};
