// Positions from the fast YAML reader: places the fast YAML reader gets wrong where the yaml package
// (the reader before it) was right.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { YamlFile } from '../../src/formats/promptfoo/source.js';

describe('the fast YAML reader places what it read', () => {
  it('places an empty value where it was written, not at 1:0', () => {
    // Each of these is read by the fast path; js-yaml gives an empty scalar valueStart -1.
    const cases: [string, (string | number)[], { line: number; col: number }][] = [
      ['tests:\n  - vars: {x: 1}\n  -\n  - vars: {x: 2}\n', ['tests', 1], { line: 3, col: 4 }],
      ['description:\nprompts:\n  - hi\n', ['description'], { line: 1, col: 13 }],
      ['a: !!str\nb: 1\n', ['a'], { line: 1, col: 4 }],
      ['a: {b: , c: 1}\n', ['a', 'b'], { line: 1, col: 8 }],
    ];
    for (const [text, path, want] of cases) {
      const where = new YamlFile('f.yaml', text).locate(path);
      assert.ok(
        (where.col ?? 0) >= 1,
        `${JSON.stringify(text)} ${JSON.stringify(path)}: column ${where.col}`,
      );
      assert.equal(where.line, want.line, `${JSON.stringify(text)} ${JSON.stringify(path)}`);
    }
  });

  it('places a block scalar at its indicator even when a comment on its header holds | or >', () => {
    const where = new YamlFile('f.yaml', 'a: |  # use > to fold\n  body\n').locate(['a']);
    assert.deepEqual({ line: where.line, col: where.col }, { line: 1, col: 4 });
  });
});
