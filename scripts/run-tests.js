#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's test runner. Node 20's
// runner takes no globs, and a folder argument would also run helper modules such as the mock
// server's script mode, so the files are listed here.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  cwd: root,
});
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
