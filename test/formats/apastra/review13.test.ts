// Review of issue 13: reference answers computed with apastra's own Python (PyYAML safe_load +
// runtime/render.py, runs/evaluate_assertions.py) on inputs crafted here.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { PyValue } from '../../../src/core/python/json-loads.js';
import { pyJsonLoads } from '../../../src/core/python/json-loads.js';
import { inlineSpec, renderTemplate } from '../../../src/formats/apastra/cases.js';
import { documentDigest } from '../../../src/formats/apastra/digest.js';
import { readDoc } from '../../../src/formats/apastra/documents.js';
import '../../../src/formats/apastra/assertions.js';
import { getScorer } from '../../../src/scorers/registry.js';

describe('review13: YAML values as PyYAML safe_load reads them', () => {
  // python3 -c 'import yaml; from render import render_template; ...'
  const yaml = [
    'id: p',
    'a: 1.5e3', // PyYAML 1.1 float needs a dot AND a signed exponent: a str
    'w: 1e3', // a str
    'h: 2024-01-01', // datetime.date: str() is 2024-01-01
    'v: 2024-01-01 10:00:00', // datetime.datetime: str() is 2024-01-01 10:00:00
    '',
  ].join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'review13-'));
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

describe('review13: regex inline flags as Python re.search reads them', () => {
  const cases: [string, string, number][] = [
    // [output, pattern, evaluate_assertions.py's score]
    ['a\nb', '(?s)a.b', 1],
    ['a\nb', '(?m)^b', 1],
    ['ab\n', '(?m)b$', 1],
    ['A\nb', '(?im)^B', 1],
    ['ab', '(?x) a b ', 1],
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

describe('review13: is-valid-json-schema under the $schema a schema declares (jsonschema validator_for)', () => {
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
