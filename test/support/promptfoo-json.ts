// Checks on promptfoo's results JSON as assay writes it (`--output-format promptfoo`): the fields and
// types promptfoo's EvaluateResult and GradingResult have.
import assert from 'node:assert/strict';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, walked field by field and checked at run time
export type Json = Record<string, any>;

export const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

/** The fields promptfoo's EvaluateResult requires, with their types. */
export function checkResult(r: Json): void {
  for (const k of ['promptIdx', 'testIdx', 'failureReason', 'score', 'latencyMs'])
    assert.ok(isNum(r[k]), `${k} is a number`);
  assert.equal(typeof r.success, 'boolean');
  assert.equal(typeof r.promptId, 'string');
  assert.ok([0, 1, 2].includes(r.failureReason));
  assert.equal(typeof r.provider.id, 'string');
  assert.equal(typeof r.prompt.raw, 'string');
  assert.equal(typeof r.prompt.label, 'string');
  assert.equal(typeof r.vars, 'object');
  assert.equal(typeof r.testCase, 'object');
  assert.equal(typeof r.namedScores, 'object');
  assert.ok(r.error === undefined || typeof r.error === 'string', 'error: absent, or a string');
  assert.equal(typeof r.provider.label, 'string');
  assert.ok(isNum(r.cost));
  assert.equal(typeof r.response.cached, 'boolean');
  for (const k of ['vars', 'options', 'metadata']) assert.equal(typeof r.testCase[k], 'object', k);
  assert.ok(Array.isArray(r.testCase.assert));
  assert.ok('output' in r.response);
  for (const k of ['total', 'prompt', 'completion', 'cached', 'numRequests'])
    assert.ok(isNum(r.tokenUsage[k]), k);
  if (r.gradingResult !== null) {
    assert.equal(typeof r.gradingResult.pass, 'boolean');
    assert.ok(isNum(r.gradingResult.score));
    assert.equal(typeof r.gradingResult.reason, 'string');
    for (const k of ['total', 'prompt', 'completion', 'cached', 'numRequests'])
      assert.ok(isNum(r.gradingResult.tokensUsed[k]), `tokensUsed.${k}`);
    for (const c of r.gradingResult.componentResults ?? []) {
      assert.equal(typeof c.pass, 'boolean');
      assert.ok(isNum(c.score));
      assert.equal(typeof c.reason, 'string');
      // A set's own result names no assertion; it carries metadata.assertionSet instead.
      assert.equal(typeof (c.assertion?.type ?? c.metadata.assertionSet.type), 'string');
    }
  }
}
