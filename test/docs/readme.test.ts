// The README is a front page (at most 400 lines) that keeps its two commands, and every relative
// link in it and in docs/ leads somewhere: to a file or folder that exists and, for a link to a
// heading (`page.md#anchor`), to a heading that page has.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';

const README = join(repoRoot, 'README.md');
const MAX_README_LINES = 400;

/**
 * Every Markdown page of the documentation: the README and docs/**, but not docs/incoming/ (notes
 * from helpers for the lead to fold into the pages, not pages themselves).
 */
function markdownFiles(): string[] {
  const docs = join(repoRoot, 'docs');
  const files = [README];
  if (existsSync(docs))
    for (const f of readdirSync(docs, { recursive: true }).map(String))
      if (f.endsWith('.md') && !f.startsWith(`incoming${sep}`)) files.push(join(docs, f));
  return files.sort();
}

/** The text outside fenced code blocks, line by line (code lines blanked, so line numbers hold). */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      const mark = m[1] as string;
      if (fence === undefined) fence = mark[0] as string;
      else if (mark[0] === fence) fence = undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (a repeated heading gets -1, -2, … as on GitHub). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a Markdown file: target and line. Code spans and fenced code are not links. */
function relativeLinks(file: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  prose(readFileSync(file, 'utf8')).forEach((text, i) => {
    const line = text.replace(/`[^`]*`/g, '``');
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      links.push({ target, line: i + 1 });
    }
  });
  return links;
}

/** What is wrong with every relative link of these files, as `file:line: message`. */
function brokenLinks(files: string[]): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  for (const file of files) {
    for (const { target, line } of relativeLinks(file)) {
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const dest = path === '' ? file : resolve(dirname(file), decodeURI(path));
      const where = `${relative(repoRoot, file)}:${line}`;
      if (!existsSync(dest)) {
        problems.push(`${where}: ${target}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!dest.endsWith('.md') || statSync(dest).isDirectory()) {
        problems.push(`${where}: ${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      let known = anchorCache.get(dest);
      if (!known) {
        known = anchors(dest);
        anchorCache.set(dest, known);
      }
      if (!known.has(anchor)) problems.push(`${where}: ${target}: no heading with that anchor`);
    }
  }
  return problems;
}

describe('README.md', () => {
  it(`is a front page of at most ${MAX_README_LINES} lines`, () => {
    const lines = readFileSync(README, 'utf8').replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= MAX_README_LINES, `README.md has ${lines} lines; move reference text into docs/`);
  });

  it('keeps the two commands, and both are scripts of package.json', () => {
    const text = readFileSync(README, 'utf8');
    assert.match(text, /^npm ci && npm run examples\b/m);
    assert.match(text, /^npm ci && npm test\b/m);
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts;
    assert.equal(typeof scripts.examples, 'string');
    assert.equal(typeof scripts.test, 'string');
  });
});

describe('links in README.md and docs/', () => {
  it('every relative link points at a file (and heading) that exists', () => {
    const files = markdownFiles();
    assert.ok(files.length > 1, 'docs/ holds Markdown pages');
    assert.deepEqual(brokenLinks(files), []);
  });

  it('the checker finds a missing file and a missing heading', () => {
    // The checker itself, on pages written for it: a link checker that finds nothing proves nothing.
    const problems = brokenLinks([join(repoRoot, 'test', 'fixtures', 'docs', 'broken-links.md')]);
    assert.deepEqual(problems, [
      'test/fixtures/docs/broken-links.md:3: no-such-page.md: no such file',
      'test/fixtures/docs/broken-links.md:4: ../../../docs/running.md#no-such-heading: no heading with that anchor',
      'test/fixtures/docs/broken-links.md:5: #nowhere: no heading with that anchor',
    ]);
  });

  it('anchors are spelt as GitHub spells them', () => {
    assert.equal(slug("promptfoo's results JSON"), 'promptfoos-results-json');
    assert.equal(slug('Agreement with promptfoo 0.123.1'), 'agreement-with-promptfoo-01231');
    assert.equal(slug('`assay eval [SUITE] [options]`'), 'assay-eval-suite-options');
    assert.equal(slug('Output files (`-o`)'), 'output-files--o');
    assert.equal(slug('ÈwéBench'), 'èwébench');
  });
});
