// The extension points, exercised as a plugin author uses them: a plugin module written only
// against the public API (it imports the built package, `assay`, never src/), loaded by the real
// CLI with `--require` and by a real library program, each run as a child process.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { childEnv, cleanEnv, runCli, runNode } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { readRun } from '../support/runs.js';
import { tempDir } from '../support/tmp.js';

/** A plugin: a `.tsv` suite format (prompt<TAB>expected), an assertion type, a provider kind. */
const PLUGIN = `
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { defineSuite, InputError, registerFormat, registerProvider, registerScorer } from 'assay';

registerFormat({
  name: 'tsv',
  expects: 'a .tsv file of prompt<TAB>expected lines',
  options: [],
  detectFile: (path) => path.endsWith('.tsv'),
  async load(path) {
    const lines = readFileSync(path, 'utf8').split('\\n');
    const cases = [];
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const [prompt, expected] = line.split('\\t');
      if (expected === undefined)
        throw new InputError({ file: path, line: i + 1, message: 'expected prompt<TAB>expected', severity: 'error' });
      cases.push({ vars: { prompt }, asserts: [{ type: 'icontains', value: expected }] });
    });
    return defineSuite({ name: basename(path), format: 'tsv', path: resolve(path), cases, providers: ['echo'] });
  },
  baseline: {
    save: async (runDir, savedAs) => ({ lines: ['tsv: noted baseline ' + basename(savedAs)], warnings: [] }),
  },
});

registerScorer({
  type: 'word-count-at-most',
  description: 'the output has at most value words',
  score: ({ output, value }) => {
    const n = output.split(/\\s+/).filter(Boolean).length;
    const pass = n <= Number(value);
    return { pass, score: pass ? 1 : 0, reason: n + ' words, at most ' + value };
  },
});

registerProvider({
  pattern: 'shout:<name>',
  matches: (id) => id.startsWith('shout:'),
  load: async () => (spec) => ({
    id: spec.id,
    label: spec.label ?? spec.id,
    cacheable: false,
    describe: () => ({ id: spec.id }),
    call: async (request) => ({ output: request.prompt.toUpperCase() + '!', latencyMs: 0 }),
  }),
});
`;

const tmp = tempDir('assay-plugins-');
const project = join(tmp.dir, 'project');

before(() => {
  // A project that installed assay: node_modules/assay is this checkout (its built entry).
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(repoRoot, join(project, 'node_modules', 'assay'), 'dir');
  writeFileSync(join(project, 'plugin.mjs'), PLUGIN);
  writeFileSync(join(project, 'suite.tsv'), 'hello world\tWORLD\ngoodbye\tmoon\n');
});
after(() => tmp.cleanup());

const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, { cwd: project, env: { ...cleanEnv, ...env } });

