import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { LineCounter, parseDocument } from 'yaml';
import { FAST_YAML_MIN_CHARS, readYamlFast } from '../../src/core/yaml-fast.js';
import { YamlFile } from '../../src/formats/promptfoo/source.js';
import { repoRoot, sharedDir } from '../support/paths.js';

/** Every YAML and JSON file below `dir` (recursively). */
function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => /\.(ya?ml|json)$/i.test(f) && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

/** Line and column (1-based) of an offset. */
function linePos(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, col: offset - (nl + 1) + 1 };
}

describe('the fast YAML reader', () => {
  const files = [
    ...yamlFiles(join(repoRoot, 'test', 'fixtures')),
    ...yamlFiles(join(repoRoot, 'examples')),
    ...yamlFiles(join(sharedDir, 'fixtures')),
  ];

  it('reads every fixture to the value the yaml package gives, and places every value where it does', () => {
    let compared = 0;
    let places = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const json = file.toLowerCase().endsWith('.json');
      const fast = readYamlFast(text, { json });
      const lines = new LineCounter();
      const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: !json, merge: true });
      if (!fast) continue;
      assert.deepEqual(doc.errors, [], `${file}: the fast reader took a document with errors`);
      assert.ok(isDeepStrictEqual(fast.value, doc.toJS()), `${file}: values differ`);
      compared++;
      const walk = (value: unknown, path: (string | number)[]): void => {
        // The yaml package finds the first of duplicate JSON keys, the fast reader the last one
        // (the value JSON keeps); such paths are left out.
        const node = doc.getIn(path, true) as { range?: number[] } | undefined;
        if (node?.range && !(json && duplicateKeyOnPath(doc, path))) {
          assert.deepEqual(
            linePos(text, fast.offsetOf(path)),
            lines.linePos(node.range[0]),
            `${file}: ${JSON.stringify(path)}`,
          );
          places++;
        }
        if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, [...path, i]);
        else if (value && typeof value === 'object')
          for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
      };
      walk(fast.value, []);
    }
    assert.ok(compared >= 20, `only ${compared} fixtures were compared`);
    assert.ok(places > 1000, `only ${places} places were compared`);
  });

  it('places keys, quoted and block scalars, flow collections and nested items', () => {
    const text = 'tests:\n  - vars:\n      a: "q"\n      b: |\n        block\n    assert: [1, {x: 2}]\n';
    const fast = readYamlFast(text);
    assert.ok(fast);
    assert.deepEqual(linePos(text, fast.offsetOf(['tests', 0])), { line: 2, col: 5 });
    assert.deepEqual(linePos(text, fast.offsetOf(['tests', 0, 'vars', 'a'])), { line: 3, col: 10 });
    assert.deepEqual(linePos(text, fast.offsetOf(['tests', 0, 'vars', 'b'])), { line: 4, col: 10 });
    assert.deepEqual(linePos(text, fast.offsetOf(['tests', 0, 'assert', 1, 'x'])), { line: 6, col: 21 });
    assert.deepEqual(linePos(text, fast.keyOffsetOf(['tests', 0, 'assert']) ?? -1), { line: 6, col: 5 });
    // A path that is not there is placed at its nearest written ancestor.
    assert.deepEqual(linePos(text, fast.offsetOf(['tests', 0, 'vars', 'missing'])), { line: 3, col: 7 });
  });

  it('leaves to the exact reader what it cannot take as it is', () => {
    for (const text of [
      'a: [1\n', // a syntax error, reported by the yaml package with its position
      'a: 1\na: 2\n', // a duplicate key
      'base: &b {x: 1}\nc: *b\n', // an alias (the yaml package bounds how far aliases expand)
      'a: 1\n---\nb: 2\n', // several documents
      '', // an empty document
      '# a comment only\n',
    ])
      assert.equal(readYamlFast(text), undefined, JSON.stringify(text));
    // In a JSON reading, duplicate keys are legal and the last wins.
    assert.deepEqual(readYamlFast('{"a": 1, "a": 2}', { json: true })?.value, { a: 2 });
  });

  it('a large file is read by the fast reader; what it cannot place exactly, the exact reader does', () => {
    // Padding (a comment) makes the file large enough for the fast reader.
    const pad = `# ${'x'.repeat(FAST_YAML_MIN_CHARS)}\n`;
    const text = `${pad}tests:\n  - vars: {x: 1}\n  -\n  - vars: {x: 2}\nnote: |  # use > to fold\n  body\n`;
    assert.ok(readYamlFast(text), 'the fast reader takes it');
    const file = new YamlFile('big.yaml', text);
    assert.deepEqual(file.locate(['tests', 2]), { file: 'big.yaml', line: 5, col: 5 });
    assert.deepEqual(file.locate(['tests', 1]), { file: 'big.yaml', line: 4, col: 4 });
    assert.deepEqual(file.locate(['note']), { file: 'big.yaml', line: 6, col: 7 });
    // Malformed text js-yaml would accept goes to the yaml package, which reports it.
    assert.equal(readYamlFast(`${pad}: prompts:\n  - a\n`), undefined);
    assert.equal(readYamlFast(`${pad}value: ]Hi\n`), undefined);
    assert.ok(new YamlFile('cr.yaml', `${pad}a: 1\rb: 2\n`).hasSyntaxErrors !== undefined);
  });

  it('reads scalars as promptfoo (js-yaml) does, which the yaml package reads differently', () => {
    // An explicitly tagged float and a `null` key: js-yaml, promptfoo's parser, gives 1 and "null".
    assert.deepEqual(readYamlFast('a: !!float 1\nnull: n\n')?.value, { a: 1, null: 'n' });
  });
});

/** Whether a mapping on `path` holds its key twice (legal in JSON). */
function duplicateKeyOnPath(doc: ReturnType<typeof parseDocument>, path: (string | number)[]): boolean {
  for (let n = 1; n <= path.length; n++) {
    const parent = doc.getIn(path.slice(0, n - 1), true) as
      | { items?: { key?: { value?: unknown } }[] }
      | undefined;
    const keys = parent?.items?.map((p) => p.key?.value).filter((k) => k === path[n - 1]) ?? [];
    if (keys.length > 1) return true;
  }
  return false;
}
