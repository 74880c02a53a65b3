// The `yaml` package (73 files) is loaded only when a config needs it: a config of 256 KiB or more
// is read by the fast reader (js-yaml), so running one that has no error loads no file of the
// package; a small config is read by the `yaml` package itself. Seen from a real `assay eval`
// process, through a module imported before the CLI that lists the CommonJS files loaded
// (`yaml` is CommonJS) when the process exits.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FAST_YAML_MIN_CHARS } from '../../../src/core/yaml-fast.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-lazy-yaml-');
after(() => tmp.cleanup());

const LIST = `import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(process.env.LOADED_LIST, Object.keys(require.cache).join('\\n') + '\\n'));
`;

/** Runs `assay eval -c config` and returns the package files of `yaml` the process loaded. */
async function yamlFilesLoaded(config: string, name: string): Promise<string[]> {
  const preload = join(tmp.dir, 'list-loaded.mjs');
  writeFileSync(preload, LIST);
  const list = join(tmp.dir, `${name}.txt`);
  writeFileSync(list, '');
  const r = await runCli(
    ['eval', '-c', config, '--no-progress', '--no-cache', '--runs-dir', join(tmp.dir, 'runs')],
    {
      cwd: tmp.dir,
      env: { NODE_OPTIONS: `--import=${preload}`, LOADED_LIST: list },
    },
  );
  assert.equal(r.code, 0, r.stderr);
  const loaded = readFileSync(list, 'utf8').split('\n');
  assert.ok(
    loaded.some((f) => f.includes('/node_modules/')),
    'the list holds package files (js-yaml or nunjucks at least)',
  );
  return loaded.filter((f) => f.includes('/node_modules/yaml/'));
}

describe('the yaml package is loaded on first use', () => {
  it('a big inline config read by the fast reader loads none of it; a small config does', async () => {
    // A filter, so that Nunjucks (CommonJS) renders the prompt and the list of loaded package files
    // is never empty: a template of plain `{{ name }}` references would load no package at all.
    const header = 'prompts: ["Say {{ word | lower }}"]\nproviders: [echo]\ntests:\n';
    const test = (i: number) =>
      `  - vars: { word: "w${i}" }\n    assert: [{ type: contains, value: "w${i}" }]\n`;
    const tests: string[] = [];
    let size = header.length;
    for (let i = 0; size < FAST_YAML_MIN_CHARS + 1024; i++) {
      tests.push(test(i));
      size += tests[i]?.length ?? 0;
    }
    const big = join(tmp.dir, 'big.yaml');
    writeFileSync(big, header + tests.join(''));
    assert.deepEqual(await yamlFilesLoaded(big, 'big'), []);
    const small = join(tmp.dir, 'small.yaml');
    writeFileSync(small, header + tests.slice(0, 3).join(''));
    assert.ok(
      (await yamlFilesLoaded(small, 'small')).length > 0,
      'a small config is read by the yaml package',
    );
  });
});
