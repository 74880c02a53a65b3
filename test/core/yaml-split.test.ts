// A root sequence read without holding it: the rest of the document and each chunk of items must
// read to exactly what the whole document reads to, at the same offsets; anything else is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  readSequenceChunk,
  readYamlFast,
  SEQUENCE_CHUNK,
  splitRootSequence,
} from '../../src/core/yaml-fast.js';

/** Item `i` in one of several styles (block scalars, quoted lines, comments, flow, compact). */
function item(i: number): string {
  switch (i % 5) {
    case 0:
      return `  - vars:\n      topic: "subject ${i}"\n    assert:\n      - type: contains\n        value: x\n`;
    case 1:
      return `  - text: |+\n      kept ${i}\n\n  # between items\n\n`;
    case 2:
      return `  - {a: ${i}, b: [1, 2]}\n`;
    case 3:
      return `  - q: "two\n      lines ${i}"\n    f: >-\n      folded\n      ${i}\n`;
    default:
      return `  -\n    plain: many words ${i}\n    <<: {m: ${i}}\n`;
  }
}

const doc = (n: number, tail = 'after:\n  key: value\n'): string =>
  `head: 1\ntests:\n${Array.from({ length: n }, (_, i) => item(i)).join('')}${tail}`;

/** Every item of a split, read chunk by chunk, with the offset of each item's first key. */
function readAll(text: string, bounds: Float64Array): { values: unknown[]; offsets: number[] } {
  const values: unknown[] = [];
  const offsets: number[] = [];
  const n = bounds.length - 1;
  for (let first = 0; first < n; first += SEQUENCE_CHUNK) {
    const count = Math.min(SEQUENCE_CHUNK, n - first);
    const chunk = readSequenceChunk(text, bounds, first, count);
    assert.ok(chunk, `chunk at ${first} reads`);
    for (let k = 0; k < count; k++) {
      values.push(chunk.values[k]);
      offsets.push(chunk.offsetOf(k, []));
    }
  }
  return { values, offsets };
}

describe('a root sequence split from its document', () => {
  it('reads, rest and items, to the whole document, at the whole document’s offsets', () => {
    for (const tail of ['after:\n  key: value\n', '', '# a closing comment\nlast: [1]\n']) {
      const text = doc(300, tail);
      const whole = readYamlFast(text);
      assert.ok(whole);
      const split = splitRootSequence(text, 'tests');
      assert.ok(split, 'splits');
      const { values, offsets } = readAll(text, split.bounds);
      assert.deepEqual({ ...(split.rest.value as object), tests: values }, whole.value);
      for (let i = 0; i < values.length; i++) assert.equal(offsets[i], whole.offsetOf(['tests', i]));
      assert.equal(split.rest.keyOffsetOf(['tests']), whole.keyOffsetOf(['tests']));
      if (tail.startsWith('after')) {
        assert.equal(split.rest.offsetOf(['after', 'key']), whole.offsetOf(['after', 'key']));
        assert.equal(split.rest.keyOffsetOf(['after']), whole.keyOffsetOf(['after']));
      }
    }
  });

  it('reads items written at the key’s own indentation', () => {
    const text = `tests:\n- a: 1\n- b: |\n    two\n- c: 3\nnext: 1\n`;
    const split = splitRootSequence(text, 'tests');
    assert.ok(split);
    assert.deepEqual(readAll(text, split.bounds).values, [{ a: 1 }, { b: 'two\n' }, { c: 3 }]);
    assert.deepEqual(split.rest.value, { tests: null, next: 1 });
  });

  it('refuses what it cannot split exactly', () => {
    const refused: Record<string, string> = {
      'a flow list': 'tests: [{a: 1}]\n',
      'no items': 'tests:\nnext: 1\n',
      'a mapping': 'tests:\n  path: x\n',
      'the key twice': 'tests:\n  - a: 1\ntests:\n  - a: 2\n',
      'the key inside a quoted scalar': 'd: "x\ntests:\n  - a: 1\n"\n',
      'a tab for indentation': 'tests:\n  - a: 1\n\t- b: 2\n',
      'an alias outside the items': 'x: &x 1\ntests:\n  - a: 1\ny: *x\n',
      'scenarios, when refused': 'scenarios: []\ntests:\n  - a: 1\n',
    };
    for (const [what, text] of Object.entries(refused))
      assert.equal(splitRootSequence(text, 'tests', { refuseRootKeys: ['scenarios'] }), undefined, what);
  });

  it('leaves to the whole read an item that does not read alone as it reads in the whole', () => {
    const bad: Record<string, string> = {
      'an alias of an anchor outside the items': 'x: &x {a: 1}\ntests:\n  - b: *x\n',
      'a string item': 'tests:\n  - file://a.csv\n',
      'a refused key': 'tests:\n  - path: a.csv\n',
      'a duplicate key': 'tests:\n  - a: 1\n    a: 2\n',
      'a quote that spans items': 'tests:\n  - a: "x\n  - b: y"\n',
    };
    for (const [what, text] of Object.entries(bad)) {
      const split = splitRootSequence(text, 'tests');
      if (!split) continue; // refused outright: as good
      const n = split.bounds.length - 1;
      assert.equal(
        readSequenceChunk(text, split.bounds, 0, n, { refused: new Set(['path']) }),
        undefined,
        what,
      );
    }
  });
});
