// What the HTML report embeds of each job: its place in the matrix, its name, what was asked,
// what came back and every verdict, in short keys and with long texts cut, so a 10,000-job report
// stays a few megabytes. Built from one results line at a time (the run log), never engine state.
import type { Scorecard, ScorecardCell } from '../core/scorecard.js';
import type { AnswerBlock, ContentPart, JobResult, Message, Verdict } from '../core/types.js';
import type { RunManifest } from '../runlog/types.js';
import { caseName, resultCase } from './naming.js';

/** Longest output kept per job; the rest is in results.jsonl (the page says how much was cut). */
export const OUTPUT_CHARS = 8000;
/** Longest message, reason or grader reply kept. */
export const TEXT_CHARS = 3000;
/** Longest var value kept. */
const VAR_CHARS = 1000;
/** Longest expected value of an assertion kept. */
const EXPECTED_CHARS = 500;

/** A text cut to `max` characters, and how many were cut. */
export function cut(text: string, max: number): { text: string; cut: number } {
  return text.length <= max ? { text, cut: 0 } : { text: text.slice(0, max), cut: text.length - max };
}

function cutText(text: string, max = TEXT_CHARS): string {
  const c = cut(text, max);
  return c.cut > 0 ? `${c.text}… [${c.cut} more characters in results.jsonl]` : c.text;
}

/** A var or metadata value as text. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

/** One verdict as the page shows it. */
export interface VerdictRow {
  /** type */
  t: string;
  /** pass */
  p: boolean;
  /** score */
  s: number;
  /** threshold, when the assertion had one */
  th?: number;
  /** the expected value (after template rendering), as text */
  x?: string;
  /** reason */
  r: string;
  e?: string;
  /** weight, when not 1 */
  w?: number;
  /** the grader's own words (model-graded assertions) */
  g?: string;
  /** the scorer could not judge */
  k?: boolean;
  /** a group's verdicts */
  ch?: VerdictRow[];
}

/** One message of a conversation: role, text, and whether it was a hole (and who filled it). */
export interface MessageRow {
  ro: string;
  /** text; null for a hole the output fills */
  c: string | null;
  /** the hole's variable (every hole has `h`, '' when it has no name) */
  h?: string;
  /** the hole was filled by the model's earlier turn */
  f?: boolean;
}

/**
 * One block of a structured answer as the case view shows it (a tool call with its name and
 * arguments, the model's reasoning, a refusal, text), present only when the answer was more than
 * one text block.
 */
export interface BlockRow {
  /** kind: `text`, `tool` (a tool call), `reasoning`, `refusal` (`filter`: the service's content filter) */
  k: 'text' | 'tool' | 'reasoning' | 'refusal' | 'filter';
  /** the text (a tool call's arguments, as the wire gave them), cut to OUTPUT_CHARS */
  t: string;
  /** a tool call's name */
  n?: string;
  /** a tool call's id */
  id?: string;
  /** the reasoning was withheld or encrypted by the API */
  rd?: boolean;
}

/** One job of the report's matrix. */
export interface JobRow {
  /** row: the case's plan index */
  i: number;
  /** column: index into the report's columns */
  c: number;
  /** trial */
  t: number;
  /** status */
  s: JobResult['status'];
  /** name (report/naming.ts) */
  n: string;
  /** case id for reference */
  id: string;
  /** vars as text */
  v?: Record<string, string>;
  /** metadata as text */
  m?: Record<string, string>;
  /** output, cut to OUTPUT_CHARS */
  o: string | null;
  /** characters of the output cut */
  oc?: number;
  /** reason (not for passes) */
  r?: string;
  e?: string;
  sc: number;
  /** latency ms */
  l: number;
  tk?: number;
  $?: number;
  /** the suite file and line the case came from */
  src?: string;
  vd: VerdictRow[];
  ms?: MessageRow[];
  /** the case's pass threshold */
  th?: number;
  /** the answer's blocks, when it was more than one text block (tool calls, reasoning, a refusal) */
  ab?: BlockRow[];
  /** the finish reason assertions saw, and the wire's when it differs */
  fr?: string;
  frr?: string;
}

/** A recorded answer's blocks as the case view shows them (every text cut). */
function blockRows(blocks: AnswerBlock[]): BlockRow[] {
  return blocks.map((b): BlockRow => {
    switch (b.type) {
      case 'tool_call': {
        const row: BlockRow = { k: 'tool', t: cutText(b.arguments, OUTPUT_CHARS), n: cutText(b.name, 200) };
        if (b.id !== undefined) row.id = cutText(b.id, 200);
        return row;
      }
      case 'reasoning':
        return b.redacted
          ? { k: 'reasoning', t: cutText(b.text, OUTPUT_CHARS), rd: true }
          : { k: 'reasoning', t: cutText(b.text, OUTPUT_CHARS) };
      case 'refusal':
        return { k: b.by === 'filter' ? 'filter' : 'refusal', t: cutText(b.text, OUTPUT_CHARS) };
      default:
        return { k: 'text', t: cutText(b.text, OUTPUT_CHARS) };
    }
  });
}

function graderWords(v: Verdict): string | undefined {
  const d = v.details;
  if (!d) return undefined;
  if (typeof d.graderReply === 'string') return d.graderReply;
  if (Array.isArray(d.graderReplies)) return d.graderReplies.map(asText).join('\n---\n');
  if (typeof d.judge_verdict === 'string') return d.judge_verdict;
  return undefined;
}

