import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors.js';
import { canonicalJsonAsWritten } from '../../src/core/hash.js';
import { seededRandom } from '../../src/core/random.js';
import type { Case } from '../../src/core/types.js';
import {
  checkFilters,
  filterCases,
  filterPrompts,
  filterProviders,
  parseMetadataCondition,
  parseTestRange,
} from '../../src/engine/filter.js';

function kase(id: string, extra: Partial<Case> = {}): Case {
  return { id, vars: {}, asserts: [], metadata: {}, ...extra };
}

const ids = (cases: Case[]): string[] => cases.map((c) => c.id);

describe('filterCases', () => {
  const cases = [
    kase('a', { description: 'alpha', metadata: { category: 'math', level: 2 } }),
    kase('b', { description: 'beta', metadata: { category: 'poetry', tags: ['rhyme', 'short'] } }),
    kase('c', { metadata: { category: 'mathematics' } }),
    kase('d', { description: 'delta' }),
  ];

  it('metadata: the value contains the text; list metadata matches on any element', () => {
    assert.deepEqual(ids(filterCases(cases, { metadata: ['category=mat'] })), ['a', 'c']);
    assert.deepEqual(ids(filterCases(cases, { metadata: ['tags=hor'] })), ['b']);
    assert.deepEqual(ids(filterCases(cases, { metadata: ['level=2'] })), ['a']);
  });

  it('metadata: conditions AND together; a,b inside one condition means either', () => {
    assert.deepEqual(ids(filterCases(cases, { metadata: ['category=math', 'level=2'] })), ['a']);
    assert.deepEqual(ids(filterCases(cases, { metadata: ['category=poetry,mathem'] })), ['b', 'c']);
  });

  it('metadata: an escaped comma is part of the value; the value runs past a second =', () => {
    const odd = [kase('x', { metadata: { k: 'a,b' } }), kase('y', { metadata: { k: 'p=q' } })];
    assert.deepEqual(ids(filterCases(odd, { metadata: ['k=a\\,b'] })), ['x']);
    assert.deepEqual(ids(filterCases(odd, { metadata: ['k=p=q'] })), ['y']);
  });

  it('pattern: a regular expression on the description; cases without one are dropped', () => {
    assert.deepEqual(ids(filterCases(cases, { pattern: 'ta$' })), ['b', 'd']);
    assert.deepEqual(ids(filterCases(cases, { pattern: '.*' })), ['a', 'b', 'd']);
  });

  it('first N counts entries as written, not expanded cases', () => {
    const expanded = [
      kase('x1', { provenance: { expandedFrom: 0 } }),
      kase('x2', { provenance: { expandedFrom: 0 } }),
      kase('y1', { provenance: { expandedFrom: 1 } }),
      kase('z1', { provenance: { expandedFrom: 2 } }),
    ];
    assert.deepEqual(ids(filterCases(expanded, { firstN: 1 })), ['x1', 'x2']);
    assert.deepEqual(ids(filterCases(expanded, { firstN: 2 })), ['x1', 'x2', 'y1']);
    assert.deepEqual(ids(filterCases(expanded, { firstN: 0 })), []);
    // Without provenance every case is an entry.
    assert.deepEqual(ids(filterCases(cases, { firstN: 2 })), ['a', 'b']);
  });

  it('first N counts what the earlier filters left', () => {
    assert.deepEqual(ids(filterCases(cases, { metadata: ['category=poetry,math'], firstN: 2 })), ['a', 'b']);
    assert.deepEqual(ids(filterCases(cases, { pattern: 'ta$', firstN: 1 })), ['b']);
  });

  it('range: entries START to END-1 as written, after the pattern and before first N', () => {
    const expanded = [
      kase('x1', { provenance: { expandedFrom: 0 } }),
      kase('x2', { provenance: { expandedFrom: 0 } }),
      kase('y1', { provenance: { expandedFrom: 1 } }),
      kase('z1', { provenance: { expandedFrom: 2 } }),
    ];
    assert.deepEqual(ids(filterCases(expanded, { range: { start: 1, end: 3 } })), ['y1', 'z1']);
    assert.deepEqual(ids(filterCases(expanded, { range: { start: 0, end: 1 } })), ['x1', 'x2']);
    assert.deepEqual(ids(filterCases(expanded, { range: { start: 2 } })), ['z1']);
    assert.deepEqual(ids(filterCases(expanded, { range: { start: 1, end: 1 } })), []);
    assert.deepEqual(ids(filterCases(cases, { pattern: 'a$', range: { start: 1 } })), ['b', 'd']);
    assert.deepEqual(ids(filterCases(cases, { range: { start: 1 }, firstN: 2 })), ['b', 'c']);
  });

  it('sample: N entries, the same for the same seed, kept in suite order', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      kase(`k${i}`, { provenance: { expandedFrom: Math.floor(i / 2) } }),
    );
    const one = ids(filterCases(many, { sample: 5, seed: 7 }));
    const again = ids(filterCases(many, { sample: 5, seed: 7 }));
    assert.deepEqual(one, again);
    assert.equal(one.length, 10, 'five entries of two cases each');
    const order = one.map((id) => Number(id.slice(1)));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    const others = new Set<string>();
    for (let seed = 0; seed < 20; seed++) others.add(ids(filterCases(many, { sample: 5, seed })).join());
    assert.ok(others.size > 1, 'different seeds draw differently');
    assert.equal(filterCases(many, { sample: 100, seed: 1 }).length, 40);
  });

  it('failing: cases whose id or vars are in the earlier run’s failures', () => {
    const withVars = [
      kase('p', { vars: { q: '1', r: 'x' } }),
      kase('q', { vars: { q: '2' } }),
      kase('r', { vars: { q: '3' } }),
    ];
    const failing = { caseIds: new Set(['q']), vars: new Set([canonicalJsonAsWritten({ r: 'x', q: '1' })]) };
    assert.deepEqual(ids(filterCases(withVars, {}, failing)), ['p', 'q']);
  });
});

