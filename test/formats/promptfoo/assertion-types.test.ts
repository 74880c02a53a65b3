// The one table of promptfoo assertion types (src/formats/promptfoo/assertion-types.ts) against
// promptfoo's own lists (recorded from promptfoo 0.123.1) and against the scorer registry: every
// promptfoo type is either run by a registered scorer of its name or refused with a reason, never
// both and never neither.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  baseTypeEntry,
  PROMPTFOO_ASSERTION_TYPES,
  PROMPTFOO_BASE_TYPES,
  PROMPTFOO_SPECIAL_TYPES,
  refusedType,
} from '../../../src/formats/promptfoo/assertion-types.js';
import { assertionFromString } from '../../../src/formats/promptfoo/expected.js';
import { getScorer, resolveAssertionType } from '../../../src/scorers/index.js';
import { fixture } from '../../support/paths.js';
import { errorsOf } from './helpers.js';

const recorded = JSON.parse(
  readFileSync(fixture('promptfoo', 'assertion-types', 'promptfoo-0.123.1.json'), 'utf8'),
) as { base: string[]; special: string[] };

describe('promptfoo assertion types', () => {
  it("lists promptfoo's base and special types, in promptfoo's order", () => {
    assert.deepEqual(PROMPTFOO_BASE_TYPES, recorded.base);
    assert.deepEqual(PROMPTFOO_SPECIAL_TYPES, recorded.special);
    assert.equal(
      new Set(PROMPTFOO_ASSERTION_TYPES.map((t) => t.type)).size,
      PROMPTFOO_ASSERTION_TYPES.length,
    );
  });

  it('the canonical list is the registry plus the refused types: each type is run or refused, not both', () => {
    const run = PROMPTFOO_ASSERTION_TYPES.filter((t) => getScorer(t.type) !== undefined).map((t) => t.type);
    const refused = PROMPTFOO_ASSERTION_TYPES.filter((t) => t.refused !== undefined).map((t) => t.type);
    assert.deepEqual(
      run.filter((t) => refused.includes(t)),
      [],
      'refused, yet a scorer of that name is registered',
    );
    assert.deepEqual(
      [...run, ...refused].sort(),
      PROMPTFOO_ASSERTION_TYPES.map((t) => t.type).sort(),
      'neither registered nor refused',
    );
    for (const type of run.filter((t) => !PROMPTFOO_SPECIAL_TYPES.includes(t)))
      assert.deepEqual(resolveAssertionType(`not-${type}`), { type, negate: true });
  });

  it('refuses each refused type (and its not- form) at load time with its reason', async () => {
    const refused = PROMPTFOO_ASSERTION_TYPES.filter((t) => t.refused !== undefined);
    assert.ok(refused.length > 0);
    const written = refused.flatMap((t) => (t.special ? [t.type] : [t.type, `not-${t.type}`]));
    const config = `prompts: [p]\nproviders: [echo]\ntests:\n  - assert:\n${written.map((t) => `      - type: '${t}'\n        value: x\n`).join('')}`;
    const messages = (await errorsOf(config)).map((d) => d.message);
    for (const type of written) {
      const reason = refusedType(type);
      assert.ok(reason);
      assert.ok(
        messages.some((m) => m.includes(`assertion type "${type}" ${reason}`)),
        `${type}: ${messages.join('\n')}`,
      );
    }
  });

  it('an __expected cell reads a value as the type says: a list, raw text, or a threshold', () => {
    assert.equal(baseTypeEntry('contains-any')?.cell, 'list');
    assert.deepEqual(assertionFromString('contains-any:a, b'), { type: 'contains-any', value: ['a', 'b'] });
    assert.equal(baseTypeEntry('is-json')?.cell, 'raw');
    assert.deepEqual(assertionFromString('is-json: {"a": 1} '), { type: 'is-json', value: ' {"a": 1} ' });
    assert.equal(baseTypeEntry('similar')?.cell, 'threshold');
    assert.deepEqual(assertionFromString('similar:hello'), {
      type: 'similar',
      value: 'hello',
      threshold: 0.8,
    });
    assert.deepEqual(assertionFromString('not-levenshtein(3):abc'), {
      type: 'not-levenshtein',
      value: 'abc',
      threshold: 3,
    });
    assert.equal(baseTypeEntry('select-best'), undefined, 'a special type is not in the cell grammar');
  });
});
