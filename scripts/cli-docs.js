#!/usr/bin/env node
// Writes docs/cli.md from the option table (src/cli/options.ts) and the formats' flags. Run after
// a build: `npm run docs:cli`. test/cli/options.test.ts fails when the page is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const { formatOptions } = await import(join(root, 'dist', 'src', 'cli', 'args.js'));
const { renderCliReference } = await import(join(root, 'dist', 'src', 'cli', 'reference.js'));
mkdirSync(join(root, 'docs'), { recursive: true });
writeFileSync(join(root, 'docs', 'cli.md'), renderCliReference(await formatOptions()));
console.log('wrote docs/cli.md');
