import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec, Case, JobResult, Message, Suite } from '../../src/core/types.js';
import { applyComparisons, GroupBuffer } from '../../src/engine/cross-row.js';
import { planJobs } from '../../src/engine/plan.js';
import { scoreCase } from '../../src/engine/score.js';
import { inShard } from '../../src/engine/shard.js';
import '../../src/scorers/index.js';
import { getScorer, registerScorer } from '../../src/scorers/registry.js';
import type { Grader } from '../../src/scorers/types.js';

// A verdict dictated by the value, so the group rules can be checked in isolation.
if (!getScorer('test:given')) {
  registerScorer({
    type: 'test:given',
    description: 'verdict given by the value {pass, score}',
    score: ({ value }) => {
      const v = value as { pass: boolean; score: number };
      return { pass: v.pass, score: v.score, reason: v.pass ? 'ok' : `failed with ${v.score}` };
    },
  });
}

function given(pass: boolean, score: number, extra: Partial<AssertionSpec> = {}): AssertionSpec {
  return { type: 'test:given', value: { pass, score }, ...extra };
}

function set(children: AssertionSpec[], extra: Partial<AssertionSpec> = {}): AssertionSpec {
  return { type: 'assert-set', children, ...extra };
}

function makeCase(asserts: AssertionSpec[], extra: Partial<Case> = {}): Case {
  return { id: 'c1', vars: { topic: 'cats' }, asserts, metadata: {}, ...extra };
}

const ctx = { output: 'out', outputValue: 'out', vars: {}, prompt: 'p', response: {} };

describe('assert-set (§5.6)', () => {
  it('passes iff every child passes, with the weighted mean of the children as its score', async () => {
    const o = await scoreCase(makeCase([set([given(true, 1, { weight: 3 }), given(false, 0)])]), ctx);
    assert.equal(o.status, 'fail');
    assert.equal(o.score, 0.75);
    assert.equal(o.verdicts[0].type, 'assert-set');
    assert.equal(o.verdicts[0].children?.length, 2);
    assert.equal(o.reason, 'failed with 0');
  });

  it('with its own threshold passes on the weighted mean, overriding failing children', async () => {
    const o = await scoreCase(makeCase([set([given(true, 1), given(false, 0.5)], { threshold: 0.7 })]), ctx);
    assert.equal(o.status, 'pass');
    assert.equal(o.score, 0.75);
    assert.equal(o.verdicts[0].reason, 'Aggregate score 0.75 ≥ 0.7 threshold');
  });

  it('counts as one assertion of the test, with the set weight', async () => {
    const o = await scoreCase(
      makeCase([set([given(true, 1), given(true, 0)], { weight: 2, threshold: 0.5 }), given(true, 1)]),
      ctx,
    );
    // (0.5 × 2 + 1 × 1) / 3
    assert.equal(o.score, 2 / 3);
    assert.equal(o.status, 'pass');
  });

  it("propagates children's metrics upward, weighted by the set weight and their own weights", async () => {
    const o = await scoreCase(
      makeCase([
        set([given(true, 1, { metric: 'acc', weight: 2 }), given(true, 0, { metric: 'acc' })], {
          metric: 'set',
          weight: 2,
        }),
        given(true, 0, { metric: 'acc' }),
      ]),
      ctx,
    );
    // acc: the set reports 2/3 with weight 3, scaled by the set weight 2 → 4 of 6; plus 0 with weight 1.
    assert.deepEqual(o.namedScores, { acc: 4 / 7, set: 2 / 3 });
  });

  it('applies each child’s own transform', async () => {
    const o = await scoreCase(
      makeCase([
        set([
          { type: 'equals', value: 'OUT', transform: 'output.toUpperCase()' },
          { type: 'equals', value: 'out' },
        ]),
      ]),
      ctx,
    );
    assert.equal(o.status, 'pass');
  });

  it('an unusable child makes the job an error naming that child', async () => {
    const o = await scoreCase(makeCase([set([given(true, 1), { type: 'contains', value: '' }])]), ctx);
    assert.equal(o.status, 'error');
    assert.match(o.reason, /^contains: /);
  });

  it('an assertion transform that fails makes the job an error with its message', async () => {
    const o = await scoreCase(
      makeCase([{ type: 'equals', value: 'x', transform: 'JSON.parse(output)' }]),
      ctx,
    );
    assert.equal(o.status, 'error');
    assert.match(o.reason, /^Transform failed \(JSON\.parse\(output\)\): SyntaxError/);
  });
});

