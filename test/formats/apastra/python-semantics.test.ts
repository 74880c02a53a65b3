// apastra's Python semantics: reference answers computed with apastra's own Python (PyYAML safe_load +
// runtime/render.py, runs/evaluate_assertions.py) on inputs crafted here.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { PyValue } from '../../../src/core/python/json-loads.js';
import { PyFloat, PyInt, pyJsonLoads } from '../../../src/core/python/json-loads.js';
import { pyStr } from '../../../src/core/python/str.js';
import { inlineSpec, renderTemplate } from '../../../src/formats/apastra/cases.js';
import { documentDigest } from '../../../src/formats/apastra/digest.js';
import { readDoc } from '../../../src/formats/apastra/documents.js';
import '../../../src/formats/apastra/assertions.js';
import { getScorer } from '../../../src/scorers/registry.js';

describe('YAML values as PyYAML safe_load reads them', () => {
  // python3 -c 'import yaml; from render import render_template; ...'
  const yaml = [
    'id: p',
    'a: 1.5e3', // PyYAML 1.1 float needs a dot AND a signed exponent: a str
    'w: 1e3', // a str
    'h: 2024-01-01', // datetime.date: str() is 2024-01-01
    'v: 2024-01-01 10:00:00', // datetime.datetime: str() is 2024-01-01 10:00:00
    '',
  ].join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'apastra-py-'));
  const file = join(dir, 'p.yaml');
  writeFileSync(file, yaml);
  it('renders {{a}}|{{w}}|{{h}}|{{v}} as render.py does', () => {
    const py = readDoc(file).py as Map<string, PyValue>;
    const inputs = [...py].filter(([k]) => k !== 'id');
    assert.equal(
      renderTemplate('{{a}}|{{w}}|{{h}}|{{v}}', inputs),
      '1.5e3|1e3|2024-01-01|2024-01-01 10:00:00',
    );
  });
  it('digests 1.5e3 and 1e3 as the strings PyYAML reads', () => {
    const text = 'id: p\na: 1.5e3\nw: 1e3\n';
    writeFileSync(file, text);
    // digest.py: json.dumps({"a": "1.5e3", "id": "p", "w": "1e3"}, separators=(",", ":"), sort_keys=True)
    assert.equal(
      documentDigest(readDoc(file).py),
      documentDigest(
        new Map<string, PyValue>([
          ['a', '1.5e3'],
          ['id', 'p'],
          ['w', '1e3'],
        ]),
      ),
    );
  });
});

