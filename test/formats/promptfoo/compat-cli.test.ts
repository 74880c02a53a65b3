// §11 compatibility cases of the command-line lane: filters, --var, exit codes (promptfoo.md §11).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JobResult } from '../../../src/core/types.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-compat-cli-');
after(tmp.cleanup);
let n = 0;

/** Writes a promptfoo config into a fresh folder and runs `assay eval` there with `args`. */
async function evalConfig(config: string, args: string[] = []) {
  const dir = join(tmp.dir, `suite-${n++}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const run = await runCli(['eval', '--no-progress', ...args], { cwd: dir });
  const runs = join(dir, '.assay', 'runs');
  const runDir = join(runs, readdirSync(runs)[0]);
  const text = readFileSync(join(runDir, 'results.jsonl'), 'utf8').trim();
  const results: JobResult[] = text === '' ? [] : text.split('\n').map((l) => JSON.parse(l));
  return { ...run, dir, results };
}

describe('promptfoo §11 compatibility: command line', () => {
  it('§11 #35: --filter-metadata category=mat matches category: math (substring)', async () => {
    const { code, stderr, results } = await evalConfig(
      `prompts: ['{{q}}']
providers: [echo]
tests:
  - {vars: {q: one}, metadata: {category: math}}
  - {vars: {q: two}, metadata: {category: poetry}}
  - {vars: {q: three}}
`,
      ['--filter-metadata', 'category=mat'],
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      results.map((r) => r.case.vars.q),
      ['one'],
    );
  });

  it('§11 #36: --filter-pattern drops tests with no description', async () => {
    const { code, stderr, results } = await evalConfig(
      `prompts: ['{{q}}']
providers: [echo]
tests:
  - {description: foo one, vars: {q: one}}
  - {vars: {q: two}}
  - {description: bar, vars: {q: three}}
`,
      ['--filter-pattern', '.*'],
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      results.map((r) => r.case.vars.q),
      ['one', 'three'],
    );
  });

  it('§11 #37: --filter-first-n 1 with vars {a: [x, y]} runs 2 rows (filter before expansion)', async () => {
    const { code, stderr, results } = await evalConfig(
      `prompts: ['{{a}}']
providers: [echo]
tests:
  - vars: {a: [x, y]}
  - vars: {a: z}
`,
      ['--filter-first-n', '1'],
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      results.map((r) => r.output),
      ['x', 'y'],
    );
  });

  it('§11 #44: one error row among passes: assay exits 3 (promptfoo exits 100); the error counts against', async () => {
    const { code, stdout, results } = await evalConfig(
      `prompts: ['{{q}}']
providers: [echo]
tests:
  - {vars: {q: a}, assert: [{type: contains, value: a}]}
  - {vars: {q: b}, assert: [{type: contains, value: '{{nothing}}'}]}
`,
    );
    // assay's exit codes are its own: 3 = the run could not judge every job
    // (docs/formats/promptfoo.md, "Exit codes": promptfoo's 100 covers both assay's 1 and 3).
    assert.equal(code, 3);
    assert.match(stdout, /1 passed · 0 failed · 1 error/);
    assert.deepEqual(results.map((r) => r.status).sort(), ['error', 'pass']);
    assert.match(results.find((r) => r.status === 'error')?.error ?? '', /contains/);
  });

  it('§11 #45: no rows at all (everything filtered out) exits 0 with a note', async () => {
    const { code, stdout, results } = await evalConfig(
      `prompts: ['{{q}}']
providers: [echo]
tests:
  - {vars: {q: a}, assert: [{type: contains, value: zzz}]}
`,
      ['--filter-metadata', 'category=none'],
    );
    assert.equal(code, 0);
    assert.equal(results.length, 0);
    assert.match(stdout, /Filters kept 0 of 1 test cases/);
    assert.match(stdout, /Nothing to run: the filters selected no test/);
  });

  it('§11 #46: --var a=b=c sets a to b', async () => {
    const { code, stderr, results } = await evalConfig(
      `prompts: ['[{{a}}]']
providers: [echo]
tests:
  - vars: {other: 1}
`,
      ['--var', 'a=b=c'],
    );
    assert.equal(code, 0, stderr);
    assert.equal(results[0].output, '[b]');
    assert.equal(results[0].case.vars.a, 'b');
    assert.match(stderr, /--var a=b=c: as in promptfoo, the value stops at the next "=" \(a = "b"\)/);
  });
});
