// The run as Markdown, as a pull-request comment or a GitHub job summary shows it: the figures,
// the per prompt × provider table, the breakdowns, and the failures with why. Text from models
// and suites is escaped (no markup, no links, no images, no @-mentions) and the whole stays
// within GitHub's comment limit. The GitHub reporter adds `::error` annotations at the suite
// lines of the failing tests.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { FailureNote, Scorecard } from '../core/scorecard.js';
import type { RunManifest } from '../runlog/types.js';
import { formatMean, formatRate, graderLine, streamFigures } from './console.js';
import { caseName, fullTitle } from './naming.js';
import { registerOutputFormat } from './outputs.js';
import { reportColumns, sourceText } from './report-data.js';

/** GitHub refuses comments over 65,536 characters; the summary stays under this, with room to spare. */
export const MARKDOWN_LIMIT = 60_000;

/**
 * Untrusted text as inert Markdown inline text on one line: HTML and Markdown syntax escaped
 * (so no tag, link, image or table cell break), `@` made unable to mention anyone, and the length
 * capped.
 */
export function mdText(text: string, max = 200): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return (
    cut
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/@/g, '&#64;')
      .replace(/[\\`*_[\]|~]/g, (ch) => `\\${ch}`)
      // No autolinks: a model's URL stays text, not a link in a pull request.
      .replace(/:\/\//g, '\\://')
      .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\\.`)
  );
}

function failureLine(f: FailureNote, manifest: RunManifest): string {
  const name = caseName(f);
  const what = f.assertion && f.assertion !== 'error' ? `${f.assertion}: ${f.reason}` : f.reason;
  const src = sourceText(f.source, manifest.cwd);
  const trial = manifest.options.repeat > 1 ? ` · trial ${f.trial + 1}` : '';
  const title = fullTitle(name);
  return `| ${f.status === 'error' ? '⚠️ error' : '❌ fail'} | ${mdText(title, 120)} <sub>${mdText(name.id, 40)}</sub> | ${mdText(`${f.promptLabel} · ${f.providerId}${trial}`, 80)} | ${mdText(what, 300)} | ${src ? mdText(src, 120) : ''} |`;
}

/** The run's summary as Markdown, at most `limit` characters. */
export function renderMarkdown(manifest: RunManifest, card: Scorecard, limit = MARKDOWN_LIMIT): string {
  const c = card.counts;
  const ok = c.fail === 0 && c.error === 0 && manifest.status === 'complete';
  const lines: string[] = [];
  lines.push(`## ${ok ? '✅' : '❌'} assay · ${mdText(manifest.suite.name, 120)}`);
  lines.push('');
  lines.push(
    `**${c.total} jobs**: ${c.pass} passed · ${c.fail} failed · ${c.error} errors${c.skip ? ` · ${c.skip} skipped` : ''} — pass rate **${formatRate(card.passRate)}** (95% CI) · mean score ${card.meanScore.toFixed(3)}`,
  );
  const facts = [
    `run \`${manifest.runId.replace(/`/g, '')}\``,
    `format ${mdText(manifest.suite.format, 40)}`,
  ];
  if (card.tokens > 0) facts.push(`${card.tokens} tokens`);
  if (card.cost > 0) facts.push(`$${card.cost.toFixed(4)}`);
  if (card.stream) {
    const [ttft, tps] = streamFigures(card.stream);
    facts.push(`time to first token ${ttft} ms${tps === '–' ? '' : ` · ${tps} tokens/s`}`);
  }
  if (manifest.status !== 'complete') facts.push(`**run ${manifest.status}**`);
  lines.push('', facts.join(' · '));
  if (manifest.grader) lines.push('', `Grader: ${mdText(graderLine(manifest.grader), 300)}`);
  if (card.weightedScore) {
    const w = card.weightedScore;
    lines.push('', `**${mdText(w.name, 60)}**: ${formatMean(w.score, w.scale, w.rounded)} (95% CI)`);
  }
  const columns = reportColumns(manifest, card);
  if (columns.length > 0) {
    lines.push(
      '',
      '| prompt | provider | pass | fail | error | pass rate (95% CI) | score |',
      '|---|---|--:|--:|--:|---|--:|',
    );
    for (const cell of columns)
      lines.push(
        `| ${mdText(cell.promptLabel, 60)} | ${mdText(cell.providerId, 40)} | ${cell.pass} | ${cell.fail} | ${cell.error} | ${formatRate(cell.passRate)} | ${cell.meanScore.toFixed(3)} |`,
      );
  }
  for (const b of card.breakdowns ?? []) {
    lines.push(
      '',
      `**By ${mdText(b.by, 40)}**`,
      '',
      '| value | pass | fail | error | pass rate (95% CI) |',
      '|---|--:|--:|--:|---|',
    );
    for (const g of b.groups)
      lines.push(
        `| ${mdText(g.value, 60)} | ${g.pass} | ${g.fail} | ${g.error} | ${formatRate(g.passRate)} |`,
      );
  }
  let text = '';
  // Whole lines only: a table cut inside a cell breaks the page, and the failures' note must fit.
  const room = limit - 400;
  let cut = 0;
  for (const line of lines) {
    if (cut > 0 || text.length + line.length + 1 > room) {
      cut++;
      continue;
    }
    text += text ? `\n${line}` : line;
  }
  if (cut > 0) {
    text += `\n\n… ${cut} more lines of figures left out to fit GitHub's size limit: see the HTML report.`;
    const total = card.failures.length + card.failuresOmitted;
    if (total > 0) text += `\n\n${total} failing or erroring jobs: see the HTML report or results.jsonl.`;
    return `${text}\n`;
  }
  if (card.failures.length > 0) {
    const total = card.failures.length + card.failuresOmitted;
    const head = `\n\n### Failures and errors (${total})\n\n| | case | prompt · provider | why | where |\n|---|---|---|---|---|`;
    const ending = (shown: number): string =>
      total > shown ? `\n\n… and ${total - shown} more: see the HTML report or results.jsonl.` : '';
    text += head;
    let shown = 0;
    for (const f of card.failures) {
      const line = `\n${failureLine(f, manifest)}`;
      // Leave room for the closing sentence: the whole must fit the limit.
      if (text.length + line.length + ending(shown + 1).length + 200 > limit) break;
      text += line;
      shown++;
    }
    text += ending(shown);
  }
  return `${text.slice(0, limit - 1)}\n`;
}