describe('plugins through the CLI (--require)', () => {
  it('a suite format: assay eval runs a .tsv suite the plugin registers', async () => {
    const r = await run(['eval', 'suite.tsv', '--require', './plugin.mjs', '--runs-dir', 'runs-a']);
    assert.equal(r.code, 1, r.stderr);
    const [runDir] = readdirRuns(join(project, 'runs-a'));
    const { manifest, results } = readRun(runDir);
    assert.equal(manifest.suite.format, 'tsv');
    assert.deepEqual(results.map((x) => [x.case.vars.prompt, x.status]).sort(), [
      ['goodbye', 'fail'],
      ['hello world', 'pass'],
    ]);
  });

  it("the format finds its hooks by the run: baseline save calls the plugin format's baseline hook", async () => {
    const e = await run(['eval', 'suite.tsv', '--require=./plugin.mjs', '--runs-dir', 'runs-b']);
    assert.equal(e.code, 1, e.stderr);
    const [runDir] = readdirRuns(join(project, 'runs-b'));
    const b = await run([
      '--require',
      './plugin.mjs',
      'baseline',
      'save',
      runDir,
      '--name',
      'first',
      '--dir',
      'bl',
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stdout, /^Saved baseline first: .*\ntsv: noted baseline first\n$/);
  });

  it('without the plugin the file is no suite; a missing plugin and a bad .tsv line are exit 2, one line each', async () => {
    const none = await run(['validate', 'suite.tsv']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /suite\.tsv: not a suite assay recognises/);
    const missing = await run(['validate', 'suite.tsv', '--require', './nope.mjs']);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /^assay: --require \.\/nope\.mjs: not found: .*\n$|^--require \.\/nope\.mjs: not found/,
    );
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
    writeFileSync(join(project, 'bad.tsv'), 'a\tb\nno tab here\n');
    const bad = await run(['validate', 'bad.tsv', '--require', './plugin.mjs']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad\.tsv:2: expected prompt<TAB>expected/);
  });

  it('an assertion type and a provider kind, used from a promptfoo config', async () => {
    writeFileSync(
      join(project, 'shout.yaml'),
      [
        'prompts: ["{{text}}"]',
        'providers: ["shout:loud"]',
        'tests:',
        '  - vars: { text: "two words" }',
        '    assert:',
        '      - type: word-count-at-most',
        '        value: 2',
        '      - type: equals',
        '        value: "TWO WORDS!"',
        '  - vars: { text: "a few more words" }',
        '    assert:',
        '      - type: word-count-at-most',
        '        value: 2',
      ].join('\n'),
    );
    const r = await run(['eval', 'shout.yaml', '--require', './plugin.mjs', '--runs-dir', 'runs-c']);
    assert.equal(r.code, 1, r.stderr);
    const { results } = readRun(readdirRuns(join(project, 'runs-c'))[0]);
    assert.deepEqual(results.map((x) => [x.output, x.status, x.verdicts.map((v) => v.reason)[0]]).sort(), [
      ['A FEW MORE WORDS!', 'fail', '4 words, at most 2'],
      ['TWO WORDS!', 'pass', '2 words, at most 2'],
    ]);
    // Without the plugin, the config is refused before any call, naming the type.
    const refused = await run(['validate', 'shout.yaml']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /unknown assertion type "word-count-at-most"/);
  });
});

describe('plugins through the library', () => {
  it('evaluate() runs the plugin format in a program that imports the package', async () => {
    writeFileSync(
      join(project, 'program.mjs'),
      [
        "import './plugin.mjs';",
        "import { evaluate } from 'assay';",
        "const result = await evaluate({ suitePath: 'suite.tsv', runsDir: 'runs-lib' });",
        'console.log(JSON.stringify({ format: result.manifest.suite.format, counts: result.scorecard.counts }));',
      ].join('\n'),
    );
    const r = await runNode([join(project, 'program.mjs')], { cwd: project, env: childEnv(cleanEnv) });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.format, 'tsv');
    assert.equal(out.counts.pass, 1);
    assert.equal(out.counts.fail, 1);
  });
  it('a provider built before another fails to build is still closed: evaluate() rejects and releases it', async () => {
    writeFileSync(
      join(project, 'closing.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        "import { evaluate, InputError, registerProvider } from 'assay';",
        'registerProvider({',
        "  pattern: 'held:<name>',",
        "  matches: (id) => id.startsWith('held:'),",
        '  load: async () => (spec) => ({',
        '    id: spec.id,',
        '    cacheable: false,',
        '    describe: () => ({ id: spec.id }),',
        "    call: async () => ({ output: 'x', latencyMs: 0 }),",
        "    close: async () => appendFileSync('closed.txt', spec.id + '\\n'),",
        '  }),',
        '});',
        'registerProvider({',
        "  pattern: 'broken:<name>',",
        "  matches: (id) => id.startsWith('broken:'),",
        '  load: async () => (spec) => {',
        "    throw new InputError(spec.id + ': cannot be built');",
        '  },',
        '});',
        'const config = {',
        "  prompts: ['{{q}}'],",
        "  providers: ['held:one', 'broken:two', 'held:three'],",
        "  tests: [{ vars: { q: 'hi' }, assert: [{ type: 'equals', value: 'x' }] }],",
        '};',
        'try {',
        "  await evaluate({ config, basePath: '.', runsDir: 'runs-closing' });",
        "  console.log('ran');",
        '} catch (err) {',
        '  console.log(err.message);',
        '}',
      ].join('\n'),
    );
    const r = await runNode([join(project, 'closing.mjs')], { cwd: project, env: childEnv(cleanEnv) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /broken:two: cannot be built/);
    const closed = join(project, 'closed.txt');
    assert.deepEqual((existsSync(closed) ? readFileSync(closed, 'utf8') : '').trim().split('\n').sort(), [
      'held:one',
      'held:three',
    ]);
    assert.equal(existsSync(join(project, 'runs-closing')), false);
  });
});

/** The run directories directly under `dir`, by name. */
function readdirRuns(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n));
}
