import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** assay's version, from its package.json (read once). */
export function assayVersion(): string {
  if (cached === undefined) {
    // Compiled to dist/src/version.js: the package root is two folders up.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    cached = pkg.version;
  }
  return cached;
}