describe('plain scalars resolved as PyYAML 6 safe_load resolves them', () => {
  // python3 -c 'import yaml; v = yaml.safe_load("v: " + src)["v"]; print(type(v).__name__, str(v) or repr(v))'
  // (floats by repr; a date/datetime is held as its str(), so its type here is str)
  const table: [string, string, string][] = [
    ['1_000', 'int', '1000'],
    ['0x1F', 'int', '31'],
    ['-0x_1f', 'int', '-31'],
    ['017', 'int', '15'],
    ['0o17', 'str', '0o17'],
    ['09', 'str', '09'],
    ['0', 'int', '0'],
    ['-0', 'int', '0'],
    ['+1', 'int', '1'],
    ['+0', 'int', '0'],
    ['0b101', 'int', '5'],
    ['1:30', 'int', '90'],
    ['1:30.5', 'float', '90.5'],
    ['190:20:30', 'int', '685230'],
    ['.inf', 'float', 'inf'],
    ['-.Inf', 'float', '-inf'],
    ['.NaN', 'float', 'nan'],
    ['1e3', 'str', '1e3'],
    ['1.5e3', 'str', '1.5e3'],
    ['1.0e+3', 'float', '1000.0'],
    ['1.5E-3', 'float', '0.0015'],
    ['.5', 'float', '0.5'],
    ['-.5', 'str', '-.5'],
    ['1.', 'float', '1.0'],
    ['1_0.5_0', 'float', '10.5'],
    ['.', 'str', '.'],
    ['yes', 'bool', 'True'],
    ['No', 'bool', 'False'],
    ['ON', 'bool', 'True'],
    ['off', 'bool', 'False'],
    ['y', 'str', 'y'],
    ['n', 'str', 'n'],
    ['~', 'NoneType', 'None'],
    ['null', 'NoneType', 'None'],
    ['NULL', 'NoneType', 'None'],
    ['Null', 'NoneType', 'None'],
    ['2024-01-01', 'str', '2024-01-01'],
    ['2024-1-1', 'str', '2024-1-1'],
    ['2024-01-01 10:00:00', 'str', '2024-01-01 10:00:00'],
    ['2024-01-01T10:00:00Z', 'str', '2024-01-01 10:00:00+00:00'],
    ['2024-01-01t10:00:00.5-05:30', 'str', '2024-01-01 10:00:00.500000-05:30'],
    ['2024-1-2 3:04:05.1234567 +2', 'str', '2024-01-02 03:04:05.123456+02:00'],
    ['2024-01-01 10:00:00 Z', 'str', '2024-01-01 10:00:00+00:00'],
    ['2002-12-14', 'str', '2002-12-14'],
    ['1.0', 'float', '1.0'],
    ['-1.5e-3', 'float', '-0.0015'],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'apastra-py-scalars-'));
  for (const [src, type, text] of table)
    it(`${src} → ${type} ${text}`, () => {
      const file = join(dir, 'v.yaml');
      writeFileSync(file, `v: ${src}\n`);
      const v = (readDoc(file).py as Map<string, PyValue>).get('v') as PyValue;
      const got =
        v === null
          ? 'NoneType'
          : typeof v === 'boolean'
            ? 'bool'
            : typeof v === 'string'
              ? 'str'
              : v instanceof PyInt
                ? 'int'
                : v instanceof PyFloat
                  ? 'float'
                  : 'other';
      assert.deepEqual([got, pyStr(v)], [type, text]);
    });
  it('an impossible date is an error, as PyYAML raises ValueError', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'v: 2024-02-30\n');
    assert.throws(() => readDoc(file), /day is out of range/);
  });
});

describe('regex inline flags as Python re.search reads them', () => {
  const cases: [string, string, number][] = [
    // [output, pattern, evaluate_assertions.py's score]
    ['a\nb', '(?s)a.b', 1],
    ['a\nb', '(?m)^b', 1],
    ['ab\n', '(?m)b$', 1],
    ['A\nb', '(?im)^B', 1],
    ['ab', '(?x) a b ', 1],
    // python3 3.11: int(re.search(pattern, output) is not None)
    ['a\nb', '(?s)a.b', 1],
    ['a\nb', 'a.b', 0],
    ['a\nb', '(?m)^b', 1],
    ['a\nb', '^b', 0],
    ['ab\n', '(?m)b$', 1],
    ['ab\nc', '(?m)b$', 1],
    ['ab\nc', 'b$', 0],
    ['ab\n', 'b$', 1],
    ['ab\n\n', '(?m)b$', 1],
    ['A\nb', '(?im)^B', 1],
    ['ab', '(?x) a b ', 1],
    ['a b', '(?x)a\\ b', 1],
    ['ab', '(?x)a # comment\n b', 1],
    ['a b', '(?x)a[ ]b', 1],
    ['a#b', '(?x)a[#]b', 1],
    ['aa', '(?x)a {2}', 1],
    ['\u00e9', '(?a)\\w', 0],
    ['\u00e9', '\\w', 1],
    ['x', '(?a)(?i)X', 1],
    ['K', '(?i)\u212a', 1],
    ['ab\n', '(?m)b\\Z', 0],
    ['a\n', '(?s)a.', 1],
    ['a\nb', '(?sm)a.^b', 1],
    ['ab', '(?x)(?i) A B', 1],
    ['x\n', '(?m)$', 1],
    ['', '(?m)^$', 1],
  ];
  for (const [output, pattern, want] of cases)
    it(`${JSON.stringify(pattern)} on ${JSON.stringify(output)} scores ${want}`, async () => {
      const line = JSON.stringify({ type: 'regex', value: pattern });
      const spec = inlineSpec(JSON.parse(line), pyJsonLoads(line), 'default', { file: 'x' });
      const scorer = getScorer(spec.type);
      assert.ok(scorer);
      assert.equal(scorer.validate?.(spec), undefined, 'refused up front as unsupported');
      const r = await scorer.score({
        output,
        outputValue: output,
        value: spec.value,
        spec,
        vars: {},
        prompt: '',
        response: {},
      } as never);
      assert.equal(r.score, want);
    });
});