function row(promptId: string, output: string | null, extra: Partial<JobResult> = {}): JobResult {
  return {
    key: promptId,
    caseId: 'c1',
    caseIndex: 0,
    promptId,
    promptLabel: promptId,
    providerId: 'echo',
    trial: 0,
    case: { vars: {} },
    prompt: { text: `prompt ${promptId}`, messages: [] },
    status: 'pass',
    output,
    verdicts: [],
    score: 1,
    reason: 'All assertions passed',
    answer: { latencyMs: 0 },
    startedAt: '',
    ...extra,
  };
}

function fakeGrader(reply: string, seen: Message[][] = []): Grader {
  return {
    id: 'fake',
    complete: async (messages) => {
      seen.push(messages);
      return { output: reply };
    },
  };
}

describe('cross-row assertions (§5.5)', () => {
  it('select-best: the chosen row passes and keeps its score, the others fail with score 0', async () => {
    const seen: Message[][] = [];
    const testCase = makeCase([{ type: 'select-best', value: 'funniest joke about {{topic}}' }]);
    const rows = [row('a', 'joke A', { score: 0.8 }), row('b', 'joke B', { score: 0.9 }), row('c', 'joke C')];
    await applyComparisons(testCase, rows, { grader: async () => fakeGrader('The best is 1.', seen) });
    assert.deepEqual(
      rows.map((r) => [r.status, r.score, r.reason]),
      [
        ['fail', 0, 'Output not selected: funniest joke about cats'],
        ['pass', 0.9, 'All assertions passed'],
        ['fail', 0, 'Output not selected: funniest joke about cats'],
      ],
    );
    assert.equal(rows[1].verdicts.at(-1)?.reason, 'Output selected as the best: funniest joke about cats');
    const text = String(seen[0][0].content);
    assert.match(text, /funniest joke about cats/);
    assert.match(text, /<Text index="0">\njoke A\n<\/Text>/);
    assert.match(text, /<Text index="2">\njoke C\n<\/Text>/);
  });

  it('select-best: an index out of range fails every row', async () => {
    const rows = [row('a', 'A'), row('b', 'B')];
    await applyComparisons(makeCase([{ type: 'select-best', value: 'x' }]), rows, {
      grader: async () => fakeGrader('7'),
    });
    assert.deepEqual(
      rows.map((r) => [r.status, r.reason]),
      [
        ['fail', 'Invalid select-best verdict: 7'],
        ['fail', 'Invalid select-best verdict: 7'],
      ],
    );
  });

  it('select-best: a reply naming no index is an error quoting the reply, once labelled', async () => {
    const rows = [row('a', 'A'), row('b', 'B')];
    await applyComparisons(makeCase([{ type: 'select-best', value: 'x' }]), rows, {
      grader: async () => fakeGrader('Both are lovely.'),
    });
    assert.deepEqual(
      rows.map((r) => [r.status, r.reason]),
      Array(2).fill([
        'error',
        'select-best: grader fake named no output index; it replied: "Both are lovely."',
      ]),
    );
  });

  it('a comparison that cannot be made (one output only, or a grader failure) makes every row an error', async () => {
    const lone = [row('a', 'A')];
    await applyComparisons(makeCase([{ type: 'select-best', value: 'x' }]), lone, {
      grader: async () => fakeGrader('0'),
    });
    assert.equal(lone[0].status, 'error');
    assert.match(lone[0].reason, /needs at least two; this test has 1/);
    const rows = [row('a', 'A'), row('b', 'B')];
    const failing: Grader = {
      id: 'g',
      complete: async () => {
        throw new Error('grader down');
      },
    };
    await applyComparisons(makeCase([{ type: 'select-best', value: 'x' }]), rows, {
      grader: async () => failing,
    });
    assert.deepEqual(
      rows.map((r) => r.status),
      ['error', 'error'],
    );
    assert.equal(rows[0].reason, 'select-best threw: grader down');
  });

  it('max-score: the row whose other assertions scored highest wins (ties to the first), others fail with 0', async () => {
    const v = (type: string, score: number, extra = {}) => ({
      type,
      pass: true,
      score,
      reason: '',
      weight: 1,
      ...extra,
    });
    const rows = [
      row('a', 'A', { verdicts: [v('contains', 1), v('javascript', 0.5)], score: 0.75 }),
      row('b', 'B', {
        verdicts: [v('contains', 1), v('assert-set', 1, { children: [v('javascript', 1)] })],
        score: 1,
      }),
      row('c', 'C', { verdicts: [v('contains', 1), v('javascript', 1)], score: 1 }),
    ];
    await applyComparisons(makeCase([{ type: 'max-score', value: { weights: { contains: 0 } } }]), rows, {});
    assert.deepEqual(
      rows.map((r) => [r.status, r.score]),
      [
        ['fail', 0],
        ['pass', 1],
        ['fail', 0],
      ],
    );
    assert.equal(rows[1].verdicts.at(-1)?.reason, 'Selected as highest scoring output (score: 1.000)');
    assert.deepEqual(rows[0].verdicts.at(-1)?.details, { maxScore: 0.5, assertionCount: 2, totalWeight: 1 });
  });

  it('max-score: a winner below the threshold does not pass; a row without output is not eligible', async () => {
    const v = (score: number) => ({ type: 'contains', pass: true, score, reason: '', weight: 1 });
    const rows = [
      row('a', 'A', { verdicts: [v(0.4)] }),
      row('b', null, { status: 'error', score: 0, reason: 'HTTP 500', error: 'HTTP 500' }),
    ];
    await applyComparisons(
      makeCase([{ type: 'max-score', value: { threshold: 0.5, method: 'sum' } }]),
      rows,
      {},
    );
    assert.deepEqual(
      rows.map((r) => [r.status, r.reason]),
      [
        ['fail', 'Not selected - score 0.400 below threshold 0.5'],
        ['error', 'HTTP 500'],
      ],
    );
  });
});

