// Format facts (Suite.native) and assertion options are read through a checked view: the data is
// typed only after each field is checked, and a value of the wrong shape is named, not cast.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { is, ViewError, view } from '../../src/core/view.js';
import { apastraNative } from '../../src/formats/apastra/native.js';
import { eweNative } from '../../src/formats/ewebench/load.js';
import { lveNative } from '../../src/formats/lve/load.js';

interface Facts {
  kind: 'a' | 'b';
  count: number;
  names: string[];
  note?: string;
}
const facts = view<Facts>('the test facts', {
  kind: is.literal('a', 'b'),
  count: is.number,
  names: is.arrayOf(is.string),
  note: is.optional(is.string),
});

describe('a checked view', () => {
  it('hands back data of its shape, typed', () => {
    const value: unknown = { kind: 'a', count: 2, names: ['x'], extra: true };
    const read = facts.read(value);
    assert.equal(read.count, 2);
    assert.deepEqual(facts.maybe(value), value);
  });

  it('names the first field that does not fit, and maybe() says undefined', () => {
    assert.throws(
      () => facts.read({ kind: 'c', count: 2, names: [] }),
      (err: unknown) => err instanceof ViewError && /the test facts: kind is "c"/.test(err.message),
    );
    assert.throws(() => facts.read({ kind: 'a', count: 2, names: [1] }), /names is \[1\]/);
    assert.throws(() => facts.read({ kind: 'a', count: 2, names: [], note: 5 }), /note is 5/);
    assert.throws(() => facts.read(['a']), /not an object/);
    assert.equal(facts.maybe(undefined), undefined);
    assert.equal(facts.maybe({ kind: 'a' }), undefined);
  });

  it("tells one format's facts from another's", () => {
    const lve = {
      kind: 'lve',
      replay: false,
      root: '/r',
      lves: [{ path: 'p', dir: 'd', category: 'c', name: 'n', model: 'm' }],
    };
    const ewe = {
      benchmark: 'EweBench',
      version: '1',
      mode: 'compat',
      categories: [{ key: 'k', name: 'K', weight: 0.1, tests: null }],
    };
    assert.ok(lveNative.maybe(lve));
    assert.equal(eweNative.maybe(lve), undefined);
    assert.equal(apastraNative.maybe(lve), undefined);
    assert.ok(eweNative.maybe(ewe));
    assert.equal(lveNative.maybe(ewe), undefined);
    assert.match(apastraNative.problem({ kind: 'suite', root: '/r' }) ?? '', /suiteId is absent/);
  });
});
