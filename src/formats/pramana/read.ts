// Reads a pramana tier file as pramana's loader does: Python's `read_text()` (UTF-8, universal
// newlines), `.strip()` of the whole text, a split on newlines, blank lines dropped, and
// `json.loads` on each remaining line.
import { readFileSync } from 'node:fs';
import { utf16Problem } from '../../core/encoding.js';
import { InputError } from '../../core/errors.js';
import { PyJsonAbort, PyJsonError, type PyValue, pyJsonLoads } from '../../core/python/json-loads.js';
import { pyIsSpace } from '../../core/python/text.js';
import type { Diagnostic } from '../../core/types.js';

/** One non-blank line of a tier file. */
export interface TierLine {
  /** 1-based line number in the file. */
  line: number;
  /** The parsed value, or undefined when the line is not JSON (see `errors`). */
  value?: PyValue;
}

export interface TierText {
  lines: TierLine[];
  /** The file's bytes (for the content hash). */
  bytes: Buffer;
  errors: Diagnostic[];
}

/** Reads and parses a tier file; JSON errors are collected per line, never thrown. */
export function readTierFile(path: string, shown: string): TierText {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new InputError({
      file: shown,
      message: `cannot read: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  const utf16 = utf16Problem(bytes);
  if (utf16)
    throw new InputError({
      file: shown,
      message: `${utf16} (pramana reads suites as UTF-8)`,
      severity: 'error',
    });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InputError({
      file: shown,
      message: 'not UTF-8 text (pramana reads suites as UTF-8 and would fail too)',
      severity: 'error',
    });
  }
  // Universal newlines: \r\n and a lone \r end a line, as Python's text mode reads them.
  text = text.replace(/\r\n?/g, '\n');
  const { lines, errors } = parseLines(text, shown);
  return { lines, bytes, errors };
}

/** Splits text into parsed lines with Python's rules (see the module comment). */
export function parseLines(text: string, shown: string): { lines: TierLine[]; errors: Diagnostic[] } {
  let start = 0;
  let end = text.length;
  while (start < end && pyIsSpace(text[start])) start++;
  while (end > start && pyIsSpace(text[end - 1])) end--;
  const firstLine = 1 + countNewlines(text.slice(0, start));
  // Columns on the first kept line shift by what the whole-text strip removed from it.
  const firstColShift = start - (text.lastIndexOf('\n', start - 1) + 1);
  const lines: TierLine[] = [];
  const errors: Diagnostic[] = [];
  text
    .slice(start, end)
    .split('\n')
    .forEach((raw, i) => {
      let blank = true;
      for (const ch of raw) {
        if (!pyIsSpace(ch)) {
          blank = false;
          break;
        }
      }
      if (blank) return;
      const line = firstLine + i;
      try {
        lines.push({ line, value: pyJsonLoads(raw) });
      } catch (err) {
        if (err instanceof PyJsonAbort) {
          lines.push({ line });
          errors.push({
            file: shown,
            line,
            message: `Python's json.loads cannot read this line (${err.message})`,
            severity: 'error',
          });
          return;
        }
        if (!(err instanceof PyJsonError)) throw err;
        lines.push({ line });
        const col = err.colno + (i === 0 ? firstColShift : 0);
        errors.push({ file: shown, line, col, message: `not valid JSON: ${err.msg}`, severity: 'error' });
      }
    });
  return { lines, errors };
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 0x0a) n++;
  return n;
}
