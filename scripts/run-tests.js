#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's test runner. Node 20's
// runner takes no globs, and a folder argument would also run helper modules such as the mock
// server's script mode, so the files are listed here.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const testDir = join(root, 'dist', 'test');
const filter = process.argv.slice(2);
const files = readdirSync(testDir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(testDir, f))
  .filter((f) => filter.length === 0 || filter.some((part) => relative(root, f).includes(part)))
  .sort();
if (files.length === 0) {
  console.error(
    `no test files found under ${testDir}${filter.length ? ` matching ${filter.join(' ')}` : ''}`,
  );
  process.exit(1);
}
// The CLI the tests run (bin/assay.js) is the bundle of dist/src (scripts/bundle.js, the second
// step of `npm run build`): after a bare `tsc`, bundle again so the tests never run stale code.
const newest = (dir) =>
  Math.max(
    0,
    ...readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.js'))
      .map((f) => statSync(join(dir, f)).mtimeMs),
  );
const bundleTime = (() => {
  try {
    return statSync(join(root, 'dist', 'bundle', 'cli.js')).mtimeMs;
  } catch {
    return 0;
  }
})();
if (bundleTime < newest(join(root, 'dist', 'src'))) {
  console.error('dist/bundle/ is older than dist/src/: bundling again (node scripts/bundle.js)');
  const bundled = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.js')], { stdio: 'inherit' });
  if (bundled.status !== 0) process.exit(bundled.status ?? 1);
}
// Two files at a time: CI has two cores, and many files start processes of their own (the CLI,
// Python, a browser). A file (and each of its tests) that runs past the timeout is ended and
// reported as "test timed out after N ms", naming the file, so a hung test fails the run instead of
// holding CI until its own limit. The bound only ends a test that hangs: the slowest file takes
// one to two minutes on a loaded 2-core machine, the bound is 15 minutes, and CI allows 90.
// ASSAY_TEST_TIMEOUT_MS sets another bound.
const timeoutMs =
  Number(process.env.ASSAY_TEST_TIMEOUT_MS) > 0 ? Number(process.env.ASSAY_TEST_TIMEOUT_MS) : 900_000;
const child = spawn(
  process.execPath,
  ['--test', '--test-concurrency=2', `--test-timeout=${timeoutMs}`, ...files],
  {
    stdio: 'inherit',
    cwd: root,
  },
);
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
