// Verdicts read from promptfoo's results JSON, in a form both tools can be compared on: the
// differential fixtures under test/fixtures/promptfoo/last-mile/ hold promptfoo 0.123.1's verdicts
// in this form (written by bench/pf-diff.ts), and the tests compare assay's output with them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One result row: which test, prompt and provider, and how promptfoo judged it. */
export interface VerdictRow {
  test: number;
  prompt: number;
  provider: string;
  pass: boolean;
  score: number;
  /** Each assertion's pass, in order (absent when the row has none, e.g. an error). */
  asserts?: boolean[];
  /** The row was an error (failureReason 2), not a failure. */
  error?: boolean;
  /** Fields a fixture asks to compare as well (`fields` in fixture.json). */
  prompt_raw?: string;
  output?: unknown;
  reason?: string;
}

/** A differential fixture: a folder with a config, how to run it, and promptfoo's verdicts. */
export interface Fixture {
  name: string;
  dir: string;
  /** Arguments after `eval` (default `-c promptfooconfig.yaml`). */
  args: string[];
  /** Extra fields compared: `prompt` (the prompt sent), `output`, `reason`. */
  fields: string[];
  /** Environment the run needs. */
  env: Record<string, string>;
  /** Where the config came from. */
  source?: string;
  /** Optional packages the fixture needs (a TypeScript fixture needs tsx). */
  needs: string[];
  expected?: VerdictRow[];
}

// biome-ignore lint/suspicious/noExplicitAny: promptfoo's results JSON, read field by field
type Json = any;

const round = (n: unknown): number => (typeof n === 'number' ? Math.round(n * 1e4) / 1e4 : Number.NaN);

/** The verdict rows of a promptfoo results JSON (either tool's), sorted by test, prompt, provider. */
export function verdictRows(out: Json, fields: string[] = []): VerdictRow[] {
  const rows: VerdictRow[] = (out.results.results as Json[]).map((r) => {
    const row: VerdictRow = {
      test: r.testIdx,
      prompt: r.promptIdx,
      provider: r.provider?.label || r.provider?.id,
      pass: r.success,
      score: round(r.score),
    };
    const parts = r.gradingResult?.componentResults;
    if (Array.isArray(parts) && parts.length > 0) row.asserts = parts.map((c: Json) => Boolean(c.pass));
    if (r.failureReason === 2) row.error = true;
    if (fields.includes('prompt')) row.prompt_raw = r.prompt?.raw;
    if (fields.includes('output')) row.output = r.response?.output;
    if (fields.includes('reason')) row.reason = r.gradingResult?.reason;
    return row;
  });
  return rows.sort((a, b) => a.test - b.test || a.prompt - b.prompt || a.provider.localeCompare(b.provider));
}

/** Every differential fixture under `root`, with its recorded verdicts when present. */
export function fixtures(root: string): Fixture[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const dir = join(root, d.name);
      const spec = existsSync(join(dir, 'fixture.json'))
        ? JSON.parse(readFileSync(join(dir, 'fixture.json'), 'utf8'))
        : {};
      const expectedPath = join(dir, 'expected.json');
      return {
        name: d.name,
        dir,
        args: spec.args ?? ['-c', 'promptfooconfig.yaml'],
        fields: spec.fields ?? [],
        env: spec.env ?? {},
        source: spec.source,
        needs: spec.needs ?? [],
        expected: existsSync(expectedPath) ? JSON.parse(readFileSync(expectedPath, 'utf8')) : undefined,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
