// A small glob matcher for file references: `*` and `?` within a segment, `[abc]` classes,
// `{a,b}` alternatives within a segment, and `**` for any number of directories. Like glob's
// defaults, wildcards do not match names starting with `.`.
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** Whether a path contains glob syntax. */
export function isGlobPattern(path: string): boolean {
  return /[*?[\]{}]/.test(path);
}

function segmentRegex(segment: string): RegExp | undefined {
  let out = '';
  let braces = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end === -1) return undefined;
      const body = segment
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^$()|\\}]/g, '\\$&');
  }
  if (braces !== 0) return undefined;
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return undefined;
  }
}

function listDir(dir: string): { name: string; isDir: boolean }[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .map((d) => ({ name: d.name, isDir: d.isDirectory() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Absolute paths of the files matching `pattern` (relative patterns resolve against `base`),
 * sorted. A malformed pattern matches nothing.
 */
export function globFiles(pattern: string, base: string): string[] {
  const abs = isAbsolute(pattern) ? pattern : resolve(base, pattern);
  const parts = abs.split(/[\\/]/);
  let root = parts[0] === '' ? '/' : `${parts[0]}/`;
  let i = 1;
  while (i < parts.length - 1 && !isGlobPattern(parts[i])) {
    root = join(root, parts[i]);
    i++;
  }
  const rest = parts.slice(i);
  const out = new Set<string>();
  walk(root, rest, out);
  return [...out].sort();
}

function walk(dir: string, rest: string[], out: Set<string>): void {
  if (rest.length === 0) return;
  const [head, ...tail] = rest;
  if (head === '**') {
    walk(dir, tail, out);
    for (const entry of listDir(dir)) {
      if (entry.isDir && !entry.name.startsWith('.')) walk(join(dir, entry.name), rest, out);
    }
    return;
  }
  if (!isGlobPattern(head)) {
    const next = join(dir, head);
    if (tail.length === 0) {
      if (isFile(next)) out.add(next);
    } else walk(next, tail, out);
    return;
  }
  const re = segmentRegex(head);
  if (!re) return;
  for (const entry of listDir(dir)) {
    if (entry.name.startsWith('.') && !head.startsWith('.')) continue;
    if (!re.test(entry.name)) continue;
    const next = join(dir, entry.name);
    if (tail.length === 0) {
      if (!entry.isDir && isFile(next)) out.add(next);
    } else if (entry.isDir) walk(next, tail, out);
  }
}
