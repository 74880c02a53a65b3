import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 10; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'assay') return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot find the assay repository root');
}

/** The repository root (tests run from compiled output, so paths are found, not assumed). */
export const repoRoot = findRepoRoot();

/** A path under test/fixtures. */
export function fixture(...parts: string[]): string {
  return join(repoRoot, 'test', 'fixtures', ...parts);
}

/**
 * The shared folder beside the repository (real suites from other tools), if present; for a git
 * worktree kept one folder deeper (`wt/<name>/`), the one beside that folder. `ASSAY_SHARED_DIR`
 * names it instead (CI points it at a folder that does not exist, to prove that the tests which
 * read it pass without it, as in a plain clone).
 */
export const sharedDir =
  process.env.ASSAY_SHARED_DIR ||
  ([join(repoRoot, '..', 'shared'), join(repoRoot, '..', '..', 'shared')].find((d) => existsSync(d)) ??
    join(repoRoot, '..', 'shared'));
