// Reports a CI reads (JUnit, GitHub annotations, Markdown): an interrupted run, file paths from
// the repository root, case names that stay apart, and caps that never cut a row or hide failures.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { failingCases, scorecardOfRun } from '../../src/analysis/scorecard.js';
import { githubAnnotations, renderMarkdown } from '../../src/report/markdown.js';
import { caseName, fullTitle } from '../../src/report/naming.js';
import { readManifest } from '../../src/runlog/reader.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { startMockServer } from '../support/mock-openai.js';
import { evalSuite } from '../support/report-runs.js';
import { interruptedRun, readRun } from '../support/runs.js';
import { writeWordSuite } from '../support/suites.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-ci-reports-');
after(() => tmp.cleanup());

describe('reports a CI reads: interrupted runs, file paths, case names, caps', () => {
  it('JUnit of an interrupted run is not all green: a CI test reporter must see the run did not finish', async () => {
    const mock = await startMockServer();
    try {
      // Every job of this suite passes; the run is stopped with SIGINT after four of its 20 jobs.
      const suite = writeWordSuite(join(tmp.dir, 'interrupted'), {
        tests: 20,
        baseUrl: `${mock.url}/_/latency_ms=60/v1`,
        prompt: 'Repeat',
      });
      const runDir = await interruptedRun([suite], join(tmp.dir, 'interrupted-runs'), cleanEnv, mock);
      const r = await runCli(['report', runDir, '--format', 'junit'], { cwd: suite });
      assert.equal(r.code, 0, r.stderr);
      const { results } = readRun(runDir);
      assert.ok(results.length >= 4 && results.length < 20, `${results.length} results`);
      assert.ok(
        results.every((x) => x.status === 'pass'),
        'every job that ran passed',
      );
      assert.match(r.stdout, /<(error|failure)\b/, 'an interrupted run reads as a passing test suite');
    } finally {
      await mock.close();
    }
  });

  it('annotations name the suite file from the repository root, not from the folder assay ran in', async () => {
    const repo = join(tmp.dir, 'repo');
    const evals = join(repo, 'evals');
    mkdirSync(evals, { recursive: true });
    const run = await evalSuite(
      evals,
      `prompts: ['{{x}}']\nproviders: [echo]\ntests:\n  - vars: { x: a }\n    assert: [{ type: contains, value: zzz }]\n`,
    );
    assert.equal(run.code, 1, run.stderr);
    const manifest = readManifest(run.runDir);
    const [line] = githubAnnotations(manifest, await failingCases(run.runDir, 10));
    // GitHub resolves a relative `file` against the workspace (the repository root), and turns an
    // absolute path under it into a relative one; `promptfooconfig.yaml` alone points at a file
    // the repository does not have.
    const file = /^::error file=([^,]*)/.exec(line)?.[1] ?? '';
    assert.ok(
      file.endsWith('evals/promptfooconfig.yaml'),
      `annotation file=${file} is relative to the folder assay ran in, not the repository`,
    );
  });

  it('cases whose description renders the same keep the vars that tell them apart', () => {
    const a = caseName({
      caseId: 'a'.repeat(40),
      description: 'capital in {{lang}}',
      vars: { lang: 'en', country: 'France' },
    });
    const b = caseName({
      caseId: 'b'.repeat(40),
      description: 'capital in {{lang}}',
      vars: { lang: 'en', country: 'Japan' },
    });
    assert.notEqual(fullTitle(a), fullTitle(b), `both named "${fullTitle(a)}"`);
    const c = caseName({ caseId: 'c'.repeat(40), description: 'Test {{missing}}', vars: { x: 1 } });
    const d = caseName({ caseId: 'd'.repeat(40), description: 'Test {{missing}}', vars: { x: 2 } });
    assert.notEqual(fullTitle(c), fullTitle(d), `both named "${fullTitle(c)}"`);
  });

  it('the Markdown cap never cuts a table row in half nor drops the failures silently', async () => {
    const dir = join(tmp.dir, 'wide');
    mkdirSync(dir);
    const providers = Array.from(
      { length: 600 },
      (_, i) => `  - id: echo\n    label: '${'<'.repeat(50)}${i}'`,
    ).join('\n');
    const run = await evalSuite(
      dir,
      `prompts: ['{{x}}']\nproviders:\n${providers}\ntests:\n  - vars: { x: a }\n    assert: [{ type: contains, value: zzz }]\n`,
    );
    assert.equal(run.code, 1, run.stderr);
    const md = renderMarkdown(readManifest(run.runDir), await scorecardOfRun(run.runDir));
    assert.ok(md.length <= 60_000);
    const rows = md.split('\n').filter((l) => l.startsWith('|'));
    for (const row of rows) assert.ok(row.endsWith('|'), `a row cut in half: …${row.slice(-60)}`);
    assert.match(md, /Failures|more/, 'the 600 failures are not mentioned at all');
  });
  it('a run with many columns still gets its 10 annotations (the cap is not the first 50 failing jobs)', async () => {
    const dir = join(tmp.dir, 'columns');
    mkdirSync(dir);
    const providers = Array.from({ length: 12 }, (_, i) => `  - id: echo\n    label: e${i}`).join('\n');
    const tests = Array.from(
      { length: 20 },
      (_, i) => `  - vars: { x: a${i} }\n    assert: [{ type: contains, value: zzz }]`,
    ).join('\n');
    const run = await evalSuite(dir, `prompts: ['{{x}}']\nproviders:\n${providers}\ntests:\n${tests}\n`);
    assert.equal(run.code, 1, run.stderr);
    const lines = githubAnnotations(readManifest(run.runDir), await failingCases(run.runDir, 10));
    assert.match(lines.at(-1) ?? '', /10 more failing tests are not annotated/);
    // 20 tests failed; GitHub shows 10 error annotations of a step.
    assert.equal(lines.filter((l) => l.startsWith('::error')).length, 10, lines.join('\n'));
  });
});