/** GitHub's escaping of a workflow command's message (`%`, CR, LF). */
function commandData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** GitHub's escaping of a workflow command's property (also `:` and `,`). */
function commandProperty(text: string): string {
  return commandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** GitHub shows at most 10 error annotations of a step; more are dropped, so more are not written. */
export const MAX_ANNOTATIONS = 10;

/**
 * `::error file=…,line=…,title=…::message` at the suite line of each failing test (once per test,
 * however many prompts and providers it failed: analysis/scorecard.ts `failingCases`), then a
 * notice of the rest. The file is relative to `workspace` ($GITHUB_WORKSPACE, the repository root
 * GitHub resolves it against), else absolute: never relative to the folder assay ran in.
 */
export function githubAnnotations(
  manifest: RunManifest,
  failing: { notes: FailureNote[]; more: number },
  workspace?: string,
): string[] {
  const out: string[] = [];
  for (const f of failing.notes) {
    const name = caseName(f);
    const title = fullTitle(name);
    const file = annotationFile(f.source, manifest.cwd, workspace);
    const props = [
      ...(file ? [`file=${commandProperty(clean(file))}`] : []),
      ...(f.source?.line ? [`line=${f.source.line}`] : []),
      `title=${commandProperty(clean(`assay: ${f.status === 'error' ? 'error' : 'failed'}: ${title}`.slice(0, 200)))}`,
    ];
    const what = f.assertion && f.assertion !== 'error' ? `${f.assertion}: ${f.reason}` : f.reason;
    const message = `${title} (${name.id}) · ${f.promptLabel} · ${f.providerId}: ${what}`;
    out.push(`::error ${props.join(',')}::${commandData(clean(message).slice(0, 1000))}`);
  }
  if (failing.more > 0)
    out.push(
      `::notice title=assay::${failing.more} more failing tests are not annotated (see the job summary)`,
    );
  return out;
}

/** The file of a case's source for an annotation (an .xlsx sheet name is no part of the path). */
function annotationFile(source: FailureNote['source'], cwd: string, workspace?: string): string | undefined {
  if (!source?.file) return undefined;
  const file = source.file.replace(/#[^/\\]*$/, '');
  const abs = isAbsolute(file) ? file : resolve(cwd || '.', file);
  if (!workspace) return abs;
  const rel = relative(workspace, abs);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? abs : rel.split(sep).join('/');
}

/** Control characters and bidi overrides out (a workflow command is one printable line; `::` stays inside the message). */
function clean(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ');
}

registerOutputFormat({
  name: 'markdown',
  layout: 'file',
  extensions: ['md', 'markdown'],
  description: 'the summary and failures as Markdown (a PR comment; within GitHub’s size limit)',
  write: (run, out) => out.write(renderMarkdown(run.manifest, run.scorecard)),
});