describe('filterProviders and filterPrompts', () => {
  it('match id or label with an unanchored regular expression', () => {
    const providers = [{ id: 'openai:gpt-4o' }, { id: 'echo', label: 'fast' }, { id: 'anthropic:claude' }];
    assert.deepEqual(
      filterProviders(providers, 'gpt|fast').map((p) => p.id),
      ['openai:gpt-4o', 'echo'],
    );
    assert.equal(filterProviders(providers, undefined), providers);
    const prompts = [
      { id: 'p1', label: 'short prompt', raw: 'a' },
      { id: 'p2', label: 'long prompt', raw: 'b' },
    ];
    assert.deepEqual(
      filterPrompts(prompts, '^long').map((p) => p.id),
      ['p2'],
    );
    assert.deepEqual(
      filterPrompts(prompts, 'p1').map((p) => p.id),
      ['p1'],
    );
  });
});

describe('checkFilters and parseMetadataCondition', () => {
  it('refuses bad regular expressions and metadata conditions, naming the flag', () => {
    assert.throws(
      () => checkFilters({ pattern: '(', providers: '[', metadata: ['novalue', 'k='] }),
      (err: unknown) => {
        assert.ok(err instanceof InputError);
        const messages = err.diagnostics.map((d) => d.message);
        assert.equal(messages.length, 4);
        assert.match(messages[0], /--filter-metadata novalue: expected key=value/);
        assert.match(messages[1], /--filter-metadata k=: expected key=value/);
        assert.match(messages[2], /--filter-pattern \(: not a valid regular expression/);
        assert.match(messages[3], /--filter-providers \[: not a valid regular expression/);
        return true;
      },
    );
    assert.doesNotThrow(() => checkFilters({ pattern: 'a|b', metadata: ['k=v'] }));
    assert.deepEqual(parseMetadataCondition('k=a,b'), { key: 'k', values: ['a', 'b'] });
    assert.match(String(parseMetadataCondition('k=a,,b')), /empty/);
  });

  it('parseTestRange reads START:END as promptfoo does, and says what is wrong otherwise', () => {
    assert.deepEqual(parseTestRange('2:5'), { start: 2, end: 5 });
    assert.deepEqual(parseTestRange(' 3 : '), { start: 3 });
    assert.deepEqual(parseTestRange(':4'), { start: 0, end: 4 });
    assert.deepEqual(parseTestRange('4:4'), { start: 4, end: 4 });
    for (const bad of ['5', ':', '1:2:3', '-1:2', 'a:b', '1.5:3'])
      assert.match(String(parseTestRange(bad)), /expected START:END/, bad);
    assert.match(String(parseTestRange('5:2')), /START must not be greater than END/);
    assert.match(String(parseTestRange('99999999999999999999:')), /whole numbers/);
  });

  it('seededRandom is deterministic and in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    for (let i = 0; i < 100; i++) {
      const x = a();
      assert.equal(x, b());
      assert.ok(x >= 0 && x < 1);
    }
  });
});
