import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactObject } from '../../src/core/redact.js';
import type { AssertionSpec, Case } from '../../src/core/types.js';
import { recordedSpec, scoreCase } from '../../src/engine/score.js';
import { registerScorer } from '../../src/scorers/registry.js';
import { ScorerInputError } from '../../src/scorers/types.js';

// A scorer whose verdict is dictated by its value, so aggregation rules can be tested in isolation.
registerScorer({
  type: 'test:fixed',
  description: 'verdict given by the value {pass, score}',
  score: ({ value }) => {
    const v = value as { pass: boolean; score: number };
    return { pass: v.pass, score: v.score, reason: v.pass ? 'ok' : `failed with ${v.score}` };
  },
});
registerScorer({
  type: 'test:invalid',
  description: 'always an unusable assertion',
  score: () => {
    throw new ScorerInputError('value must be a non-empty string');
  },
});
registerScorer({
  type: 'test:echo-value',
  description: 'passes when the rendered value equals the output',
  score: ({ value, output }) => ({
    pass: value === output,
    score: value === output ? 1 : 0,
    reason: `value=${String(value)}`,
  }),
});

registerScorer({
  type: 'test:named',
  description: 'reports its own metrics, as scripts can',
  score: () => ({ pass: true, score: 1, reason: 'ok', namedScores: { f1: 0.5 } }),
});

function fixed(pass: boolean, score: number, extra: Partial<AssertionSpec> = {}): AssertionSpec {
  return { type: 'test:fixed', value: { pass, score }, ...extra };
}

function makeCase(asserts: AssertionSpec[], extra: Partial<Case> = {}): Case {
  return { id: 'c1', vars: {}, asserts, metadata: {}, ...extra };
}

const ctx = { output: 'out', outputValue: 'out', vars: { name: 'World' }, prompt: 'p', response: {} };

