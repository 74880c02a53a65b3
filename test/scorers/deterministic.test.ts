import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getScorer, resolveAssertionType, scorerTypes } from '../../src/scorers/index.js';

const TYPES = [
  'equals',
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'icontains-any',
  'icontains-all',
  'starts-with',
  'regex',
  'is-json',
  'contains-json',
];

describe('deterministic scorer registration', () => {
  it('registers every deterministic type with a description', () => {
    const registered = scorerTypes();
    for (const type of TYPES) {
      assert.ok(registered.includes(type), `${type} is registered`);
      const scorer = getScorer(type);
      assert.equal(scorer?.type, type);
      assert.ok((scorer?.description.length ?? 0) > 10);
      assert.notEqual(scorer?.graded, true);
    }
  });

  it('resolves the not- forms to the same scorer, negated', () => {
    for (const type of TYPES) assert.deepEqual(resolveAssertionType(`not-${type}`), { type, negate: true });
    assert.deepEqual(resolveAssertionType('contains'), { type: 'contains', negate: false });
  });
});
