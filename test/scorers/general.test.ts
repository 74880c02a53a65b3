import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec } from '../../src/core/types.js';
import '../../src/scorers/index.js';
import { getScorer } from '../../src/scorers/registry.js';
import { ScorerInputError } from '../../src/scorers/types.js';

async function score(spec: AssertionSpec, output: string) {
  const scorer = getScorer(spec.type);
  assert.ok(scorer, spec.type);
  return scorer.score({
    output,
    outputValue: output,
    value: spec.value,
    spec,
    vars: {},
    prompt: '',
    response: {},
  });
}

function problem(spec: AssertionSpec): string | undefined {
  return getScorer(spec.type)?.validate?.(spec);
}

describe('general scorers', () => {
  it('keyword-recall: fraction found, threshold default 1, empty list skips unless ifEmpty', async () => {
    const r = await score({ type: 'keyword-recall', value: ['Lomé', 'kpalimé'] }, 'lomé et Kpalimé');
    assert.deepEqual([r.score, r.pass], [1, true]);
    const half = await score({ type: 'keyword-recall', value: ['a', 'zz'], threshold: 0.5 }, 'A');
    assert.deepEqual([half.score, half.pass], [0.5, true]);
    const sensitive = await score(
      { type: 'keyword-recall', value: ['A'], options: { caseSensitive: true } },
      'a',
    );
    assert.equal(sensitive.score, 0);
    assert.equal((await score({ type: 'keyword-recall', value: [] }, 'x')).skip, true);
    assert.equal((await score({ type: 'keyword-recall', value: [], options: { ifEmpty: 0 } }, 'x')).score, 0);
    assert.match(problem({ type: 'keyword-recall', value: 'abc' }) ?? '', /needs a list of keywords/);
  });

  it('length counts code points between min and max', async () => {
    assert.equal((await score({ type: 'length', value: { min: 3, max: 3 } }, '😊😊😊')).pass, true);
    assert.equal((await score({ type: 'length', value: { max: 2 } }, 'abc')).pass, false);
    assert.match(problem({ type: 'length', value: {} }) ?? '', /needs min or max/);
  });

  it('markdown-elements: share of the listed elements; unknown names count against', async () => {
    const r = await score(
      { type: 'markdown-elements', value: ['table', 'bold', 'emoji'] },
      '| a |\n|---|\n**b**',
    );
    assert.ok(Object.is(r.score, 2 / 3));
    assert.equal(r.pass, false);
  });

  it('mean: weighted mean of sub-assertions summed in order; negation and not- types work', async () => {
    const spec: AssertionSpec = {
      type: 'mean',
      value: [
        { type: 'contains', value: 'a' },
        { type: 'not-contains', value: 'b' },
        { type: 'keyword-recall', value: ['a', 'z'], weight: 2 },
      ],
    };
    const r = await score(spec, 'a');
    assert.equal(r.score, (1 + 1 + 0.5 * 2) / 4);
    assert.equal(r.pass, false); // keyword-recall failed and no threshold was given
    assert.equal((await score({ ...spec, threshold: 0.7 }, 'a')).pass, true);
    assert.match(problem({ type: 'mean', value: [{ type: 'nope' }] }) ?? '', /unknown assertion type "nope"/);
    assert.match(problem({ type: 'mean', value: [{ type: 'contains' }] }) ?? '', /item 1: .*contains/);
    assert.equal((await score({ type: 'mean', value: [], options: { ifEmpty: 0 } }, 'x')).score, 0);
  });

  it('multiple-choice: word, ")" or "." forms; the first-n-characters rule only when asked', async () => {
    assert.equal((await score({ type: 'multiple-choice', value: 'B' }, 'ABOUT')).pass, false);
    assert.equal(
      (await score({ type: 'multiple-choice', value: 'B', options: { prefixChars: 5 } }, 'ABOUT')).pass,
      true,
    );
    assert.equal((await score({ type: 'multiple-choice', value: 'c' }, 'Answer: (c)')).pass, true);
  });

  it('unscorable always makes the job an error with its reason', async () => {
    await assert.rejects(
      async () => score({ type: 'unscorable', value: 'no answer key' }, 'x'),
      (err) => {
        assert.ok(err instanceof ScorerInputError);
        assert.equal(err.message, 'no answer key');
        return true;
      },
    );
  });

  it('equals: options.strip (Python whitespace) and options.ignoreCase', async () => {
    assert.equal(
      (
        await score(
          { type: 'equals', value: 'Ama', options: { strip: true, ignoreCase: true } },
          '\u001c ama\n',
        )
      ).pass,
      true,
    );
    assert.equal(
      (await score({ type: 'equals', value: 'Ama', options: { strip: true } }, ' ama ')).pass,
      false,
    );
    assert.equal((await score({ type: 'equals', value: 'Ama' }, ' Ama')).pass, false);
  });
});
