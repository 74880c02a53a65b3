// The library takes a config (issue 24): evaluate() runs a promptfoo-shaped config object, or a
// suite written with defineSuite(), and says what is wrong in one by its path in the object
// (`tests[1].assert[0].type`) — an InputError before anything runs, never a TypeError inside.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defineSuite, evaluate, InputError, type Suite } from '../../src/index.js';
import { childEnv, cleanEnv, runNode } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

// The program of the docs' library page, as a user writes it (15 lines). The HTML renderer is
// imported from its module until the library entry exports the renderers (the `outputs` branch).
const PROGRAM = `import { evaluate, writeReport } from 'assay';
const config = {
  description: 'capitals',
  prompts: ['The capital of {{country}}'], providers: ['echo'],
  tests: [
    { vars: { country: 'France' }, assert: [{ type: 'contains', value: 'France' }] },
    { vars: { country: 'Peru' }, assert: [{ type: 'contains', value: 'Lima' }] },
  ],
};
const { runDir, scorecard } = await evaluate({ config, runsDir: 'runs' });
await writeReport(runDir, 'report.html', { scorecard });
console.log(scorecard.counts.pass + ' passed, ' + scorecard.counts.fail + ' failed: report.html');
`;

const tmp = tempDir('assay-config-object-');
const project = join(tmp.dir, 'project');
before(() => {
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(repoRoot, join(project, 'node_modules', 'assay'), 'dir');
});
after(() => tmp.cleanup());

/** The one diagnostic of an InputError, as `where: message`. */
async function inputError(body: () => Promise<unknown>): Promise<string[]> {
  try {
    await body();
  } catch (err) {
    assert.ok(err instanceof InputError, `expected an InputError, got ${(err as Error)?.stack ?? err}`);
    return err.diagnostics.map((d) => `${d.file}${d.line !== undefined ? `:${d.line}` : ''}: ${d.message}`);
  }
  assert.fail('expected an InputError');
}

describe('evaluate() with a config object', () => {
  it('a 15-line program runs a config object and writes the HTML report', async () => {
    assert.ok(PROGRAM.trimEnd().split('\n').length <= 15);
    // Through the package entry only, never a deep path into dist/.
    assert.deepEqual(
      [...PROGRAM.matchAll(/from '([^']+)'/g)].map((m) => m[1]),
      ['assay'],
    );
    writeFileSync(join(project, 'program.mjs'), PROGRAM);
    const r = await runNode([join(project, 'program.mjs')], { cwd: project, env: childEnv(cleanEnv) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '1 passed, 1 failed: report.html\n');
    const html = readFileSync(join(project, 'report.html'), 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /capitals/);
    assert.match(html, /The capital of Peru/);
  });

  it('names the path in the object of a mistake, before any run directory is made', async () => {
    const runsDir = join(tmp.dir, 'runs-bad');
    const problems = await inputError(() =>
      evaluate({
        runsDir,
        config: {
          prompts: ['{{q}}'],
          providers: ['echo'],
          tests: [
            { vars: { q: 'a' }, assert: [{ type: 'equals', value: 'a' }] },
            { vars: { q: 'b' }, assert: [{ type: 'contians', value: 'b' }] },
          ],
        },
      }),
    );
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0], /^tests\[1\]\.assert\[0\]\.type: .*"contians".*did you mean "contains"/);
    assert.equal(existsSync(runsDir), false);
  });

  it('refuses what a file could not hold (a function), by its path', async () => {
    const problems = await inputError(() =>
      evaluate({
        config: {
          prompts: ['{{q}}'],
          providers: ['echo'],
          tests: [{ vars: { q: 'a' }, assert: [{ type: 'javascript', value: () => true }] }],
        },
      }),
    );
    assert.deepEqual(problems, [
      'tests[0].assert[0].value: a function: a config object holds data only (text, numbers, booleans, null, arrays, objects), as its file would',
    ]);
  });

  it('relative file:// paths resolve against basePath', async () => {
    const dir = join(tmp.dir, 'with-files');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'prompt.txt'), 'Say {{word}}');
    const { results } = await runWith({
      basePath: dir,
      runsDir: join(dir, 'runs'),
      config: {
        prompts: ['file://prompt.txt'],
        providers: ['echo'],
        tests: [{ vars: { word: 'hi' }, assert: [{ type: 'equals', value: 'Say hi' }] }],
      },
    });
    assert.deepEqual(results, ['pass']);
  });
});

describe('evaluate() with a suite written in code', () => {
  it('defineSuite fills in the defaults and runs', async () => {
    const suite = defineSuite({
      name: 'code suite',
      providers: ['echo'],
      cases: [
        { vars: { prompt: 'hello' }, asserts: [{ type: 'contains', value: 'hell' }] },
        { vars: { prompt: 'x' } },
      ],
    });
    const { results } = await runWith({ suite, runsDir: join(tmp.dir, 'runs-code') });
    assert.deepEqual(results, ['pass', 'pass']);
  });

  it('defineSuite names a misnamed field and an unknown assertion type by path', async () => {
    const problems = await inputError(async () =>
      defineSuite({
        providers: ['echo'],
        cases: [
          { vars: { prompt: 'a' } },
          { vars: { prompt: 'b' }, assertions: [{ type: 'contains', value: 'b' }] } as never,
          { asserts: [{ type: 'contians', value: 'c' }] },
        ],
      }),
    );
    assert.deepEqual(problems, [
      'cases[1].assertions: unknown field; did you mean "asserts"? (expected description, vars, asserts, metadata, threshold)',
      'cases[2].asserts[0].type: unknown assertion type "contians"',
    ]);
  });

  it('a Suite built by hand with `assertions` is an InputError naming it, not "specs is not iterable"', async () => {
    const suite = defineSuite({ providers: ['echo'], cases: [{ vars: { prompt: 'a' } }] });
    const { asserts: _asserts, ...bare } = suite.cases[0];
    const handMade = { ...suite, cases: [{ ...bare, assertions: [{ type: 'contains', value: 'a' }] }] };
    const problems = await inputError(() =>
      evaluate({ suite: handMade as unknown as Suite, runsDir: join(tmp.dir, 'runs-hand') }),
    );
    assert.deepEqual(problems, [
      'cases[0].asserts: missing (expected an array of assertions); the case has "assertions": did you mean "asserts"?',
    ]);
  });
});

async function runWith(options: Parameters<typeof evaluate>[0]): Promise<{ results: string[] }> {
  const { runDir } = await evaluate(options);
  const lines = readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim().split('\n');
  return { results: lines.map((l) => JSON.parse(l).status) };
}
