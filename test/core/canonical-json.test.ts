// The two canonical JSON texts: `canonicalJson` (what ids and cache keys hash) and
// `canonicalJsonAsWritten` (what `--filter-failing` matches vars by). They agree on plain data and
// differ on a value whose `toJSON` says something other than its own fields.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, canonicalJsonAsWritten, shortHash } from '../../src/core/hash.js';

class Temperature {
  constructor(readonly celsius: number) {}
  toJSON(): string {
    return `${this.celsius}C`;
  }
}

describe('canonical JSON', () => {
  const both = [canonicalJson, canonicalJsonAsWritten];

  it('both sort keys at every depth, so key order never changes the text', () => {
    for (const f of both) {
      assert.equal(f({ b: 1, a: { d: [{ y: 1, x: 2 }], c: 3 } }), '{"a":{"c":3,"d":[{"x":2,"y":1}]},"b":1}');
      assert.equal(f({ b: 1, a: 2 }), f({ a: 2, b: 1 }));
    }
  });

  it('both leave out fields holding undefined, write undefined in a list as null, and a Date as its ISO text', () => {
    for (const f of both) {
      assert.equal(f({ a: undefined, b: 1 }), '{"b":1}');
      assert.equal(f([undefined, 1]), '[null,1]');
      assert.equal(f(undefined), undefined);
      assert.equal(f({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
      assert.equal(f(new Date(0)), '"1970-01-01T00:00:00.000Z"');
    }
  });

  it('canonicalJson hashes an object by its own fields, whatever its toJSON says', () => {
    assert.equal(canonicalJson({ t: new Temperature(20) }), '{"t":{"celsius":20}}');
    assert.notEqual(shortHash({ t: new Temperature(20) }), shortHash({ t: new Temperature(21) }));
  });

  it('canonicalJsonAsWritten gives a value and its copy read back from JSON the same text', () => {
    const vars = { when: new Date(0), t: new Temperature(20), list: [1, { b: 2, a: 1 }] };
    const readBack = JSON.parse(JSON.stringify(vars));
    assert.equal(canonicalJsonAsWritten(vars), canonicalJsonAsWritten(readBack));
    assert.equal(
      canonicalJsonAsWritten(vars),
      '{"list":[1,{"a":1,"b":2}],"t":"20C","when":"1970-01-01T00:00:00.000Z"}',
    );
    // Why the filter cannot use the hashing text: the copy read back would not match.
    assert.notEqual(canonicalJson(vars), canonicalJson(readBack));
  });
});
