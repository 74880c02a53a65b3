// JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters): a <testsuite> per
// prompt × provider, a <testcase> per test and trial, <failure> with the failing assertions'
// reasons, <error>, <skipped>, and the suite file and line in `file`/`line`. Valid XML whatever a
// model wrote: characters XML 1.0 forbids are removed and CDATA sections are split around `]]>`.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Scorecard } from '../core/scorecard.js';
import type { JobResult, Verdict } from '../core/types.js';
import { readManifest, resultLinesInPlanOrder } from '../runlog/reader.js';
import { caseName, fullTitle, resultCase } from './naming.js';
import { registerOutputFormat } from './outputs.js';
import { reportColumns, sourceText } from './report-data.js';

/**
 * Characters XML 1.0 does not allow (C0 controls but tab, LF, CR; U+FFFE/U+FFFF; lone surrogates),
 * and the ones it discourages that a terminal would act on (DEL and the C1 controls, CSI among
 * them), since `assay report --format junit` may print to one.
 */
const NOT_XML = /[^\t\n\r\u0020-\u007e\u00a0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text with every character XML 1.0 forbids removed. */
export function xmlChars(text: string): string {
  return text.replace(NOT_XML, '');
}

/** Text safe in a double-quoted attribute (line breaks kept as character references). */
export function xmlAttr(text: string): string {
  return xmlChars(text).replace(/[&<>"\t\n\r]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Text as CDATA: any `]]>` split across two sections, so no text can close it early. */
export function cdata(text: string): string {
  return `<![CDATA[${xmlChars(text).replace(/\]\]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** The longest text kept in a failure body or system-out (the rest is in results.jsonl). */
const BODY_CHARS = 10_000;
/** The longest `message` attribute. */
const MESSAGE_CHARS = 500;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

function failing(verdicts: Verdict[]): Verdict[] {
  return verdicts.filter((v) => !v.pass && !v.skipped);
}

function seconds(ms: number): string {
  // A log written before latencies were kept has none: 0, never `NaN` (not a decimal).
  return (Number.isFinite(ms) ? Math.max(0, ms) / 1000 : 0).toFixed(3);
}

function testcase(r: JobResult, suiteName: string, cwd: string, repeat: number): string {
  const name = caseName(resultCase(r));
  const trial = repeat > 1 ? ` · trial ${r.trial + 1}` : '';
  const src = sourceText(r.case.source, cwd);
  const where = r.case.source
    ? ` file="${xmlAttr(src?.replace(/:\d+$/, '') ?? '')}"${r.case.source.line ? ` line="${r.case.source.line}"` : ''}`
    : '';
  const title = fullTitle(name);
  const open = `    <testcase name="${xmlAttr(`${title} (${name.id})${trial}`)}" classname="${xmlAttr(suiteName)}"${where} time="${seconds(r.answer.latencyMs)}">`;
  const body: string[] = [];
  if (r.status === 'fail') {
    const bad = failing(r.verdicts);
    const first = bad[0];
    const message = first ? `${first.type}: ${first.reason}` : r.reason;
    const details = bad.length
      ? bad
          .map((v) => `${v.type} (score ${v.score.toFixed(3)}): ${v.reason}${v.error ? ` — ${v.error}` : ''}`)
          .join('\n')
      : r.reason;
    body.push(
      `      <failure message="${xmlAttr(clip(message, MESSAGE_CHARS))}" type="${xmlAttr(first?.type ?? 'threshold')}">${cdata(clip(details, BODY_CHARS))}</failure>`,
    );
  } else if (r.status === 'error') {
    const message = r.error ?? r.reason;
    body.push(
      `      <error message="${xmlAttr(clip(message, MESSAGE_CHARS))}" type="${xmlAttr(r.errorStage ?? 'error')}">${cdata(clip(message, BODY_CHARS))}</error>`,
    );
  } else if (r.status === 'skip') {
    body.push(`      <skipped message="${xmlAttr(clip(r.reason ?? '', MESSAGE_CHARS))}"/>`);
  }
  if (r.output !== null && r.output !== undefined)
    body.push(`      <system-out>${cdata(clip(r.output, BODY_CHARS))}</system-out>`);
  return `${open}\n${body.join('\n')}${body.length ? '\n' : ''}    </testcase>\n`;
}

/** A test suite of one errored test case saying the run did not complete, and what it left undone. */
function runError(manifest: ReturnType<typeof readManifest>, done: number): string {
  const notRun = Math.max(0, manifest.plannedJobs - done);
  const why = `the run is ${manifest.status}: ${notRun} of ${manifest.plannedJobs} planned jobs did not run${manifest.stopReason ? ` (${manifest.stopReason})` : ''}`;
  const name = `${manifest.suite.name} · run ${manifest.runId}`;
  return `  <testsuite name="${xmlAttr(name)}" tests="1" failures="0" errors="1" skipped="0" time="0.000">\n    <testcase name="run ${xmlAttr(manifest.status)}" classname="${xmlAttr(name)}" time="0.000">\n      <error message="${xmlAttr(clip(why, MESSAGE_CHARS))}" type="${xmlAttr(manifest.status)}">${cdata(why)}</error>\n    </testcase>\n  </testsuite>\n`;
}

/** Writes the JUnit report: one pass over the log per prompt × provider (memory stays bounded). */
export async function writeJunit(runDir: string, card: Scorecard, out: Writable): Promise<void> {
  const manifest = readManifest(runDir);
  const put = async (chunk: string): Promise<void> => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const c = card.counts;
  const totalMs = card.latencyMsMean * c.total;
  // A run that did not complete is itself an error: a CI reporter must not show its partial results
  // as a green run.
  const unfinished = manifest.status !== 'complete' ? runError(manifest, c.total) : undefined;
  const extra = unfinished ? 1 : 0;
  await put(
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlAttr(manifest.suite.name)}" tests="${c.total + extra}" failures="${c.fail}" errors="${c.error + extra}" skipped="${c.skip}" time="${seconds(totalMs)}">\n`,
  );
  if (unfinished) await put(unfinished);
  for (const cell of reportColumns(manifest, card)) {
    const suiteName = `${manifest.suite.name} · ${cell.promptLabel} · ${cell.providerId}`;
    await put(
      `  <testsuite name="${xmlAttr(suiteName)}" tests="${cell.total}" failures="${cell.fail}" errors="${cell.error}" skipped="${cell.skip}" time="${seconds(cell.latencyMsMean * cell.total)}" timestamp="${xmlAttr(manifest.startedAt.replace(/\.\d+Z$|Z$/, ''))}">\n`,
    );
    await put(
      `    <properties>\n      <property name="assay.run" value="${xmlAttr(manifest.runId)}"/>\n      <property name="assay.format" value="${xmlAttr(manifest.suite.format)}"/>\n      <property name="assay.prompt" value="${xmlAttr(cell.promptLabel)}"/>\n      <property name="assay.provider" value="${xmlAttr(cell.providerId)}"/>\n    </properties>\n`,
    );
    for await (const line of resultLinesInPlanOrder(runDir)) {
      const r = JSON.parse(line) as JobResult;
      if (r.promptId !== cell.promptId || r.providerId !== cell.providerId) continue;
      await put(testcase(r, suiteName, manifest.cwd, manifest.options.repeat));
    }
    await put('  </testsuite>\n');
  }
  await put('</testsuites>\n');
}

registerOutputFormat({
  name: 'junit',
  layout: 'file',
  extensions: ['xml'],
  description:
    'JUnit XML: a testsuite per prompt × provider, a testcase per test and trial (CI test reporters)',
  write: (run, out) => writeJunit(run.dir, run.scorecard, out.stream),
});
