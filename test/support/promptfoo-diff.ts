// The differential harness against promptfoo 0.123.1 (test/fixtures/promptfoo-diff/): configs run
// by promptfoo and by assay with the echo provider and a scripted grader (the mock server answers
// by a marker in the text being graded, so both tools get the same reply whatever their prompt
// wording). promptfoo's verdicts are recorded in expected.json by scripts/promptfoo-diff.js; the
// tests compare assay's promptfoo-format output with them, so promptfoo need not be installed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export const DIFF_DIR = join(repoRoot, 'test', 'fixtures', 'promptfoo-diff');

/** One assertion's verdict. `reason` is kept only where it is stable (no timings, no ids). */
export interface Verdict {
  type: string;
  pass: boolean;
  score: number;
  reason?: string;
  /** The component results a script assertion returned, as the row keeps them (when it has any). */
  componentResults?: unknown[];
  /** For the output configs: the component's other fields (a script's own, `metadata`). */
  fields?: Record<string, unknown>;
}

/** One test's row: the row verdict, its error (if any), and each assertion's verdict. */
export interface RowVerdict {
  description: string;
  success: boolean;
  score: number;
  error?: string;
  assertions: Verdict[];
  /**
   * What the row writes besides verdicts (recorded for the configs added with the output checks;
   * compared where recorded): the test's vars and the prompt's raw text and label.
   */
  vars?: unknown;
  testVars?: unknown;
  prompt?: { raw: unknown; label: unknown };
}

export type Expectations = Record<string, RowVerdict[]>;