describe('scoreCase (promptfoo aggregation rules)', () => {
  it('passes with score 1 when there are no assertions', async () => {
    const o = await scoreCase(makeCase([]), ctx);
    assert.equal(o.status, 'pass');
    assert.equal(o.score, 1);
    assert.equal(o.reason, 'No assertions');
  });

  it('fails with "No output" when the output is null (a failure, not an error)', async () => {
    const o = await scoreCase(makeCase([fixed(true, 1)]), { ...ctx, output: null });
    assert.equal(o.status, 'fail');
    assert.equal(o.score, 0);
    assert.equal(o.error, 'No output');
  });

  it('weighted mean score; any failing weighted assertion fails the case, with its reason', async () => {
    const o = await scoreCase(makeCase([fixed(true, 1, { weight: 3 }), fixed(false, 0, { weight: 1 })]), ctx);
    assert.equal(o.status, 'fail');
    assert.equal(o.score, 0.75);
    assert.equal(o.reason, 'failed with 0');
  });

  it('§11 #16: threshold 0 with one failing assertion passes', async () => {
    const o = await scoreCase(makeCase([fixed(false, 0)], { scoring: { threshold: 0 } }), ctx);
    assert.equal(o.status, 'pass');
    assert.match(o.reason, /Aggregate score 0\.00 ≥ 0 threshold/);
  });

  it('§11 #17: a failing weight-0 assertion and a passing one → pass, score 1', async () => {
    const o = await scoreCase(makeCase([fixed(false, 0, { weight: 0 }), fixed(true, 1)]), ctx);
    assert.equal(o.status, 'pass');
    assert.equal(o.score, 1);
    assert.equal(o.verdicts[0].pass, true, 'weight-0 verdicts are recorded as passing');
  });

  it('§11 #18: only weight-0 assertions → pass with score 0; with threshold 0.5 → fail', async () => {
    const a = await scoreCase(makeCase([fixed(false, 0, { weight: 0 })]), ctx);
    assert.equal(a.status, 'pass');
    assert.equal(a.score, 0);
    const b = await scoreCase(
      makeCase([fixed(true, 1, { weight: 0 })], { scoring: { threshold: 0.5 } }),
      ctx,
    );
    assert.equal(b.status, 'fail');
  });

  it('§11 #19: weights 2 (fail) and 1 (pass) with threshold 0.3 → score 1/3, pass', async () => {
    const o = await scoreCase(
      makeCase([fixed(false, 0, { weight: 2 }), fixed(true, 1, { weight: 1 })], {
        scoring: { threshold: 0.3 },
      }),
      ctx,
    );
    assert.equal(o.status, 'pass');
    assert.ok(Math.abs(o.score - 1 / 3) < 1e-12);
  });

  it('an unusable assertion makes the job an error, not a failure', async () => {
    const o = await scoreCase(makeCase([fixed(true, 1), { type: 'test:invalid' }]), ctx);
    assert.equal(o.status, 'error');
    assert.match(o.error ?? '', /test:invalid: value must be a non-empty string/);
  });

  it('an unknown scorer type is an error naming it', async () => {
    const o = await scoreCase(makeCase([{ type: 'no-such-type' }]), ctx);
    assert.equal(o.status, 'error');
    assert.match(o.reason, /unknown assertion type "no-such-type"/);
  });

  it('named metrics: weighted mean per metric; weight-0 assertions count with weight 1', async () => {
    const o = await scoreCase(
      makeCase([
        fixed(true, 1, { metric: 'acc', weight: 3 }),
        fixed(false, 0, { metric: 'acc', weight: 1 }),
        fixed(false, 0.5, { metric: 'f1', weight: 0 }),
      ]),
      ctx,
    );
    assert.deepEqual(o.namedScores, { acc: 0.75, f1: 0.5 });
  });

  it("merges a scorer's own named scores into the case's, weighted like metrics", async () => {
    const o = await scoreCase(
      makeCase([{ type: 'test:named', weight: 3 }, fixed(true, 1, { metric: 'f1', weight: 1 })]),
      ctx,
    );
    assert.deepEqual(o.namedScores, { f1: (0.5 * 3 + 1 * 1) / 4 });
    assert.deepEqual(o.verdicts[0].namedScores, { f1: 0.5 });
  });

  it('renders string values and metric names as templates against the vars', async () => {
    const o = await scoreCase(
      makeCase([{ type: 'test:echo-value', value: 'Hello {{ name }}', metric: 'greet-{{ name }}' }]),
      { ...ctx, output: 'Hello World' },
    );
    assert.equal(o.status, 'pass');
    assert.equal(o.verdicts[0].metric, 'greet-World');
    assert.equal(o.verdicts[0].renderedValue, 'Hello World');
  });

  it('records not- on negated verdict types', async () => {
    const o = await scoreCase(makeCase([{ ...fixed(true, 1), negate: true }]), ctx);
    assert.equal(o.verdicts[0].type, 'not-test:fixed');
  });
});

describe('recordedSpec (the assertion a verdict records)', () => {
  const cases: AssertionSpec[] = [
    { type: 'contains', value: 'x' },
    Object.freeze({ type: 'icontains', value: 'y', negate: true }),
    { type: 'contains', value: 'x', source: { file: 'a.yaml', line: 3, col: 5 } },
    { type: 'javascript', value: 'output', options: { apiKey: 'sk-secret-value' } } as AssertionSpec,
    { type: 'javascript', value: { nested: [{ token: 'abcdefgh' }] } },
    { type: 'javascript', value: { token: '' } },
    { type: 'equals', value: new Date(0) },
    { type: 'equals', value: [1, 'two', { three: 3 }] },
    { type: 'assert-set', children: [{ type: 'contains', value: 'z', source: { file: 'b.yaml', line: 1 } }] },
  ];

  it('writes what redactObject of the spec without its source writes, and is the spec itself when that is no change', () => {
    for (const spec of cases) {
      const { source: _source, children, ...rest } = spec;
      const expected = redactObject(rest) as AssertionSpec;
      if (children)
        expected.children = children.map((c) => {
          const { source: _s, ...r } = c;
          return redactObject(r);
        });
      const recorded = recordedSpec(spec);
      assert.equal(JSON.stringify(recorded), JSON.stringify(expected), JSON.stringify(spec));
      const plain =
        JSON.stringify(spec) === JSON.stringify(expected) && !('source' in spec) && !('children' in spec);
      // (A Date is copied: redactObject makes a plain object of it.)
      if (spec.value instanceof Date) assert.notEqual(recorded, spec);
      else assert.equal(recorded === spec, plain, JSON.stringify(spec));
    }
  });
});
