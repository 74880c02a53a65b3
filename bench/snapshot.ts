/**
 * A frozen copy of the assay build for the bench. Other engineers rebuild dist/ while the bench
 * runs (a 25-minute bench once measured a half-written build); measuring a copy taken at the start
 * keeps every row on the same build.
 */
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Paths inside a snapshot. */
export interface AssaySnapshot {
  dir: string;
  /** The snapshot's bin/assay.js. */
  bin: string;
  /** The snapshot's compiled mock server. */
  mockJs: string;
}

/**
 * Copies bin/, dist/bundle/ (what bin/assay.js runs), dist/src/, the compiled mock and package.json
 * into `dir` (node_modules is linked).
 */
export function snapshotAssay(root: string, dir: string): AssaySnapshot {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'dist', 'bundle'), join(dir, 'dist', 'bundle'), { recursive: true });
  cpSync(join(root, 'dist', 'src'), join(dir, 'dist', 'src'), { recursive: true });
  cpSync(join(root, 'dist', 'test', 'support'), join(dir, 'dist', 'test', 'support'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  if (existsSync(join(root, 'node_modules')))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    bin: join(dir, 'bin', 'assay.js'),
    mockJs: join(dir, 'dist', 'test', 'support', 'mock-openai.js'),
  };
}
