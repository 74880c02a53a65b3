// Reads apastra's data files (YAML, JSON, JSONL) with positions: a schema error or a bad reference
// is reported at the line (and column) of the value it is about.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { InputError } from '../../core/errors.js';
import { displayPath, jsonProblem } from '../../core/positions.js';
import { PyJsonAbort, PyJsonError, type PyValue, pyJsonLoads, pyToJs } from '../../core/python/json-loads.js';
import { toPyValue } from '../../core/python/str.js';
import { PYYAML_OPTIONS } from './workspace.js';

/** A path into a document: object keys and array indexes. */
export type DocPath = (string | number)[];

/** A position in a file, 1-based. */
export interface Where {
  file: string;
  line?: number;
  col?: number;
}

/** One YAML or JSON document. */
export interface Doc {
  /** Absolute path. */
  path: string;
  /** As shown in diagnostics. */
  file: string;
  text: string;
  /** The value as JavaScript holds it. */
  value: unknown;
  /** The value as Python holds it (ints and floats apart), for digests and `str()`. */
  py: PyValue;
  /** Where the value at `path` starts (the nearest enclosing value that exists). */
  at(path: DocPath): Where;
}

/** One line of a JSONL file. */
export interface JsonlRow {
  line: number;
  value: unknown;
  py: PyValue;
}

/** A JSONL file: one JSON value per non-blank line. */
export interface JsonlDoc {
  path: string;
  file: string;
  text: string;
  rows: JsonlRow[];
}

function readText(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError({
      file: displayPath(path),
      message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      severity: 'error',
    });
  }
  return text;
}

/**
 * Reads a YAML or JSON document. YAML is read as YAML 1.1, as PyYAML's `safe_load` (which apastra's
 * scripts use) reads it: `yes`/`no`/`on`/`off` are booleans. Throws an InputError at the position
 * of a syntax error.
 */
export function readDoc(path: string): Doc {
  const text = readText(path);
  const file = displayPath(path);
  const isJson = extname(path).toLowerCase() === '.json';
  if (isJson) {
    const problem = jsonProblem(text);
    if (problem)
      throw new InputError({
        file,
        line: problem.line,
        col: problem.col,
        message: problem.message,
        severity: 'error',
      });
  }
  const counter = new LineCounter();
  const options = {
    ...(isJson ? { version: '1.2' as const } : PYYAML_OPTIONS),
    lineCounter: counter,
    uniqueKeys: true,
    prettyErrors: false,
  };
  const doc = parseDocument(text, options);
  if (doc.errors.length > 0) {
    throw new InputError(
      doc.errors.map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return {
          file,
          line: pos.line,
          col: pos.col,
          message: e.message.split('\n')[0],
          severity: 'error' as const,
        };
      }),
    );
  }
  let value: unknown;
  let py: PyValue;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
    if (isJson) py = pyJsonLoads(text.replace(/^\ufeff/, ''));
    else
      py = toPyValue(
        parseDocument(text, { ...PYYAML_OPTIONS, uniqueKeys: true, intAsBigInt: true }).toJS({
          maxAliasCount: 1000,
        }),
        true,
      );
  } catch (err) {
    throw new InputError({ file, message: (err as Error).message, severity: 'error' });
  }
  return {
    path,
    file,
    text,
    value,
    py,
    at(p) {
      for (let n = p.length; n >= 0; n--) {
        const node = doc.getIn(p.slice(0, n), true) as Node | undefined;
        if (node && typeof node === 'object' && 'range' in node && node.range) {
          let offset = node.range[0];
          // A key's value: point at the key, where a reader looks for it.
          if (n > 0) {
            const parent = n > 1 ? doc.getIn(p.slice(0, n - 1), true) : doc.contents;
            if (isMap(parent)) {
              const pair = parent.items.find(
                (it) => String((it.key as { value?: unknown })?.value) === String(p[n - 1]),
              );
              const keyRange = (pair?.key as Node | undefined)?.range;
              if (keyRange) offset = keyRange[0];
            } else if (isSeq(parent)) offset = node.range[0];
          }
          const pos = counter.linePos(offset);
          return { file, line: pos.line, col: pos.col };
        }
      }
      return { file, line: 1, col: 1 };
    },
  };
}

/**
 * Reads a JSONL file as Python's `json.loads` reads each line (blank lines skipped, as apastra's
 * tools skip them). Every bad line is reported.
 */
export function readJsonl(path: string): JsonlDoc {
  const text = readText(path);
  const file = displayPath(path);
  const rows: JsonlRow[] = [];
  const problems: { file: string; line: number; col?: number; message: string; severity: 'error' }[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    try {
      const py = pyJsonLoads(i === 0 ? line.replace(/^\ufeff/, '') : line);
      rows.push({ line: i + 1, value: pyToJs(py), py });
    } catch (err) {
      if (err instanceof PyJsonError)
        problems.push({
          file,
          line: i + 1,
          col: err.colno,
          message: `not JSON: ${err.msg}`,
          severity: 'error',
        });
      else if (err instanceof PyJsonAbort)
        problems.push({ file, line: i + 1, message: `not JSON: ${err.message}`, severity: 'error' });
      else
        problems.push({
          file,
          line: i + 1,
          message: `not JSON: ${(err as Error).message}`,
          severity: 'error',
        });
    }
  });
  if (problems.length > 0) throw new InputError(problems);
  return { path, file, text, rows };
}
