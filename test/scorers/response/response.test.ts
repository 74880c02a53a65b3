import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { near, problem, run } from '../text/helpers.js';

describe('latency', () => {
  it('passes at or under the threshold in ms', async () => {
    const spec = { threshold: 100 };
    assert.deepEqual(await run('latency', undefined, 'x', { spec, response: { latencyMs: 100 } }), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.deepEqual(await run('latency', undefined, 'x', { spec, response: { latencyMs: 150.5 } }), {
      pass: false,
      score: 0,
      reason: 'Latency 150.5ms is greater than threshold 100ms',
    });
  });

  it('threshold 0 is a threshold', async () => {
    const r = await run('latency', undefined, 'x', { spec: { threshold: 0 }, response: { latencyMs: 0 } });
    assert.equal(r.pass, true);
  });

  it('not-latency passes when slower than the threshold', async () => {
    const spec = { threshold: 100, negate: true };
    assert.equal((await run('latency', undefined, 'x', { spec, response: { latencyMs: 101 } })).pass, true);
    assert.equal(
      (await run('latency', undefined, 'x', { spec, response: { latencyMs: 100 } })).reason,
      'Latency 100ms is less than or equal to threshold 100ms',
    );
  });

  it('§11 #2: CSV latency:500 means threshold 0.75 ms, and the reason says the 500 is ignored', async () => {
    const r = await run('latency', '500', 'x', { spec: { threshold: 0.75 }, response: { latencyMs: 120 } });
    assert.equal(r.pass, false);
    assert.equal(
      r.reason,
      'Latency 120ms is greater than threshold 0.75ms (the value "500" is ignored: the limit is the threshold; in CSV write latency(500))',
    );
  });

  it('without a threshold, records the latency in a metric (metric + weight 0)', async () => {
    const spec = { metric: 'latency_ms', weight: 0 };
    assert.deepEqual(await run('latency', undefined, 'x', { spec, response: { latencyMs: 812.3456 } }), {
      pass: true,
      score: 812.346,
      reason: 'Latency: 812.346ms',
    });
    await assert.rejects(
      run('latency', undefined, 'x', { spec: { metric: 'm' }, response: { latencyMs: 5 } }),
      /must have a threshold in milliseconds/,
    );
  });

  it("judges a cached response by the model's recorded latency; a missing latency is unusable", async () => {
    const cached = await run('latency', undefined, 'x', {
      spec: { threshold: 9 },
      response: { latencyMs: 1, cached: true },
    });
    assert.equal(cached.pass, true);
    await assert.rejects(run('latency', undefined, 'x', { spec: { threshold: 9 } }), ScorerInputError);
  });

  // promptfoo 0.123.1 loads such configs and errors each test that runs the assertion.
  it("without a threshold (and not metric + weight 0): loads, and the job is an error with promptfoo's words", async () => {
    assert.equal(problem('latency', {}), undefined);
    assert.equal(problem('latency', { metric: 'lat' }), undefined);
    await assert.rejects(
      run('latency', undefined, 'x', { spec: { metric: 'lat' } }),
      /Latency assertion must have a threshold in milliseconds/,
    );
    await assert.rejects(
      run('latency', undefined, 'x', { spec: { negate: true, metric: 'lat', weight: 0 } }),
      /Latency assertion must have a threshold in milliseconds/,
    );
  });
});

describe('cost', () => {
  it('passes at or under the threshold', async () => {
    const spec = { threshold: 0.01 };
    assert.equal((await run('cost', undefined, 'x', { spec, response: { cost: 0.005 } })).pass, true);
    assert.equal((await run('cost', undefined, 'x', { spec, response: { cost: 0.01 } })).pass, true);
    assert.deepEqual(await run('cost', undefined, 'x', { spec, response: { cost: 0.0234 } }), {
      pass: false,
      score: 0,
      reason: 'Cost 0.023 is greater than threshold 0.01',
    });
  });

  it('not-cost', async () => {
    const spec = { threshold: 0.01, negate: true };
    assert.equal((await run('cost', undefined, 'x', { spec, response: { cost: 0.02 } })).pass, true);
    assert.equal(
      (await run('cost', undefined, 'x', { spec, response: { cost: 0.01 } })).reason,
      'Cost 0.010 is less than or equal to threshold 0.01',
    );
  });

  it('metric-only form records the cost', async () => {
    const spec = { metric: 'spend', weight: 0 };
    assert.deepEqual(await run('cost', undefined, 'x', { spec, response: { cost: 0.002 } }), {
      pass: true,
      score: 0.002,
      reason: 'Cost: $0.002',
    });
    await assert.rejects(
      run('cost', undefined, 'x', { spec, response: {} }),
      /finite, non-negative provider cost/,
    );
  });

  it('a provider without cost is unusable', async () => {
    await assert.rejects(
      run('cost', undefined, 'x', { spec: { threshold: 1 }, response: {} }),
      /does not support providers that do not return cost/,
    );
  });

  it("without a threshold: loads, and the job is an error with promptfoo's words", async () => {
    assert.equal(problem('cost', { threshold: 0 }), undefined);
    assert.equal(problem('cost', {}), undefined);
    await assert.rejects(
      run('cost', undefined, 'x', { spec: { negate: true }, response: { cost: 1 } }),
      /Cost assertion must have a threshold/,
    );
  });
});

describe('perplexity and perplexity-score', () => {
  const logProbs = [-0.2, -0.4, -0.1, -0.3];
  const perplexity = Math.exp(0.25);

  it('perplexity ≤ threshold', async () => {
    assert.deepEqual(
      await run('perplexity', undefined, 'x', { spec: { threshold: 1.3 }, response: { logProbs } }),
      {
        pass: true,
        score: 1,
        reason: 'Assertion passed',
      },
    );
    assert.deepEqual(
      await run('perplexity', undefined, 'x', { spec: { threshold: 1.2 }, response: { logProbs } }),
      {
        pass: false,
        score: 0,
        reason: `Perplexity ${perplexity.toFixed(2)} is greater than threshold 1.2`,
      },
    );
    assert.equal((await run('perplexity', undefined, 'x', { response: { logProbs } })).pass, true);
  });

  it('not-perplexity', async () => {
    const r = await run('perplexity', undefined, 'x', {
      spec: { threshold: 1.3, negate: true },
      response: { logProbs },
    });
    assert.deepEqual(r, {
      pass: false,
      score: 0,
      reason: 'Perplexity 1.28 is less than or equal to threshold 1.3',
    });
  });

  it('perplexity-score = 1/(1+perplexity), the score itself', async () => {
    const normalized = 1 / (1 + perplexity);
    const r = await run('perplexity-score', undefined, 'x', {
      spec: { threshold: 0.4 },
      response: { logProbs },
    });
    assert.equal(r.pass, true);
    near(r.score, normalized);
    const low = await run('perplexity-score', undefined, 'x', {
      spec: { threshold: 0.5 },
      response: { logProbs },
    });
    assert.equal(low.pass, false);
    assert.equal(low.reason, 'Perplexity score 0.44 is less than threshold 0.5');
    const negated = await run('perplexity-score', undefined, 'x', {
      spec: { threshold: 0.5, negate: true },
      response: { logProbs },
    });
    assert.equal(negated.pass, true);
    near(negated.score, 1 - normalized);
    const free = await run('perplexity-score', undefined, 'x', { response: { logProbs } });
    assert.equal(free.pass, true);
    near(free.score, normalized);
  });

  it('a perfectly confident output has perplexity 1', async () => {
    const r = await run('perplexity-score', undefined, 'x', { response: { logProbs: [0, 0] } });
    near(r.score, 0.5);
  });

  it('no log-probabilities is unusable', async () => {
    await assert.rejects(
      run('perplexity', undefined, 'x', { spec: { threshold: 2 } }),
      /Perplexity assertion does not support providers that do not return logProbs/,
    );
    await assert.rejects(
      run('perplexity-score', undefined, 'x', { response: { logProbs: [] } }),
      ScorerInputError,
    );
  });

  it('validate: negated needs a threshold', () => {
    assert.equal(problem('perplexity', {}), undefined);
    assert.equal(problem('perplexity', { negate: true }), 'not-perplexity needs a threshold');
    assert.equal(problem('perplexity-score', { negate: true }), 'not-perplexity-score needs a threshold');
  });
});
