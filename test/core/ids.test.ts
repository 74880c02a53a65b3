import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256 } from '../../src/core/hash.js';
import { askedContent, assignCaseIds, caseContent } from '../../src/core/ids.js';
import type { Case } from '../../src/core/types.js';

// The form ids were computed from before the hand-written serializer: ids recorded in run logs
// must not change, so the bytes hashed must not either.
const original = (c: Omit<Case, 'id'>): string =>
  JSON.stringify(
    [
      c.description ?? null,
      c.vars,
      c.asserts,
      c.conversations ?? null,
      c.preparation?.options ?? null,
      c.replay?.output ?? null,
    ],
    (key: string, value: unknown) => (key === 'source' ? undefined : value),
  );

const tricky: Omit<Case, 'id'>[] = [
  { vars: {}, asserts: [], metadata: {} },
  {
    description: 'quotes " and \\ and \u2028 and é and \u0001',
    vars: {
      source: 'a var named source is left out, as before',
      n: -0,
      big: 1e21,
      small: 1.5e-7,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      list: ['a', undefined, null, () => 1, { source: { file: 'x' }, keep: true }],
      nested: { deep: [[1, 2], { b: false }], skip: undefined, fn: () => 2 },
      date: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
      obj: Object.assign(Object.create(null), { z: 1, a: 2 }),
      withToJson: { toJSON: () => ({ replaced: true, source: 'dropped' }) },
      '10': 'integer-like keys come first',
      boxed: new String('boxed'),
    },
    asserts: [
      { type: 'contains', value: 'x', source: { file: 'a.csv', line: 3 } },
      {
        type: 'assert-set',
        source: { file: 'a.yaml', line: 1, col: 2 },
        children: [{ type: 'equals', value: ['a', 'b'], weight: 2, source: { file: 'a.yaml', line: 2 } }],
        grader: { id: 'openai:gpt', config: { temperature: 0 }, source: { file: 'a.yaml', line: 4 } },
      },
    ],
    conversations: [[{ role: 'user', content: 'hi' }]] as unknown as Case['conversations'],
    preparation: { options: { prefix: 'p', provider: { id: 'echo', source: { file: 'a.yaml', line: 9 } } } },
    replay: { output: { output: 'fixed', tokens: [1, 2] } },
    metadata: { ignored: 'metadata is not part of the id' },
  },
];

describe('case ids', () => {
  it('hashes exactly the bytes the original JSON.stringify form produced', () => {
    for (const c of tricky) assert.equal(caseContent(c), original(c));
  });

  it('keeps a known id and numbers identical cases in order', () => {
    const make = (): Omit<Case, 'id'> => ({
      vars: { topic: 'subject 0 of 10000' },
      asserts: [{ type: 'contains', value: 'subject 0 of 10000', source: { file: 't.csv', line: 2 } }],
      metadata: {},
      description: 'Row #1',
    });
    const [a, b, c] = assignCaseIds([make(), make(), { ...make(), description: 'Row #2' }]);
    assert.equal(b.id, `${a.id}-2`);
    assert.notEqual(c.id.slice(0, 12), a.id);
    // Computed by the JSON.stringify-with-replacer version this replaced.
    assert.equal(a.id, '7a8107dedbae');
  });

  it('gives every case the hash of the original forms as id and ref, shared frozen assertions included', () => {
    const asked = (c: Omit<Case, 'id'>): string =>
      JSON.stringify(
        [c.description ?? null, c.vars, c.conversations ?? null],
        (key: string, value: unknown) => (key === 'source' ? undefined : value),
      );
    // A CSV cell's assertion is parsed once and shared, frozen, by every row that repeats it.
    const shared = Object.freeze({ type: 'contains-any', value: Object.freeze(['a', 'b']), weight: 2 });
    const row = (n: number): Omit<Case, 'id'> => ({
      description: `Row #${n}`,
      vars: { topic: `subject ${n}`, n },
      asserts: [shared, { type: 'contains', value: `subject ${n}`, source: { file: 't.csv', line: n + 1 } }],
      metadata: {},
    });
    const cases = [
      ...tricky.map((c) =>
        structuredClone({ ...c, vars: { ...c.vars, list: [], nested: {}, withToJson: 1 } }),
      ),
      row(1),
      row(2),
      row(1),
    ];
    const expected = cases.map((c) => ({
      id: sha256(original(c)).slice(0, 12),
      ref: `h:${sha256(asked(c)).slice(0, 12)}`,
    }));
    for (const c of cases) assert.equal(askedContent(c), asked(c));
    const got = assignCaseIds(cases).map((c) => ({ id: c.id, ref: c.ref }));
    expected[expected.length - 1] = { id: `${expected[2].id}-2`, ref: `${expected[2].ref}#2` };
    assert.deepEqual(got, expected);
  });
});
