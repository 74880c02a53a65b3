// What the structured-answer fixtures keep of a promptfoo results row, the same way for promptfoo's
// rows (scripts/promptfoo-provider-record.js) and for assay's `--output-format promptfoo` rows
// (test/formats/promptfoo/provider-rows.test.ts): the whole row as a user sees it — output as
// promptfoo writes it (a value: text, or the tool calls as objects), finish reason, token usage,
// cost, score, success, failure reason, and every assertion's verdict and reason.

export interface ComparableRow {
  provider: string;
  test: string;
  /** `response.output` as written (undefined written as null). */
  output: unknown;
  finishReason: string | null;
  /** `response.tokenUsage` as written (null when absent). */
  responseTokens: unknown;
  /** The row's `tokenUsage`. */
  tokenUsage: unknown;
  cost: unknown;
  score: unknown;
  success: unknown;
  failureReason: unknown;
  /** The grading result's reason (null for a row whose assertions did not run). */
  reason: string | null;
  components: { pass: unknown; score: unknown; reason: unknown }[];
  /** The row's error, first line (informative: each tool words its errors its own way). */
  error: string | null;
}

// biome-ignore lint/suspicious/noExplicitAny: a promptfoo-shaped result row, read field by field
export function comparableRow(r: any): ComparableRow {
  const grading = r.gradingResult ?? null;
  return {
    provider: String(r.provider?.label || r.provider?.id || ''),
    test: String(r.testCase?.description ?? ''),
    output: r.response?.output ?? null,
    finishReason: r.response?.finishReason ?? null,
    responseTokens: r.response?.tokenUsage ?? null,
    tokenUsage: r.tokenUsage ?? null,
    cost: r.cost ?? null,
    score: r.score,
    success: r.success,
    failureReason: r.failureReason,
    reason: grading ? String(grading.reason ?? '') : null,
    components: (grading?.componentResults ?? []).map(
      (c: { pass: unknown; score: unknown; reason: unknown }) => ({
        pass: c.pass,
        score: c.score,
        reason: c.reason,
      }),
    ),
    error: typeof r.error === 'string' && r.error !== '' ? r.error.split('\n')[0] : null,
  };
}
