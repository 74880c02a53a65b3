import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Case, Suite } from '../../src/core/types.js';
import { countJobs, planJobs } from '../../src/engine/plan.js';

function suite(cases: Partial<Case>[]): Suite {
  return {
    id: 's',
    name: 's',
    format: 'test',
    source: { path: 'x', contentHash: 'h', files: [] },
    basePath: '.',
    prompts: [
      { id: 'p1', label: 'first', raw: 'a {{x}}' },
      { id: 'p2', label: 'second', raw: 'b {{x}}' },
    ],
    providers: [{ id: 'echo' }, { id: 'openai:chat:m', label: 'mini' }],
    cases: cases.map((c, i) => ({ id: `c${i}`, vars: {}, asserts: [], metadata: {}, ...c })),
    scoring: {},
    warnings: [],
  };
}

describe('planJobs', () => {
  it('expands cases × trials × providers × prompts in that order, keyed by label ?? id', () => {
    const s = suite([{}, {}]);
    const jobs = [...planJobs(s, s.providers, { repeat: 2 })];
    assert.equal(jobs.length, 2 * 2 * 2 * 2);
    assert.deepEqual(
      jobs.slice(0, 5).map((j) => [j.caseId, j.trial, j.providerId, j.promptId]),
      [
        ['c0', 0, 'echo', 'p1'],
        ['c0', 0, 'echo', 'p2'],
        ['c0', 0, 'mini', 'p1'],
        ['c0', 0, 'mini', 'p2'],
        ['c0', 1, 'echo', 'p1'],
      ],
    );
    assert.equal(new Set(jobs.map((j) => j.key)).size, jobs.length, 'keys are unique');
    assert.equal(countJobs(s, s.providers, { repeat: 2 }), jobs.length);
  });

  it('keys are stable across plans', () => {
    const s = suite([{}]);
    const a = [...planJobs(s, s.providers, { repeat: 1 })].map((j) => j.key);
    const b = [...planJobs(s, s.providers, { repeat: 1 })].map((j) => j.key);
    assert.deepEqual(a, b);
  });

  it('honours per-case provider and prompt restrictions (label, id, prefix, wildcard, empty list)', () => {
    const s = suite([
      { only: { providers: ['mini'] } },
      { only: { providers: ['openai'] } },
      { only: { prompts: ['sec*'] } },
      { only: { providers: [] } },
      { only: { prompts: ['p1'] } },
    ]);
    const jobs = [...planJobs(s, s.providers, { repeat: 1 })];
    const by = (c: string) => jobs.filter((j) => j.caseId === c).map((j) => `${j.providerId}/${j.promptId}`);
    assert.deepEqual(by('c0'), ['mini/p1', 'mini/p2']);
    assert.deepEqual(by('c1'), ['mini/p1', 'mini/p2']);
    assert.deepEqual(by('c2'), ['echo/p2', 'mini/p2']);
    assert.deepEqual(by('c3'), []);
    assert.deepEqual(by('c4'), ['echo/p1', 'mini/p1']);
  });

  it('honours a provider restricting its prompts', () => {
    const s = suite([{}]);
    s.providers[0].prompts = ['first'];
    const jobs = [...planJobs(s, s.providers, { repeat: 1 })];
    assert.deepEqual(
      jobs.map((j) => `${j.providerId}/${j.promptId}`),
      ['echo/p1', 'mini/p1', 'mini/p2'],
    );
  });
});