describe('job groups: buffering, plan and shards', () => {
  const suite = (asserts: AssertionSpec[]): Suite => ({
    id: 's',
    name: 's',
    format: 'test',
    source: { path: '/s', contentHash: 'h', files: [] },
    basePath: '/',
    prompts: [
      { id: 'p1', label: 'p1', raw: 'a {{x}}' },
      { id: 'p2', label: 'p2', raw: 'b {{x}}' },
    ],
    providers: [{ id: 'echo' }],
    cases: [0, 1, 2, 3, 4, 5].map((i) => ({ id: `c${i}`, vars: { x: i }, asserts, metadata: {} })),
    scoring: {},
    warnings: [],
  });

  it('gives the jobs of one case and trial a shared group key only when the case compares rows', () => {
    const plain = [...planJobs(suite([{ type: 'equals', value: 'x' }]), [{ id: 'echo' }], { repeat: 1 })];
    assert.ok(plain.every((j) => j.group === undefined));
    const jobs = [...planJobs(suite([{ type: 'select-best', value: 'x' }]), [{ id: 'echo' }], { repeat: 2 })];
    assert.equal(jobs[0].group, jobs[1].group);
    assert.notEqual(jobs[1].group, jobs[2].group);
    assert.equal(new Set(jobs.map((j) => j.group)).size, 12);
  });

  it('a shard holds whole groups', () => {
    const jobs = [...planJobs(suite([{ type: 'max-score' }]), [{ id: 'echo' }], { repeat: 3 })];
    for (let count = 2; count <= 4; count++) {
      for (const job of jobs) {
        const mates = jobs.filter((j) => j.group === job.group);
        for (let index = 0; index < count; index++) {
          const shard = { index, count };
          assert.ok(mates.every((m) => inShard(m, shard) === inShard(job, shard)));
        }
      }
    }
  });

  it('GroupBuffer releases a group once it is closed and all its rows are back, in plan order', () => {
    const buffer = new GroupBuffer();
    const c = makeCase([]);
    const p0 = buffer.start('g1', c);
    const p1 = buffer.start('g1', c);
    assert.equal(buffer.finish('g1', p1, row('b', 'B')), undefined);
    assert.equal(buffer.finish('g1', p0, row('a', 'A')), undefined, 'still open: more rows may come');
    const ready = buffer.close();
    assert.deepEqual(
      ready?.rows.map((r) => r.promptId),
      ['a', 'b'],
    );
    const q0 = buffer.start('g2', c);
    assert.equal(buffer.close(), undefined);
    assert.equal(buffer.finish('g2', q0, row('a', 'A'))?.rows.length, 1);
  });

  it('GroupBuffer drops a group the run stopped in the middle of', () => {
    const buffer = new GroupBuffer();
    const p0 = buffer.start('g', makeCase([]));
    buffer.abandon();
    assert.equal(buffer.finish('g', p0, row('a', 'A')), undefined);
    assert.equal(buffer.close(), undefined);
  });
});