function verdictRow(v: Verdict): VerdictRow {
  const row: VerdictRow = { t: v.type, p: v.pass, s: v.score, r: cutText(v.reason ?? '') };
  const threshold = v.assertion?.threshold;
  if (threshold !== undefined) row.th = threshold;
  const expected = v.renderedValue !== undefined ? v.renderedValue : v.assertion?.value;
  if (expected !== undefined && expected !== null) row.x = cutText(asText(expected), EXPECTED_CHARS);
  if (v.error) row.e = cutText(v.error);
  if (v.weight !== undefined && v.weight !== 1) row.w = v.weight;
  const g = graderWords(v);
  if (g) row.g = cutText(g);
  if (v.skipped) row.k = true;
  if (v.children?.length) row.ch = v.children.map(verdictRow);
  return row;
}

function contentText(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) => (p.type === 'text' ? p.text : `[image ${p.image_url.url.slice(0, 80)}]`))
    .join('\n');
}

/**
 * The conversation as sent, every turn: a hole the model filled in an earlier turn shows what it
 * said (from the recorded runs); the last hole is the output.
 */
function messageRows(r: JobResult): MessageRow[] {
  const messages: Message[] = r.prompt?.messages ?? [];
  const completions = r.answer.runs?.[0]?.completions ?? [];
  let hole = 0;
  const holes = messages.filter((m) => m.role === 'assistant' && m.content === null).length;
  return messages.map((m) => {
    if (m.role === 'assistant' && m.content === null) {
      const filled = hole < holes - 1 ? completions[hole] : undefined;
      hole++;
      return filled !== undefined
        ? { ro: m.role, c: cutText(filled), h: m.variable ?? '', f: true }
        : { ro: m.role, c: null, h: m.variable ?? '' };
    }
    return { ro: m.role, c: cutText(contentText(m.content ?? '')) };
  });
}

/** The suite position of a case as `file:line`, the file relative to the run's working folder. */
export function sourceText(source: JobResult['case']['source'], cwd: string): string | undefined {
  if (!source?.file) return undefined;
  const file =
    cwd && source.file.startsWith(`${cwd.replace(/[\\/]$/, '')}/`)
      ? source.file.slice(cwd.length + 1)
      : source.file;
  return source.line ? `${file}:${source.line}` : file;
}

function textRecord(
  values: Record<string, unknown> | undefined,
  max: number,
): Record<string, string> | undefined {
  if (!values) return undefined;
  const entries = Object.entries(values).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([k, v]) => [k, cutText(asText(v), max)]));
}

/** The report's record of one job. */
export function jobRow(r: JobResult, column: number, cwd: string): JobRow {
  const name = caseName(resultCase(r));
  const output = r.output === null || r.output === undefined ? null : cut(r.output, OUTPUT_CHARS);
  const tokens = r.answer.usage?.total ?? (r.answer.usage?.prompt ?? 0) + (r.answer.usage?.completion ?? 0);
  const row: JobRow = {
    i: r.caseIndex ?? 0,
    c: column,
    t: r.trial ?? 0,
    s: r.status,
    n: name.title,
    id: name.id,
    o: output ? output.text : null,
    sc: r.score,
    l: r.answer.latencyMs,
    vd: (r.verdicts ?? []).map(verdictRow),
  };
  if (output?.cut) row.oc = output.cut;
  const vars = textRecord(r.case.vars, VAR_CHARS);
  if (vars) row.v = vars;
  const metadata = textRecord(r.case.metadata, 200);
  if (metadata) row.m = metadata;
  if (r.status !== 'pass' && r.reason) row.r = cutText(r.reason);
  if (r.error && r.error !== r.reason) row.e = cutText(r.error);
  if (tokens) row.tk = tokens;
  if (r.answer.cost) row.$ = r.answer.cost;
  const src = sourceText(r.case.source, cwd);
  if (src) row.src = src;
  const ms = messageRows(r);
  if (ms.length > 0) row.ms = ms;
  if (r.case.threshold !== undefined) row.th = r.case.threshold;
  // (A structured answer that was one text block is the output itself: its blocks are implied.)
  if (r.answer.blocks && r.answer.blocks.length > 0) row.ab = blockRows(r.answer.blocks);
  if (r.answer.finishReason !== undefined) row.fr = cutText(r.answer.finishReason, 80);
  if (r.answer.finishReasonRaw !== undefined) row.frr = cutText(r.answer.finishReasonRaw, 80);
  return row;
}

/**
 * JSON safe inside an HTML `<script>` element: `<`, `>`, `&` and the JavaScript line separators
 * escaped, so no text in it (a model's `</script>`, `<!--`) can end the element or start markup.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The columns in plan order (provider, then prompt, as the manifest lists them). */
export function reportColumns(manifest: RunManifest, card: Scorecard): ScorecardCell[] {
  const providers = manifest.providers.map((p) => String(p.key ?? p.id));
  const prompts = manifest.suite.prompts.map((p) => p.id);
  const at = (list: string[], id: string): number => {
    const i = list.indexOf(id);
    return i < 0 ? list.length : i;
  };
  return [...card.cells].sort(
    (a, b) =>
      at(providers, a.providerId) - at(providers, b.providerId) ||
      at(prompts, a.promptId) - at(prompts, b.promptId),
  );
}
