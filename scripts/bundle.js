#!/usr/bin/env node
// The second half of `npm run build`: bundles assay's own compiled code (dist/src, written by tsc
// just before) into dist/bundle/, so that starting the CLI reads a handful of files instead of
// ~260 of its modules. Two entry points are bundled together with code splitting — the CLI (cli.js, which
// bin/assay.js imports) and the library (index.js, the package's `exports` and `main`) — so every module they
// share, and with it every registry and error class, exists once: a plugin that imports 'assay'
// registers into the same registries the CLI reads, and the CLI's `instanceof InputError` holds
// for errors the plugin throws. A static `import('./x.js')` becomes its own lazily loaded chunk.
// Packages from node_modules stay external (loaded by Node as installed): native better-sqlite3,
// the optional ones, and CommonJS packages keep their own loading.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// `node scripts/bundle.js --metafile FILE` also writes esbuild's account of which module went into
// which chunk (to see what a command loads).
const metaAt = process.argv.indexOf('--metafile');
const metafile = metaAt >= 0 ? process.argv[metaAt + 1] : undefined;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');

// tsc never deletes, but each build names its chunks anew: start from an empty folder.
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    cli: 'dist/src/cli/main.js',
    index: 'dist/src/index.js',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // Not minified: the code stays as tsc wrote it (readable stack traces; bench/profile.ts finds each
  // module by esbuild's `// dist/src/…` line). Names are not kept (`keepNames`): nothing in assay
  // reads a function's or class's `.name`, and esbuild renames only top-level names that collide.
  legalComments: 'none',
  metafile: metafile !== undefined,
});
if (result.errors.length > 0) process.exit(1);
if (metafile !== undefined) writeFileSync(metafile, JSON.stringify(result.metafile, null, 1));