describe('is-valid-json-schema under the $schema a schema declares (jsonschema validator_for)', () => {
  // evaluate_assertions.py on output "5": every one of these passes (jsonschema picks the draft,
  // an unknown $schema falls back to the latest); the not- form is then 0.
  const drafts = [
    'http://json-schema.org/draft-06/schema#',
    'https://json-schema.org/draft/2019-09/schema',
    'http://example.com/custom-meta',
    'http://json-schema.org/draft-04/schema#',
  ];
  for (const draft of drafts)
    for (const type of ['is-valid-json-schema', 'not-is-valid-json-schema'])
      it(`${type} with $schema ${draft}`, async () => {
        const line = JSON.stringify({ type, value: { $schema: draft, type: 'number', maximum: 6 } });
        const spec = inlineSpec(JSON.parse(line), pyJsonLoads(line), 'default', { file: 'x' });
        const scorer = getScorer(spec.type);
        assert.ok(scorer);
        const r = await scorer.score({
          output: '5',
          outputValue: '5',
          value: spec.value,
          spec,
          vars: {},
          prompt: '',
          response: {},
        } as never);
        assert.equal(r.score, type.startsWith('not-') ? 0 : 1, r.reason);
      });
});

describe('draft-04 keywords as jsonschema Draft4Validator reads them', () => {
  // python3: Draft4Validator({..., "maximum": 5, "exclusiveMaximum": True}).is_valid(5) → False, (4) → True
  for (const [output, want] of [
    ['5', 0],
    ['4', 1],
  ] as const)
    it(`exclusiveMaximum: true on ${output} scores ${want}`, async () => {
      const line = JSON.stringify({
        type: 'is-valid-json-schema',
        value: {
          $schema: 'http://json-schema.org/draft-04/schema#',
          type: 'number',
          maximum: 5,
          exclusiveMaximum: true,
        },
      });
      const spec = inlineSpec(JSON.parse(line), pyJsonLoads(line), 'default', { file: 'x' });
      const scorer = getScorer(spec.type);
      assert.ok(scorer);
      const r = await scorer.score({
        output,
        outputValue: output,
        value: spec.value,
        spec,
        vars: {},
        prompt: '',
        response: {},
      } as never);
      assert.equal(r.score, want, r.reason);
    });
});

describe('a similar threshold written as null', () => {
  // evaluate_assertions.py: assertion.get("threshold", 0.8) keeps None; float(None) raises
  // TypeError, so the judge's score decides as bool(score). It is not read as 0.8.
  for (const a of [
    { type: 'similar', value: 'Paris', threshold: null },
    { type: 'similar', value: { value: 'Paris', threshold: null } },
  ])
    it(JSON.stringify(a), () => {
      const line = JSON.stringify(a);
      const spec = inlineSpec(JSON.parse(line), pyJsonLoads(line), 'default', { file: 'x' });
      assert.equal((spec.options as { threshold?: unknown }).threshold, null);
    });
  it('an absent threshold is 0.8', () => {
    const line = JSON.stringify({ type: 'similar', value: 'Paris' });
    const spec = inlineSpec(JSON.parse(line), pyJsonLoads(line), 'default', { file: 'x' });
    assert.equal((spec.options as { threshold?: unknown }).threshold, 0.8);
  });
});
