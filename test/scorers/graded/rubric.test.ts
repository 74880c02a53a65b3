import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readVerdict } from '../../../src/scorers/graded/llm-rubric.js';
import {
  extractJsonObjects,
  gradingMessages,
  renderGradingPrompt,
  rubricPromptText,
} from '../../../src/scorers/graded/rubric.js';

describe('grading prompt helpers', () => {
  it('renders each string of a JSON prompt separately, so values are JSON-escaped', () => {
    const template = JSON.stringify([{ role: 'user', content: 'Out: {{ output }} / {{ obj }}' }]);
    const rendered = renderGradingPrompt(template, { output: 'say "hi"\nnow', obj: { a: 1 } });
    assert.deepEqual(gradingMessages(rendered), [{ role: 'user', content: 'Out: say "hi"\nnow / {"a":1}' }]);
    assert.deepEqual(gradingMessages(renderGradingPrompt('Plain {{ x }}', { x: 1 })), [
      { role: 'user', content: 'Plain 1' },
    ]);
  });

  it('uses the default prompt unless a rubricPrompt is given; objects are serialised', () => {
    assert.equal(rubricPromptText(undefined, 'D'), 'D');
    assert.equal(rubricPromptText({}, 'D'), 'D');
    assert.equal(rubricPromptText('mine', 'D'), 'mine');
    assert.equal(rubricPromptText([{ role: 'user', content: 'x' }], 'D'), '[{"role":"user","content":"x"}]');
  });

  it('finds JSON objects in prose and code fences, read as promptfoo reads them ({oops} is YAML)', () => {
    assert.deepEqual(
      extractJsonObjects('Sure! ```json\n{"pass": true, "reason": "a {b}"}\n``` {oops} {"score": 1}'),
      [{ pass: true, reason: 'a {b}' }, { oops: null }, { score: 1 }],
    );
    assert.deepEqual(extractJsonObjects('no json here'), []);
  });

  it('reads verdicts as promptfoo does: pass defaults to true, strings yes/true/pass/y, score to Number(pass)', () => {
    assert.deepEqual(readVerdict({ reason: 'x', score: 0 }), { pass: true, score: 0, reason: 'x' });
    assert.deepEqual(readVerdict({ pass: 'Yes' }), { pass: true, score: 1, reason: undefined });
    assert.deepEqual(readVerdict({ pass: 'no', score: '0.4' }), {
      pass: false,
      score: 0.4,
      reason: undefined,
    });
    assert.deepEqual(readVerdict({ pass: false, score: 'n/a' }), {
      pass: false,
      score: 0,
      reason: undefined,
    });
    // promptfoo: Number(null) is 0, so `"score": null` scores 0 even when the verdict passes.
    assert.deepEqual(readVerdict({ pass: true, score: null }), { pass: true, score: 0, reason: undefined });
  });
});