/** The fixture configs, by file name. */
export function diffConfigs(): string[] {
  return readdirSync(DIFF_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

export function readExpectations(): Expectations {
  return JSON.parse(readFileSync(join(DIFF_DIR, 'expected.json'), 'utf8')) as Expectations;
}

/** The class of a test: its description up to the first colon. */
export function classOf(description: string): string {
  const i = description.indexOf(':');
  return i === -1 ? description : description.slice(0, i);
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of either tool, read field by field
type Json = any;

const unstableReason = (reason: string): boolean => /\d+ms|latency|cost/i.test(reason);

/** Configs whose rows are also compared for what they write (vars, prompt), not verdicts alone. */
export const OUTPUT_CONFIGS = new Set(['output.yaml', 'conversation.yaml', 'store-output.yaml']);

/** The rows of a promptfoo results JSON (promptfoo's own, or assay's `--output-format promptfoo`). */
export function rowsOf(output: Json, opts: { outputs?: boolean } = {}): RowVerdict[] {
  const results: Json[] = output?.results?.results ?? [];
  return results
    .map((r): RowVerdict => {
      const components: Json[] = r.gradingResult?.componentResults ?? [];
      const row: RowVerdict = {
        description: String(r.testCase?.description ?? ''),
        success: r.success === true,
        score: Number(r.score ?? 0),
        assertions: components.map((c) => {
          const v: Verdict = {
            type: String(c.assertion?.type ?? ''),
            pass: c.pass === true,
            score: Number(c.score),
          };
          if (typeof c.reason === 'string' && !unstableReason(c.reason)) v.reason = c.reason;
          if (Array.isArray(c.componentResults)) v.componentResults = c.componentResults;
          if (opts.outputs) {
            const { pass: _p, score: _s, reason: _r, assertion: _a, componentResults: _c, ...rest } = c;
            if (Object.keys(rest).length > 0) v.fields = rest;
          }
          return v;
        }),
      };
      if (typeof r.error === 'string' && r.error !== '' && r.failureReason === 2) row.error = r.error;
      if (opts.outputs) {
        row.vars = r.vars;
        row.testVars = r.testCase?.vars;
        row.prompt = { raw: r.prompt?.raw, label: r.prompt?.label };
      }
      return row;
    })
    .sort((a, b) => a.description.localeCompare(b.description));
}

export interface Difference {
  description: string;
  what: string;
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9;

/** Per assertion: do pass and score (and reason, where promptfoo's is recorded) agree? */
export function compareRows(
  expected: RowVerdict[],
  actual: RowVerdict[],
  opts: { reasons?: boolean } = {},
): {
  compared: number;
  agreed: number;
  differences: Difference[];
  byClass: Record<string, [number, number]>;
  /** Row fields besides verdicts (vars, prompt) that agree, of those recorded. */
  outputs: [number, number];
} {
  // A row is its test's description, and its prompt's label where the row's prompt is recorded (a
  // config with several prompts has a row per prompt for each test).
  const keyOf = (r: RowVerdict): string =>
    r.prompt === undefined ? r.description : JSON.stringify([r.description, r.prompt.label]);
  const byKey = new Map(actual.map((r) => [keyOf(r), r]));
  let compared = 0;
  let agreed = 0;
  const differences: Difference[] = [];
  const byClass: Record<string, [number, number]> = {};
  const outputs: [number, number] = [0, 0];
  for (const want of expected) {
    const got = byKey.get(keyOf(want));
    const cls = classOf(want.description);
    byClass[cls] ??= [0, 0];
    const verdicts = want.assertions.length > 0 ? want.assertions : [undefined];
    verdicts.forEach((w, i) => {
      compared++;
      byClass[cls][1]++;
      const g = got?.assertions[i];
      let what = '';
      if (!got) what = 'no row in assay';
      else if (!w) {
        // promptfoo errored before any assertion ran: assay must error too.
        if (got.error === undefined) what = `promptfoo: error ${JSON.stringify(want.error)}; assay: no error`;
      } else if (!g)
        what = `promptfoo: ${w.pass}/${w.score}; assay: ${got.error ? `error ${got.error}` : 'no verdict'}`;
      else if (g.pass !== w.pass || !close(g.score, w.score))
        what = `promptfoo: ${w.pass}/${w.score}; assay: ${g.pass}/${g.score} (${g.reason ?? ''})`;
      else if (opts.reasons !== false && w.reason !== undefined && g.reason !== w.reason)
        what = `reason: promptfoo ${JSON.stringify(w.reason)}; assay ${JSON.stringify(g.reason)}`;
      else if (w.componentResults !== undefined && !sameJson(g.componentResults, w.componentResults))
        what = `componentResults: promptfoo ${JSON.stringify(w.componentResults)}; assay ${JSON.stringify(g.componentResults)}`;
      else if (w.fields !== undefined && !sameJson(g.fields, w.fields))
        what = `fields: promptfoo ${JSON.stringify(w.fields)}; assay ${JSON.stringify(g.fields)}`;
      if (what)
        differences.push({
          description: `${want.description}${verdicts.length > 1 ? ` #${i + 1}` : ''}`,
          what,
        });
      else {
        agreed++;
        byClass[cls][0]++;
      }
    });
    for (const field of ['vars', 'testVars', 'prompt'] as const) {
      if (want[field] === undefined) continue;
      outputs[1]++;
      if (got && sameJson(got[field], want[field])) outputs[0]++;
      else
        differences.push({
          description: `${want.description} (${field})`,
          what: `promptfoo ${JSON.stringify(want[field])}; assay ${JSON.stringify(got?.[field])}`,
        });
    }
  }
  return { compared, agreed, differences, byClass, outputs };
}

/** Equal as JSON, whatever the key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}

/** A promptfoo result row as test/fixtures/promptfoo-fidelity/ keeps it: what both tools write, without ids, timings and stack traces. */
export interface TrimmedRow {
  description: unknown;
  prompt: { raw: unknown; label: unknown };
  vars: unknown;
  output?: unknown;
  success: unknown;
  score: unknown;
  failureReason: unknown;
  error?: string;
  namedScores: unknown;
  components: { type: unknown; pass: unknown; score: unknown; reason: unknown }[];
}

/** Trims one row of a promptfoo results JSON (promptfoo's own, or assay's `--output-format promptfoo`). */
export function trimRow(r: Json): TrimmedRow {
  const error =
    typeof r.error === 'string' && r.error !== ''
      ? r.error
          .split('\n')
          .filter((l: string) => !/^\s+at /.test(l))
          .map((l: string) => l.trim())
          .join(' ')
      : undefined;
  return {
    description: r.testCase?.description,
    prompt: { raw: r.prompt?.raw, label: r.prompt?.label },
    vars: r.vars,
    output: r.response?.output,
    success: r.success,
    score: r.score,
    failureReason: r.failureReason,
    ...(error ? { error } : {}),
    namedScores: r.namedScores,
    components: (r.gradingResult?.componentResults ?? []).map((c: Json) => ({
      type: c.assertion?.type,
      pass: c.pass,
      score: c.score,
      reason: c.reason,
    })),
  };
}
