// The GitHub reporter and the Markdown summary, checked line by line on real runs: the job
// summary appended to $GITHUB_STEP_SUMMARY, one `::error` annotation at the line of each failing
// test (capped), Markdown that no model output can turn into markup, within the size limit.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { failingCases, scorecardOfRun } from '../../src/analysis/scorecard.js';
import { githubAnnotations, MAX_ANNOTATIONS, mdText, renderMarkdown } from '../../src/report/markdown.js';
import { readManifest } from '../../src/runlog/reader.js';
import { runCli } from '../support/cli.js';
import { CAPITALS, evalSuite, manyTests } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-markdown-');
let capitals: { dir: string; runDir: string; stdout: string; summary: string };
let many: { dir: string; runDir: string; stdout: string };

/** The 1-based line of the first line of `config` containing `text`. */
function lineOf(config: string, text: string): number {
  return config.split('\n').findIndex((l) => l.includes(text)) + 1;
}

before(async () => {
  const a = join(tmp.dir, 'capitals');
  mkdirSync(a);
  const summaryFile = join(a, 'step-summary.md');
  writeFileSync(summaryFile, '# earlier step\n');
  const run = await evalSuite(a, CAPITALS, ['--reporter', 'github'], { GITHUB_STEP_SUMMARY: summaryFile });
  assert.equal(run.code, 1, run.stderr);
  capitals = { dir: a, ...run, summary: readFileSync(summaryFile, 'utf8') };
  const b = join(tmp.dir, 'many');
  mkdirSync(b);
  // In GitHub Actions the reporter is on without the flag.
  many = {
    dir: b,
    ...(await evalSuite(b, manyTests(30, 1), [], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: join(b, 'summary.md'),
    })),
  };
});
after(() => tmp.cleanup());

describe('the GitHub reporter', () => {
  it('appends the summary to the job summary, after what was there', () => {
    const lines = capitals.summary.split('\n');
    assert.equal(lines[0], '# earlier step');
    assert.equal(lines[1], '## ❌ assay · Capitals (report test)');
    assert.equal(lines[2], '');
    assert.equal(
      lines[3],
      '**10 jobs**: 4 passed · 6 failed · 0 errors — pass rate **40.0% (16.8–68.7%)** (95% CI) · mean score 0.400',
    );
    const table = lines.indexOf('| prompt | provider | pass | fail | error | pass rate (95% CI) | score |');
    assert.ok(table > 0);
    assert.equal(lines[table + 1], '|---|---|--:|--:|--:|---|--:|');
    assert.equal(
      lines[table + 2],
      '| What is the capital of {{country}}? | echo | 2 | 3 | 0 | 40.0% (11.8–76.9%) | 0.400 |',
    );
    const failures = lines.indexOf('### Failures and errors (6)');
    assert.ok(failures > table);
    const japan = lineOf(CAPITALS, 'country: Japan') - 1;
    assert.match(
      lines[failures + 4],
      new RegExp(
        `^\\| ❌ fail \\| capital of Japan <sub>h:[0-9a-f]{12}</sub> \\| What is the capital of \\{\\{country\\}\\}\\? · echo \\| contains: Expected output to contain "Tokyo" \\| promptfooconfig\\.yaml:${japan} \\|$`,
      ),
    );
  });

  it('annotates the line of each failing test once, in GitHub’s command syntax', () => {
    const annotations = capitals.stdout.split('\n').filter((l) => l.startsWith('::'));
    const line = (text: string): number => lineOf(CAPITALS, text) - 1;
    assert.deepEqual(
      annotations.map((a) => /^::error file=([^,]+),line=(\d+),title=([^:]+)::(.+)$/.exec(a)?.slice(1, 3)),
      [
        // Absolute without $GITHUB_WORKSPACE (GitHub resolves a relative path from the repository
        // root, not from the folder assay ran in).
        [join(capitals.dir, 'promptfooconfig.yaml'), String(line('country: Japan'))],
        [join(capitals.dir, 'promptfooconfig.yaml'), String(line('country: Peru'))],
        // This test's entry starts on the line of its vars.
        [join(capitals.dir, 'promptfooconfig.yaml'), String(lineOf(CAPITALS, '"json"'))],
      ],
    );
    assert.match(annotations[0], /title=assay%3A failed%3A capital of Japan::capital of Japan \(h:/);
    // A property's `:` and `,` are escaped; the JSON case's name shows how.
    assert.match(annotations[2], /title=assay%3A failed%3A country={"a"%3A \[1%2C 2\]%2C "b"%3A "json"}::/);
  });

  it('caps the annotations on a big run and says how many more failed', () => {
    const annotations = many.stdout.split('\n').filter((l) => l.startsWith('::'));
    assert.equal(annotations.filter((l) => l.startsWith('::error ')).length, MAX_ANNOTATIONS);
    assert.equal(
      annotations[annotations.length - 1],
      `::notice title=assay::${30 - MAX_ANNOTATIONS} more failing tests are not annotated (see the job summary)`,
    );
    assert.ok(existsSync(join(many.dir, 'summary.md')));
  });

  it('assay report --format markdown prints the same summary; --reporter none turns it off', async () => {
    const md = await runCli(['report', capitals.runDir, '--format', 'markdown'], { cwd: capitals.dir });
    assert.equal(md.code, 0, md.stderr);
    assert.ok(capitals.summary.includes(md.stdout), md.stdout);
    const off = await runCli(['eval', '.', '--no-progress', '--reporter', 'none'], {
      cwd: capitals.dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(capitals.dir, 'off.md') },
    });
    assert.equal(off.code, 1, off.stderr);
    assert.ok(!existsSync(join(capitals.dir, 'off.md')));
    assert.doesNotMatch(off.stdout, /^::error/m);
  });
});

describe('Markdown', () => {
  it('shows untrusted text as text: no tag, link, image, mention or cell break', () => {
    const hostile =
      '<img src=x onerror=alert(1)> @octocat [click](https://evil.example) ![i](x) a|b `code` www.evil.example\nnext';
    const md = mdText(hostile, 500);
    assert.equal(
      md,
      '&lt;img src=x onerror=alert(1)&gt; &#64;octocat \\[click\\](https\\://evil.example) !\\[i\\](x) a\\|b \\`code\\` www\\.evil.example next',
    );
  });

  it('stays within the size it is given, saying how many failures it left out', async () => {
    const manifest = readManifest(many.runDir);
    const card = await scorecardOfRun(many.runDir);
    const full = renderMarkdown(manifest, card);
    assert.match(full, /### Failures and errors \(30\)/);
    assert.equal(full.split('\n').filter((l) => l.startsWith('| ❌ fail |')).length, 30);
    const small = renderMarkdown(manifest, card, 2500);
    assert.ok(small.length <= 2500, `${small.length} characters`);
    const shown = small.split('\n').filter((l) => l.startsWith('| ❌ fail |')).length;
    assert.ok(shown > 0 && shown < 30);
    assert.match(
      small,
      new RegExp(`… and ${30 - shown} more: see the HTML report or results\\.jsonl\\.\\n$`),
    );
    const failing = await failingCases(many.runDir, 2);
    assert.equal(failing.more, 28);
    assert.deepEqual(githubAnnotations(manifest, failing).length, 3);
  });
});
