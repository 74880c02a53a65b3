// The library examples of README.md and docs/library.md run as written: each is taken from its
// page, given a promptfooconfig.yaml in a fresh folder, and run by Node as a program, with the
// mock OpenAI-compatible server as the model. (The README's example once printed
// `scorecard.passRate` as if it were a number; it is a Rate object.) The README's runs a
// promptfoo-shaped config object and writes report.html with the exported `writeReport`.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { childEnv, runNode } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const CONFIG = `prompts: ["Answer in one short sentence: {{question}}"]
providers: [openai:chat:gpt-4o-mini]
tests:
  - vars: { question: What is the capital of France? }
    assert: [{ type: icontains, value: Paris }]
  - vars: { question: What is the capital of Kenya? }
    assert: [{ type: icontains, value: Nairobi }]
`;

/** The first ```ts block of a page, importing the built library instead of the package name. */
function example(page: string): string {
  const m = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(repoRoot, page), 'utf8'));
  assert.ok(m, `${page} has a TypeScript example`);
  const library = pathToFileURL(join(repoRoot, 'dist', 'src', 'index.js')).href;
  const code = (m[1] as string).replace(/from 'assay'/g, `from '${library}'`);
  assert.notEqual(code, m[1], `${page}'s example imports 'assay'`);
  return code;
}

let mock: MockServer;
const tmp = tempDir('assay-docs-library-');
before(async () => {
  mock = await startMockServer({ answers: [{ match: 'capital of France', reply: 'Paris is the capital.' }] });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

describe('library examples', () => {
  for (const page of ['README.md', 'docs/library.md']) {
    it(`${page}: the example runs as written and prints the pass rate as a percentage`, async () => {
      const dir = join(tmp.dir, page.replace(/\W/g, '-'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'promptfooconfig.yaml'), CONFIG);
      writeFileSync(join(dir, 'example.mjs'), example(page));
      // Asynchronous, so the mock server in this process answers while the example runs.
      const run = await runNode(['example.mjs'], {
        cwd: dir,
        env: childEnv({ OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test-not-used' }),
      });
      assert.equal(run.code, 0, run.stderr);
      // One of two tests passes: the mock answers Paris and echoes the Kenya question back.
      assert.match(run.stdout, /50\.0% passed/);
      assert.doesNotMatch(run.stdout, /\[object Object\]|NaN/);
      assert.match(run.stdout, /\.assay[/\\]runs[/\\]/);
      // The README's program runs a config object and writes the HTML report through the package entry.
      if (page === 'README.md') {
        assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /^<!doctype html>/);
        assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /capital of Kenya/);
      } else assert.equal(existsSync(join(dir, 'report.html')), false);
    });
  }
});
