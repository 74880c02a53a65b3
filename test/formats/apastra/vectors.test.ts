// apastra's scoring, aggregation, comparison and digests against reference values produced by
// apastra's own Python (evaluate_assertions.py, normalize.py, compare.py, digest.py) on inputs we
// crafted: see test/fixtures/apastra/generate-vectors.py.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pyJsonDumps } from '../../../src/core/python/json-dumps.js';
import { type PyValue, pyJsonLoads, pyToJs } from '../../../src/core/python/json-loads.js';
import { ASSERT_TYPES } from '../../../src/formats/apastra/assertions.js';
import { inlineSpec, renderTemplate } from '../../../src/formats/apastra/cases.js';
import { documentDigest, jsonlDigest, withoutDigestKey } from '../../../src/formats/apastra/digest.js';
import { readDoc, readJsonl } from '../../../src/formats/apastra/documents.js';
import { normalizeScorecard } from '../../../src/formats/apastra/normalize.js';
import { comparePolicy } from '../../../src/formats/apastra/policy.js';
import { getScorer } from '../../../src/scorers/registry.js';
import { fixture } from '../../support/paths.js';

function load(name: string): PyValue {
  return pyJsonLoads(readFileSync(fixture('apastra', name), 'utf8'));
}

const get = (d: PyValue, k: string): PyValue => (d as Map<string, PyValue>).get(k) as PyValue;

describe('apastra inline assertions match evaluate_assertions.py', () => {
  const vectors = load('assertions.json') as PyValue[];
  it('has vectors for every assertion type, with and without not-', () => {
    const written = new Set<string>();
    for (const v of vectors)
      for (const a of get(v, 'assertions') as PyValue[])
        if (a instanceof Map && typeof a.get('type') === 'string') written.add(a.get('type') as string);
    for (const t of ASSERT_TYPES) {
      assert.ok(written.has(t), t);
      assert.ok(written.has(`not-${t}`), `not-${t}`);
    }
  });
  for (const [i, v] of vectors.entries()) {
    const output = get(v, 'output') as string;
    it(`vector ${i + 1}: ${JSON.stringify(output).slice(0, 40)}`, async () => {
      const meta = pyToJs(get(v, 'metadata')) as { latency?: number; cost?: number };
      const expected = pyToJs(get(v, 'expected')) as Record<string, number>[];
      const assertions = get(v, 'assertions') as PyValue[];
      assert.equal(assertions.length, expected.length);
      for (const [j, raw] of assertions.entries()) {
        // compat mode without a grader: apastra's offline fallbacks for the judged types.
        const spec = inlineSpec(pyToJs(raw), raw, 'compat', { file: 'x' });
        const scorer = getScorer(spec.type);
        assert.ok(scorer, spec.type);
        const r = await scorer.score({
          output,
          outputValue: output,
          value: spec.value,
          spec,
          vars: {},
          prompt: '',
          response: { latencyMs: meta.latency, cost: meta.cost },
        });
        const [[key, value]] = Object.entries(expected[j]);
        assert.equal(spec.metric, key, `assertion ${j + 1}`);
        assert.equal(r.score, value, `assertion ${j + 1} (${key}): ${r.reason}`);
        assert.equal(r.pass, value === 1);
      }
    });
  }
});

describe('apastra scorecards match normalize.py', () => {
  const vectors = load('normalize.json') as Map<string, PyValue>;
  for (const [name, v] of vectors) {
    it(name, () => {
      const cases = pyToJs(get(v, 'cases')) as {
        case_id?: string;
        evaluator_outputs?: Record<string, unknown>[];
      }[];
      // Values keep Python's int/float (1 vs 1.0) through the parsed form.
      const pyCases = (get(v, 'cases') as PyValue[]).map((c, i) => ({
        ...cases[i],
        evaluator_outputs: ((get(c, 'evaluator_outputs') as PyValue[]) ?? []).map((o) =>
          Object.fromEntries(o as Map<string, PyValue>),
        ),
      }));
      const text = pyJsonDumps(normalizeScorecard(pyCases), { indent: 2 });
      assert.equal(text, get(v, 'expected_text'));
    });
  }
});

describe('apastra regression reports match compare.py', () => {
  const vectors = load('compare.json') as Map<string, PyValue>;
  const rules = new Set<string>();
  for (const [name, v] of vectors) {
    it(name, () => {
      const outcome = comparePolicy(get(v, 'candidate'), get(v, 'baseline'), get(v, 'policy'), {
        candidate: 'CANDIDATE',
        baseline: 'BASELINE',
      });
      const expected = pyJsonLoads(get(v, 'expected_text') as string) as Map<string, PyValue>;
      const ours = outcome.report;
      for (const k of ['status', 'cost_delta'])
        assert.equal(pyJsonDumps(ours.get(k) as PyValue), pyJsonDumps(expected.get(k) as PyValue), k);
      // compare.py lists ungated metrics in set order, which Python does not fix; assay sorts them.
      const key = (e: PyValue): string => pyJsonDumps(e as PyValue, { sortKeys: true });
      const gated = (l: PyValue[]) => l.filter((e) => get(e, 'status') !== 'info').map(key);
      const info = (l: PyValue[]) =>
        l
          .filter((e) => get(e, 'status') === 'info')
          .map(key)
          .sort();
      const mine = ours.get('evidence') as PyValue[];
      const theirs = expected.get('evidence') as PyValue[];
      assert.deepEqual(gated(mine), gated(theirs));
      assert.deepEqual(info(mine), info(theirs));
      for (const e of theirs) rules.add(String(get(e, 'message')).replace(/-?\d+(\.\d+)?(e-?\d+)?/g, 'N'));
    });
  }
  it('the vectors exercise every message compare.py writes', () => {
    for (const m of [
      'Value N below floor N.',
      'Delta N exceeds allowed drop N.',
      'Value N above ceiling N.',
      'Delta N exceeds allowed rise N.',
      'Metric missing in candidate or baseline.',
      'Value N below floor N. (quarantined due to flakiness)',
      'Ungated metric surfaced for informational purposes.',
      'Ungated metric missing in candidate or baseline.',
    ])
      assert.ok(rules.has(m), m);
  });
});

