// seededRandom (mulberry32), shared by `--filter-sample` and the paired statistics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../src/core/random.js';

describe('seededRandom', () => {
  it('draws the same sequence from the same seed, in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const draws = Array.from({ length: 1000 }, () => a());
    assert.deepEqual(
      draws,
      Array.from({ length: 1000 }, () => b()),
    );
    assert.ok(draws.every((x) => x >= 0 && x < 1));
    assert.notDeepEqual(draws.slice(0, 10), Array.from({ length: 10 }, seededRandom(8)));
  });

  it('is mulberry32: the first draws of seed 0 are its reference values', () => {
    const r = seededRandom(0);
    assert.deepEqual([r(), r(), r()], [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197]);
  });
});
