// promptfoo's own verdicts on configs from its docs and examples (issue 15's missing features),
// recorded from promptfoo 0.123.1 by bench/pf-diff.ts: assay must give the same verdict on every
// row. Each fixture is run through the real CLI in a copy of its folder.
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../../support/cli.js';
import { fixture } from '../../support/paths.js';
import { fixtures, verdictRows } from '../../support/pf-verdicts.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-last-mile-');
const require = createRequire(import.meta.url);

function installed(pkg: string): boolean {
  try {
    require.resolve(`${pkg}/package.json`);
    return true;
  } catch {
    return false;
  }
}
after(tmp.cleanup);

describe("promptfoo's recorded verdicts (test/fixtures/promptfoo/last-mile)", () => {
  const all = fixtures(fixture('promptfoo', 'last-mile'));
  it('every fixture has promptfoo verdicts recorded', () => {
    assert.ok(all.length > 0);
    for (const fx of all) assert.ok(fx.expected && fx.expected.length > 0, `${fx.name}: expected.json`);
  });
  for (const fx of all) {
    // An optional package not installed here (npm install --omit=optional) cannot be tested.
    const missing = fx.needs.filter((pkg) => !installed(pkg));
    const skip = missing.length > 0 ? `needs the optional package ${missing.join(', ')}` : false;
    it(`${fx.name}: same verdicts as promptfoo`, { skip }, async () => {
      const dir = join(tmp.dir, fx.name);
      cpSync(fx.dir, dir, { recursive: true });
      const run = await runCli(
        ['eval', ...fx.args, '--no-cache', '--no-progress', '--output-format', 'promptfoo', '-o', 'out.json'],
        { cwd: dir, env: fx.env },
      );
      assert.ok([0, 1, 3].includes(run.code), `exit ${run.code}: ${run.stderr}`);
      const ours = verdictRows(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')), fx.fields);
      assert.deepEqual(ours, fx.expected);
    });
  }
});