describe('apastra digests match digest.py (ensure_ascii) and the raw UTF-8 variant', () => {
  const vectors = load('digests.json') as Map<string, PyValue>;
  for (const [name, v] of vectors) {
    it(name, async () => {
      const text = get(v, 'text') as string;
      const { mkdtempSync, writeFileSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = mkdtempSync(join(tmpdir(), 'apastra-digest-'));
      writeFileSync(join(dir, name), text);
      const { readDoc, readJsonl } = await import('../../../src/formats/apastra/documents.js');
      for (const variant of ['ascii', 'utf8'] as const) {
        const got = name.endsWith('.jsonl')
          ? jsonlDigest(
              readJsonl(join(dir, name)).rows.map((r) => r.py),
              variant,
            )
          : documentDigest(readDoc(join(dir, name)).py, variant);
        assert.equal(got, get(v, variant), variant);
      }
    });
  }
});

describe('apastra rendering matches render.py (Python str() of every value)', () => {
  const vectors = load('render.json') as PyValue[];
  for (const [i, v] of vectors.entries()) {
    it(`template ${i + 1}`, () => {
      const inputs = get(v, 'inputs') as Map<string, PyValue>;
      assert.deepEqual(renderTemplate(pyToJs(get(v, 'template')), [...inputs]), pyToJs(get(v, 'expected')));
    });
  }
});

describe('apastra digests of the shipped workspace (the specification’s verified vectors)', () => {
  const root = fixture('apastra', 'shipped');
  const doc = (p: string) => readDoc(join(root, p)).py;
  it('stored digests are computed without their own key', () => {
    for (const [file, stored] of [
      [
        'promptops/suites/test-suite.yaml',
        'sha256:90594be784fb9f01256f7c38240731474fb4482f0640c15357918f57073a6926',
      ],
      [
        'promptops/evaluators/exact-match.yaml',
        'sha256:3ca874b25ac298b51ebc377988bf4e7ec09b61b1534fe202f12796701e32fdb7',
      ],
    ])
      assert.equal(documentDigest(withoutDigestKey(doc(file))), stored, file);
    assert.equal(
      jsonlDigest(
        readJsonl(join(root, 'promptops/datasets/test-dataset/dataset.jsonl')).rows.map((r) => r.py),
      ),
      'sha256:933f58da406808ff8680692bfc05fb3b11a01817d80226d6a2daf870703b7907',
    );
  });
  it('full-file digests as digest.py computes them; YAML and JSON alike', () => {
    for (const [file, digest] of [
      [
        'promptops/suites/test-suite.yaml',
        'sha256:15df1f911fef98c0a4b6f1ff82044f8e41603778ce78518b07dafa88777eb58c',
      ],
      [
        'promptops/prompts/summarize-v1.yaml',
        'sha256:df21fe63f58eb3ce8a690a13389888ab9ad88c2d574dd8ff8c5f2d50b83bb64b',
      ],
      [
        'promptops/valid-workspace-prompt.yaml',
        'sha256:583d51cf291255bbd7da271fd5e472bce54aa6d06a4fe0b6a920e025f66943ec',
      ],
      [
        'promptops/valid-workspace-prompt.json',
        'sha256:583d51cf291255bbd7da271fd5e472bce54aa6d06a4fe0b6a920e025f66943ec',
      ],
      [
        'promptops/policies/regression.yaml',
        'sha256:9b10c7a7a8499b0a57ff98752b5c13dc9680b2471141596b6b02002537204307',
      ],
      [
        'promptops/evals/my-eval.yaml',
        'sha256:c3dea26001468e83719b95bccdecf9f1e741421d830c9b8cbfb67e6e880e5e01',
      ],
    ])
      assert.equal(documentDigest(doc(file)), digest, file);
    const run = 'promptops/runs/8dd64b79-a419-47e0-ba5f-219643c93cc7';
    assert.equal(
      jsonlDigest(readJsonl(join(root, run, 'cases.jsonl')).rows.map((r) => r.py)),
      'sha256:709b8797b59eb92a7177a34f1def718c1ec9ea0ad0d231a260b0fddc7aac9e3b',
    );
    assert.equal(
      documentDigest(doc(`${run}/run_manifest.json`)),
      'sha256:47515a7424263b3c04336a1e8f8324738f4c74fc543297685b12b9a30ce23780',
    );
  });
});
