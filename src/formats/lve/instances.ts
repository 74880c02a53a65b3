// LVE instance files (`instances/*.jsonl`, `.json` ones too): one TestInstance a line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiagnosticBag } from '../../core/errors.js';
import { displayPath } from '../../core/positions.js';
import { PyJsonError, type PyValue, pyJsonLoads, pyToJs } from '../../core/python/json-loads.js';

/** One recorded instance: its args and, when recorded, the response and verdict. */
export interface LveInstance {
  file: string;
  /** 1-based line in the file. */
  line: number;
  /** File name inside `instances/` (or the --args file's path). */
  fileName: string;
  args: Map<string, PyValue>;
  response?: PyValue;
  passed?: boolean;
}

/** Every instance of an LVE, files in name order, lines in order. */
export function readInstances(
  dir: string,
  bag: DiagnosticBag,
  ownAppends: Record<string, number> = {},
): LveInstance[] {
  const folder = join(dir, 'instances');
  let names: string[];
  try {
    names = readdirSync(folder, { withFileTypes: true })
      .filter((d) => d.isFile() && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
  return names.flatMap((name) =>
    readInstanceFile(join(folder, name), name, bag, true, ownAppends[resolve(folder, name)]),
  );
}

/** The instances (or bare args, for --args) of one JSON Lines file. */
export function readInstanceFile(
  path: string,
  fileName: string,
  bag: DiagnosticBag,
  recorded: boolean,
  /** Read only this many bytes (the file as it was before a resumed run appended to it). */
  upTo?: number,
): LveInstance[] {
  const shown = displayPath(path);
  let text: string;
  try {
    text = upTo === undefined ? readFileSync(path, 'utf8') : readPrefix(path, upTo);
  } catch (err) {
    bag.error(shown, `cannot read: ${(err as Error).message}`);
    return [];
  }
  const out: LveInstance[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') {
      if (i < lines.length - 1) bag.warn(shown, 'blank line skipped (LVE itself fails on it)', { line });
      return;
    }
    let value: PyValue;
    try {
      value = pyJsonLoads(raw);
    } catch (err) {
      if (err instanceof PyJsonError) bag.error(shown, `not JSON: ${err.msg}`, { line, col: err.colno });
      else bag.error(shown, `not JSON: ${(err as Error).message}`, { line });
      return;
    }
    if (!(value instanceof Map)) {
      bag.error(shown, recorded ? 'expected a TestInstance object' : 'expected an object of args', {
        line,
        col: 1,
      });
      return;
    }
    if (!recorded) {
      // --args lines are the args themselves, or instances whose args are taken.
      const args = value.get('args');
      out.push({ file: shown, line, fileName, args: args instanceof Map ? args : value });
      return;
    }
    const args = value.get('args');
    if (!(args instanceof Map)) {
      bag.error(shown, 'a TestInstance needs "args": an object', { line, col: 1 });
      return;
    }
    const response = value.get('response');
    if (!okResponse(response)) {
      bag.error(
        shown,
        '"response" must be a string, an object of strings, or a list of either (TestInstance)',
        { line },
      );
      return;
    }
    // pydantic's lax bool (a missing field is its default, True; null is refused).
    const passed = value.has('passed') ? laxBool(value.get('passed') as PyValue) : true;
    if (passed === undefined) {
      bag.error(
        shown,
        `"passed" must be a boolean (pydantic: true/false, 0/1, or "true"/"false", "yes"/"no", "on"/"off", "t"/"f", "y"/"n", "1"/"0"), got ${JSON.stringify(pyToJs(value.get('passed') as PyValue))}`,
        { line },
      );
      return;
    }
    if (!(value.get('run_info') instanceof Map)) {
      bag.error(shown, 'a TestInstance needs "run_info": an object', { line });
      return;
    }
    out.push({ file: shown, line, fileName, args, response, passed });
  });
  return out;
}

function okResponse(v: PyValue | undefined): boolean {
  const dict = (x: PyValue): boolean =>
    x instanceof Map && [...x.values()].every((s) => typeof s === 'string');
  if (typeof v === 'string' || (v !== undefined && v !== null && dict(v))) return true;
  return Array.isArray(v) && (v.every((x) => typeof x === 'string') || v.every(dict));
}

/** pydantic's lax (JSON) bool validation; undefined where pydantic refuses the value. */
export function laxBool(v: PyValue): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.toLowerCase();
    if (['0', 'off', 'f', 'false', 'n', 'no'].includes(t)) return false;
    if (['1', 'on', 't', 'true', 'y', 'yes'].includes(t)) return true;
    return undefined;
  }
  if (v === null || Array.isArray(v) || v instanceof Map) return undefined;
  const n = pyToJs(v);
  if (n === 0) return false;
  if (n === 1) return true;
  return undefined;
}

/** The first `bytes` bytes of a file, as text. */
export function readPrefix(path: string, bytes: number): string {
  return readFileSync(path).subarray(0, bytes).toString('utf8');
}
