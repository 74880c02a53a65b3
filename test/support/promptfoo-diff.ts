// The differential harness against promptfoo 0.123.1 (test/fixtures/promptfoo-diff/): configs run
// by promptfoo and by assay with the echo provider and a scripted grader (the mock server answers
// by a marker in the text being graded, so both tools get the same reply whatever their prompt
// wording). promptfoo's verdicts are recorded in expected.json by scripts/promptfoo-diff.mjs; the
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
}

/** One test's row: the row verdict, its error (if any), and each assertion's verdict. */
export interface RowVerdict {
  description: string;
  success: boolean;
  score: number;
  error?: string;
  assertions: Verdict[];
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

/** The rows of a promptfoo results JSON (promptfoo's own, or assay's `--output-format promptfoo`). */
export function rowsOf(output: Json): RowVerdict[] {
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
          return v;
        }),
      };
      if (typeof r.error === 'string' && r.error !== '' && r.failureReason === 2) row.error = r.error;
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
} {
  const byDescription = new Map(actual.map((r) => [r.description, r]));
  let compared = 0;
  let agreed = 0;
  const differences: Difference[] = [];
  const byClass: Record<string, [number, number]> = {};
  for (const want of expected) {
    const got = byDescription.get(want.description);
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
  }
  return { compared, agreed, differences, byClass };
}
