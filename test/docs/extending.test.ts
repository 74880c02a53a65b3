// docs/extending.md cannot rot: every ```js block of the page is a whole program, written as it
// stands into a folder where `assay` is the installed package (node_modules/assay → this
// checkout), run by Node, and held to the output its last line, `// prints: …`, promises. So the
// four extension points (registerScorer, registerProvider, registerOutputFormat, registerFormat)
// are shown as they are exported from the package entry, and used.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { childEnv, cleanEnv, runNode } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const PAGE = join(repoRoot, 'docs', 'extending.md');

/** The page's ```js blocks, each with the heading it sits under and the output it promises. */
function examples(): { heading: string; code: string; prints: string }[] {
  const out: { heading: string; code: string; prints: string }[] = [];
  let heading = '';
  const lines = readFileSync(PAGE, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^#{1,6}\s/.test(line)) heading = line.replace(/^#+\s*/, '');
    if (line !== '```js') continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `docs/extending.md:${i + 1}: an unclosed code block`);
    const code = lines.slice(i + 1, end).join('\n');
    const prints = /\/\/ prints: (.*)\s*$/.exec(code);
    assert.ok(prints, `docs/extending.md:${i + 1}: the example ends with "// prints: …"`);
    out.push({ heading, code: `${code}\n`, prints: prints[1] as string });
    i = end;
  }
  return out;
}

const tmp = tempDir('assay-docs-extending-');
before(() => {
  mkdirSync(join(tmp.dir, 'node_modules'), { recursive: true });
  symlinkSync(repoRoot, join(tmp.dir, 'node_modules', 'assay'), 'dir');
});
after(() => tmp.cleanup());

describe('docs/extending.md', () => {
  const found = examples();

  it('shows each of the four extension points with a program that uses it', () => {
    for (const name of ['registerScorer', 'registerProvider', 'registerOutputFormat', 'registerFormat'])
      assert.ok(
        found.some((e) => new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from 'assay'`).test(e.code)),
        `an example imports ${name} from 'assay'`,
      );
  });

  for (const [n, example] of found.entries()) {
    it(`example ${n + 1} (${example.heading}) runs as written and prints "${example.prints}"`, async () => {
      // Each in its own folder under the one holding node_modules, so runs and files never meet.
      const dir = join(tmp.dir, `example-${n + 1}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'example.mjs'), example.code);
      const run = await runNode([join(dir, 'example.mjs')], { cwd: dir, env: childEnv(cleanEnv) });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${example.prints}\n`);
    });
  }
});
