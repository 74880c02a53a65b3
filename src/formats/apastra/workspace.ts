// An apastra workspace: the folder holding `promptops/`, found by walking up, and how a reference
// (a file stem or an `id`) names a prompt, dataset, evaluator, suite or quick eval — the order
// apastra's resolver tries paths in, then a scan of the kind's folder for a file whose `id` matches.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pyyamlTags } from '../../core/python/pyyaml.js';
import { yamlLib } from '../../core/yaml-lib.js';

export type Kind = 'prompts' | 'datasets' | 'evaluators' | 'suites' | 'evals';

const EXTS: Record<Kind, string[]> = {
  prompts: ['.yaml', '.yml', '.json'],
  evaluators: ['.yaml', '.yml', '.json'],
  datasets: ['.jsonl', '.json', '.yaml', '.yml'],
  suites: ['.yaml', '.yml', '.json'],
  evals: ['.yaml', '.yml', '.json'],
};

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The workspace root (the folder that holds `promptops/`) at or above `start`, if any. */
export function findWorkspaceRoot(start: string): string | undefined {
  let dir = resolve(start);
  if (isFile(dir)) dir = dirname(dir);
  for (;;) {
    if (isDir(join(dir, 'promptops'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Why a reference is unsafe to join onto a path (apastra refuses the same), or undefined. */
export function unsafeRef(ref: string): string | undefined {
  if (ref === '') return 'is empty';
  if (ref.includes('\\')) return 'contains a backslash';
  if (ref.startsWith('/') || /^[A-Za-z]:/.test(ref)) return 'is an absolute path';
  if (ref.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return 'has an empty, "." or ".." path segment';
  return undefined;
}

/** The `id` at the top of a YAML/JSON file, read cheaply; undefined when it has none or does not parse. */
export function topLevelId(path: string): string | undefined {
  try {
    const value = quietYaml(readFileSync(path, 'utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const id = (value as Record<string, unknown>).id;
      return typeof id === 'string' ? id : undefined;
    }
  } catch {
    // An unreadable candidate is simply not the one.
  }
  return undefined;
}

/** The candidate files of a kind (for the id scan and for listings), sorted. */
export function kindFiles(root: string, kind: Kind): string[] {
  const out: string[] = [];
  for (const base of [join(root, 'promptops', kind), join(root, kind)]) {
    if (!isDir(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const p = join(base, name);
      if (isFile(p) && ['.yaml', '.yml', '.json'].includes(extname(name).toLowerCase())) out.push(p);
      else if (isDir(p)) {
        const inner =
          kind === 'datasets'
            ? ['dataset-manifest.yaml', 'dataset-manifest.yml']
            : kind === 'prompts'
              ? ['prompt.yaml', 'prompt.yml', 'prompt.json']
              : [];
        for (const f of inner) if (isFile(join(p, f))) out.push(join(p, f));
      }
    }
  }
  return out;
}

/** Resolves a reference to a file of `kind`, as apastra does; undefined when nothing matches. */
export function resolveRef(root: string, kind: Kind, ref: string): string | undefined {
  const bases = [join(root, 'promptops', kind), join(root, kind)];
  if (extname(ref) !== '') {
    for (const p of [join(root, ref), ...bases.map((b) => join(b, ref))]) if (isFile(p)) return p;
  } else {
    for (const base of bases) {
      for (const ext of EXTS[kind]) if (isFile(join(base, ref + ext))) return join(base, ref + ext);
      if (kind === 'datasets') {
        for (const f of [
          'dataset.jsonl',
          'dataset.json',
          'dataset.yaml',
          'dataset.yml',
          'dataset-manifest.yaml',
          'dataset-manifest.yml',
        ])
          if (isFile(join(base, ref, f))) return join(base, ref, f);
      }
      if (kind === 'prompts') {
        for (const f of ['prompt.yaml', 'prompt.yml', 'prompt.json'])
          if (isFile(join(base, ref, f))) return join(base, ref, f);
      }
    }
  }
  for (const p of kindFiles(root, kind)) if (topLevelId(p) === ref) return p;
  return undefined;
}

/** The suites or quick evals of a workspace: each file with its id. */
export function listKind(root: string, kind: 'suites' | 'evals'): { path: string; id: string }[] {
  return kindFiles(root, kind).map((p) => ({ path: p, id: topLevelId(p) ?? basename(p, extname(p)) }));
}

/** Whether `path` is inside `<root>/promptops/<kind>/`. */
export function inKindFolder(path: string, kind: Kind): boolean {
  const parts = resolve(path).split(/[\\/]/);
  const i = parts.lastIndexOf(kind);
  return i > 0 && parts[i - 1] === 'promptops';
}

/** The sibling folder check for a workspace: does `root/promptops` exist. */
export function hasPromptops(root: string): boolean {
  return existsSync(join(root, 'promptops')) && isDir(join(root, 'promptops'));
}

/** Files of a kind that do not parse: one of them may be the file a reference meant. */
export function unreadableFiles(root: string, kind: Kind): string[] {
  return kindFiles(root, kind).filter((p) => {
    try {
      quietYaml(readFileSync(p, 'utf8'));
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * YAML 1.1 as PyYAML's `safe_load` reads it (see core/python/pyyaml.ts): its booleans, its
 * narrower ints and floats, and dates/timestamps as the text Python's `str()` gives them.
 */
export const PYYAML_OPTIONS = {
  version: '1.1' as const,
  customTags: pyyamlTags,
};

/** A YAML text's value (YAML 1.1, as PyYAML reads it); throws when it has errors, printing nothing. */
export function quietYaml(text: string): unknown {
  const doc = yamlLib().parseDocument(text, PYYAML_OPTIONS);
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: 1000 });
}
