// Where something is in a user's text, for diagnostics: a JSON syntax error's line and column,
// and a path as a person would type it.
import { isAbsolute, relative } from 'node:path';

/** A parse problem with its position, if the parser gave one. */
export interface ParseProblem {
  message: string;
  line?: number;
  col?: number;
}

/** How a path is shown in diagnostics: relative to the working directory when it is inside it. */
export function displayPath(absPath: string): string {
  const rel = relative(process.cwd(), absPath);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absPath;
}

/** The 1-based line and column of a character offset in a text. */
function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}

/**
 * Where JSON.parse failed. Newer V8 messages carry no offset, so find the shortest prefix that
 * fails for a reason other than ending early: the error is at its last character.
 */
function jsonErrorOffset(text: string): number | undefined {
  const failsInside = (k: number): boolean => {
    try {
      JSON.parse(text.slice(0, k));
      return false;
    } catch (err) {
      const message = (err as Error).message;
      if (/end of (JSON )?(input|data)/i.test(message)) return false;
      const at = /position (\d+)/.exec(message);
      // An error reported at the very end of the prefix only means the prefix stops early.
      return !at || Number(at[1]) < k;
    }
  };
  if (!failsInside(text.length)) return undefined;
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsInside(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/** Why a text is not JSON, positioned; undefined when it parses. */
export function jsonProblem(text: string): ParseProblem | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    const offset = /position (\d+)/.exec(message)?.[1] ?? jsonErrorOffset(text);
    const pos = offset !== undefined ? lineCol(text, Number(offset)) : {};
    const reason = message.replace(/ in JSON at position \d+.*$/, '').replace(/\s+/g, ' ');
    return { message: `invalid JSON: ${reason}`, ...pos };
  }
}
