// pramana's `manifest.toml` (which pramana itself never reads): the suite version and the tiers,
// each with its file and test count. assay reads it to find the tiers and checks it against them.
import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { InputError } from '../../core/errors.js';
import type { Diagnostic } from '../../core/types.js';

export interface ManifestTier {
  name: string;
  file: string;
  testCount?: number;
  estimatedCostUsd?: number;
  /** Line of the tier's `[tiers.<name>]` header, for messages. */
  line?: number;
}

export interface Manifest {
  path: string;
  /** `[suite] version`, e.g. `v1.0`. */
  version?: string;
  tiers: ManifestTier[];
  text: string;
  warnings: Diagnostic[];
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The 1-based line of a `[tiers.<name>]` header (quoted or bare), or of `key =` inside it. */
export function manifestLine(text: string, tier: string, key?: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const escaped = tier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const header = new RegExp(`^\\s*\\[\\s*tiers\\s*\\.\\s*(?:"${escaped}"|'${escaped}'|${escaped})\\s*\\]`);
  const at = lines.findIndex((l) => header.test(l));
  if (at === -1) return undefined;
  if (key === undefined) return at + 1;
  for (let i = at + 1; i < lines.length && !/^\s*\[/.test(lines[i]); i++)
    if (new RegExp(`^\\s*${key}\\s*=`).test(lines[i])) return i + 1;
  return at + 1;
}

/** Reads and checks the manifest's shape; problems with its own fields are errors (exit 2). */
export function readManifest(path: string): Manifest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError({
      file: path,
      message: `cannot read: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      let message = err.message.replace(/^Invalid TOML document: /, '').split('\n')[0];
      // smol-toml meets the line break of a string left open as a "control character" in it.
      const lineText = text.split(/\r?\n/)[err.line - 1] ?? '';
      if (/control characters/.test(message) && err.column > lineText.length)
        message = 'a string is not closed: its closing quote is missing before the end of the line';
      throw new InputError({
        file: path,
        line: err.line,
        col: err.column,
        message: `invalid TOML: ${message}`,
        severity: 'error',
      });
    }
    throw err;
  }
  const errors: Diagnostic[] = [];
  const fail = (message: string, line?: number): void => {
    errors.push({ file: path, line, message, severity: 'error' });
  };
  const suite = doc.suite;
  const version = isTable(suite) && typeof suite.version === 'string' ? suite.version : undefined;
  if (isTable(suite) && suite.version !== undefined && typeof suite.version !== 'string')
    fail('suite.version: expected a string such as "v1.0"');
  const tiers: ManifestTier[] = [];
  if (!isTable(doc.tiers) || Object.keys(doc.tiers).length === 0)
    fail('expected a [tiers.<name>] table for each tier (with file = "<name>.jsonl")');
  else {
    for (const [name, t] of Object.entries(doc.tiers)) {
      const line = manifestLine(text, name);
      if (!isTable(t)) {
        fail(`tiers.${name}: expected a table`, line);
        continue;
      }
      if (typeof t.file !== 'string' || t.file === '') {
        fail(`tiers.${name}.file: expected the tier's .jsonl file name`, manifestLine(text, name, 'file'));
        continue;
      }
      const tier: ManifestTier = { name, file: t.file, line };
      if (t.test_count !== undefined) {
        if (typeof t.test_count === 'number' && Number.isInteger(t.test_count)) tier.testCount = t.test_count;
        else
          fail(`tiers.${name}.test_count: expected a whole number`, manifestLine(text, name, 'test_count'));
      }
      if (typeof t.estimated_cost_usd === 'number') tier.estimatedCostUsd = t.estimated_cost_usd;
      tiers.push(tier);
    }
  }
  if (errors.length > 0) throw new InputError(errors);
  return { path, version, tiers, text, warnings: [] };
}

/**
 * The tiers to load: those named by `--tier` (`all` for every tier), else the cheapest one
 * (lowest estimated cost, then fewest tests, then manifest order), with a note of what else exists.
 */
export function selectTiers(manifest: Manifest, requested: string[] | undefined): ManifestTier[] {
  const names = manifest.tiers.map((t) => t.name);
  if (requested && requested.length > 0) {
    const unknown = requested.filter((r) => r !== 'all' && !names.includes(r));
    if (unknown.length > 0)
      throw new InputError(
        unknown.map((r) => ({
          file: manifest.path,
          message: `--tier ${r}: no such tier; this suite has ${names.join(', ')} (or --tier all)`,
          severity: 'error' as const,
        })),
      );
    if (requested.includes('all')) return manifest.tiers;
    // Manifest order, each tier once, whatever order the flags came in.
    return manifest.tiers.filter((t) => requested.includes(t.name));
  }
  const cost = (t: ManifestTier): number => t.estimatedCostUsd ?? Number.POSITIVE_INFINITY;
  const count = (t: ManifestTier): number => t.testCount ?? Number.POSITIVE_INFINITY;
  const cheapest = [...manifest.tiers].sort((a, b) => cost(a) - cost(b) || count(a) - count(b))[0];
  if (manifest.tiers.length > 1) {
    const others = manifest.tiers
      .filter((t) => t !== cheapest)
      .map((t) => (t.testCount !== undefined ? `${t.name} (${t.testCount} tests)` : t.name));
    manifest.warnings.push({
      file: manifest.path,
      severity: 'warning',
      message: `no --tier given: running the cheapest tier, ${cheapest.name}; this suite also offers ${others.join(', ')} (--tier NAME, repeatable, or --tier all)`,
    });
  }
  return [cheapest];
}
