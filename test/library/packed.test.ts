// The package as npm packs it (`files` in package.json), installed into a project: the CLI
// (bin/assay.js → the bundle in dist/bundle/) and the library entry (`main`) run from there, find
// their own files (package.json's version, the apastra schemas) from inside the bundle's chunks,
// and a plugin importing 'assay' registers into the very registries the installed CLI reads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { childEnv, cleanEnv, runNode } from '../support/cli.js';
import { fixture, repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  main: string;
  types: string;
  bin: { assay: string };
  dependencies: Record<string, string>;
};

const tmp = tempDir('assay-packed-');
const project = join(tmp.dir, 'project');
const installed = join(project, 'node_modules', 'assay');
let packed: string[] = [];

before(() => {
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', tmp.dir], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(pack.status, 0, pack.stderr);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  assert.ok(info);
  packed = info.files.map((f) => f.path);
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  const untar = spawnSync('tar', ['-xzf', join(tmp.dir, info.filename), '-C', join(project, 'node_modules')]);
  assert.equal(untar.status, 0, String(untar.stderr));
  renameSync(join(project, 'node_modules', 'package'), installed);
  // The package's dependencies, as npm would install them beside it.
  for (const name of Object.keys(pkg.dependencies))
    symlinkSync(join(repoRoot, 'node_modules', name), join(project, 'node_modules', name), 'dir');
});
after(() => tmp.cleanup());

const assay = (args: string[]) =>
  runNode([join(installed, pkg.bin.assay), ...args], { cwd: project, env: childEnv(cleanEnv) });

describe('the packed package', () => {
  it('holds the bin, every file of the bundle, the types and the schemas, and no compiled tests', () => {
    const bundle = readdirSync(join(repoRoot, 'dist', 'bundle'), { recursive: true })
      .map((f) => `dist/bundle/${String(f)}`)
      .filter((f) => f.endsWith('.js'));
    assert.ok(bundle.length > 2, 'the bundle is built');
    for (const f of [pkg.bin.assay, pkg.main, pkg.types, 'schema/apastra/suite.schema.json', ...bundle])
      assert.ok(packed.includes(f), `${f} is packed`);
    assert.deepEqual(
      packed.filter((f) => f.startsWith('dist/test/') || (f.startsWith('dist/src/') && !f.endsWith('.d.ts'))),
      [],
    );
  });

  it('runs its CLI: --version is the package version, validate reads the packed apastra schemas', async () => {
    const version = await assay(['--version']);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout, `${pkg.version}\n`);
    const shipped = join(tmp.dir, 'shipped');
    cpSync(fixture('apastra', 'shipped'), shipped, { recursive: true });
    const ok = await assay(['validate', join(shipped, 'promptops/evals/my-eval.yaml')]);
    assert.equal(ok.code, 0, ok.stderr);
    const bad = await assay(['validate', shipped, '--suite', 'test-suite']);
    assert.equal(bad.code, 2, bad.stderr);
  });

  it("a plugin importing 'assay' registers into the installed CLI's registries; its InputError exits 2", async () => {
    writeFileSync(
      join(project, 'plugin.mjs'),
      `import { InputError, registerFormat, registerScorer } from 'assay';
registerScorer({
  type: 'shorter-than',
  description: 'the output has fewer than value characters',
  score: ({ output, value }) => {
    const pass = output.length < Number(value);
    return { pass, score: pass ? 1 : 0, reason: output.length + ' characters' };
  },
});
registerFormat({
  name: 'never',
  expects: 'a .never file',
  options: [],
  detectFile: (path) => path.endsWith('.never'),
  async load(path) {
    throw new InputError({ file: path, line: 1, message: 'never a suite', severity: 'error' });
  },
});
`,
    );
    writeFileSync(
      join(project, 'good.yaml'),
      'prompts: ["{{q}}"]\nproviders: [echo]\ntests:\n  - vars: { q: hello }\n    assert: [{ type: shorter-than, value: 10 }]\n',
    );
    writeFileSync(join(project, 'suite.never'), 'x\n');
    const common = ['--require', './plugin.mjs', '--no-progress', '--runs-dir', join(tmp.dir, 'runs')];
    const good = await assay(['eval', '-c', 'good.yaml', ...common]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /1 passed/);
    const bad = await assay(['eval', 'suite.never', ...common]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /suite\.never:1: never a suite/);
  });
});
