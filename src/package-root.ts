import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What assay reads from its own package.json. */
export interface AssayPackage {
  /** The package's folder (holding package.json, schema/, bin/, dist/). */
  root: string;
  version: string;
}

let found: AssayPackage | undefined;

/**
 * assay's own package, found by walking up from this module's file to the first package.json named
 * `assay` (read once). The one place that locates package files from `import.meta.url`: the module
 * runs from dist/src/ (tsc's output, which the tests import) and from a chunk of dist/bundle/ (what
 * the CLI and the package's entry load), at different depths.
 */
export function assayPackage(): AssayPackage {
  if (found) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch {
      // No package.json here: look one folder up.
    }
    if (text !== undefined) {
      const pkg = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (pkg.name === 'assay' && typeof pkg.version === 'string') {
        found = { root: dir, version: pkg.version };
        return found;
      }
    }
    if (dirname(dir) === dir) throw new Error(`assay's package.json was not found above ${start}`);
  }
}
