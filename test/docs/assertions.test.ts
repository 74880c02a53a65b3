// docs/assertions.md is generated from the scorer registry (scripts/docs/assertions.ts): the page
// in the repository must be what the generator writes today, so a scorer added, removed or
// re-described without `npm run docs:assertions` fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ASSERTIONS_PAGE, assertionsPage } from '../../scripts/docs/assertions.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const script = join(repoRoot, 'dist', 'scripts', 'docs', 'assertions.js');
const pagePath = join(repoRoot, ASSERTIONS_PAGE);

describe('docs/assertions.md', () => {
  it('is the page the generator writes from the registry (run npm run docs:assertions when not)', async () => {
    const page = await assertionsPage(repoRoot);
    assert.equal(
      readFileSync(pagePath, 'utf8'),
      page,
      `${ASSERTIONS_PAGE} is stale: run npm run docs:assertions`,
    );
  });

  it("lists the general types and every format's namespaced types", async () => {
    const page = readFileSync(pagePath, 'utf8');
    for (const type of ['contains', 'llm-rubric', 'assert-set', 'select-best', 'py-equals']) {
      assert.match(page, new RegExp(`^\\| \`${type}\` \\|`, 'm'), type);
    }
    for (const [format, type] of [
      ['lve', 'lve:RegexChecker'],
      ['ewebench', 'ewebench:ewe-quality'],
      ['apastra', 'apastra:assert'],
    ] as const) {
      const section = page.split(`\n## ${format}\n`)[1]?.split('\n## ')[0] ?? '';
      assert.match(section, new RegExp(`^\\| \`${type}\` \\|`, 'm'), `${type} under ## ${format}`);
    }
  });

  it('the script writes the page, and --check fails on a stale copy', () => {
    const { dir, cleanup } = tempDir('docs-assertions-');
    after(cleanup);
    const written = join(dir, 'assertions.md');
    const run = spawnSync(process.execPath, [script, written], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(written, 'utf8'), readFileSync(pagePath, 'utf8'));

    const fresh = spawnSync(process.execPath, [script, '--check', written], { encoding: 'utf8' });
    assert.equal(fresh.status, 0, fresh.stderr);

    const page = readFileSync(written, 'utf8');
    writeFileSync(written, page.replace(/^\| `regex` \|.*\n/m, ''));
    const stale = spawnSync(process.execPath, [script, '--check', written], { encoding: 'utf8' });
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /assertions\.md is stale: run npm run docs:assertions/);
  });
});
