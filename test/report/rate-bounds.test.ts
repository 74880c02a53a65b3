// Review of issue 11: "never round a rate that is not 100% up to 100%" must not make an interval
// exclude its own estimate: 0 of 2,000 is not "0.0% (0.1–0.2%)", 2,000 of 2,000 not "(99.8–99.9%)".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wilson } from '../../src/analysis/stats.js';
import { formatRate } from '../../src/report/console.js';

describe('pass-rate intervals at the edges (review of issue 11)', () => {
  it('none passed: the interval starts at 0.0%', () => {
    for (const n of [3, 2000]) assert.match(formatRate(wilson(0, n)), /^0\.0% \(0\.0–/, `0 of ${n}`);
  });
  it('all passed: the interval ends at 100.0%', () => {
    for (const n of [10, 2000]) assert.match(formatRate(wilson(n, n)), /–100\.0%\)$/, `${n} of ${n}`);
  });
});
