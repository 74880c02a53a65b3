// The text scorers through the engine and the promptfoo loader: registration, weights, thresholds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec, Case } from '../../../src/core/types.js';
import { scoreCase } from '../../../src/engine/score.js';
import { assertionFromString } from '../../../src/formats/promptfoo/expected.js';
import { resolveAssertionType, scorerTypes } from '../../../src/scorers/index.js';
import { errorsOf, loadText, plain } from '../../formats/promptfoo/helpers.js';
import { near } from './helpers.js';

const TYPES = [
  'bleu',
  'contains-html',
  'contains-xml',
  'cost',
  'finish-reason',
  'gleu',
  'is-html',
  'is-refusal',
  'is-valid-openai-tools-call',
  'is-xml',
  'latency',
  'levenshtein',
  'perplexity',
  'perplexity-score',
  'rouge-n',
  'word-count',
];

function makeCase(asserts: AssertionSpec[], threshold?: number): Case {
  return { id: 'c', vars: {}, asserts, metadata: {}, scoring: { threshold } };
}

const ctx = (output: string, response = {}) => ({
  output,
  outputValue: output,
  vars: {},
  prompt: 'p',
  response,
});

describe('registration', () => {
  it('registers every text type, and their not- forms', () => {
    const types = scorerTypes();
    for (const type of TYPES) {
      assert.ok(types.includes(type), type);
      assert.deepEqual(resolveAssertionType(`not-${type}`), { type, negate: true });
    }
  });
});

describe('scoreCase with text scorers (weights and thresholds)', () => {
  it('a weighted rouge-n score enters the case mean; the case threshold overrides its failure', async () => {
    const asserts: AssertionSpec[] = [
      { type: 'rouge-n', value: 'the cat sat on the mat', weight: 2 },
      { type: 'word-count', value: { max: 5 }, weight: 1 },
    ];
    const output = 'The cat sat.'; // rouge-n 0.6 < 0.75 (fails); 4 words ≤ 5 (passes)
    const plainCase = await scoreCase(makeCase(asserts), ctx(output));
    assert.equal(plainCase.status, 'fail');
    near(plainCase.score, (0.6 * 2 + 1 * 1) / 3);
    assert.equal(plainCase.reason, 'ROUGE-N score 0.60 is less than threshold 0.75');
    const lenient = await scoreCase(makeCase(asserts, 0.6), ctx(output));
    assert.equal(lenient.status, 'pass');
    assert.equal(lenient.reason, 'Aggregate score 0.73 ≥ 0.6 threshold');
    const strict = await scoreCase(makeCase(asserts, 0.75), ctx(output));
    assert.equal(strict.status, 'fail');
  });

  it('the assertion threshold (spec.threshold) is the scorer’s own, not the case’s', async () => {
    const asserts: AssertionSpec[] = [{ type: 'rouge-n', value: 'the cat sat on the mat', threshold: 0.5 }];
    const o = await scoreCase(makeCase(asserts), ctx('The cat sat.'));
    assert.equal(o.status, 'pass');
    near(o.score, 0.6);
  });

  it('a weight-0 latency records the raw latency in its metric without touching the case score', async () => {
    const asserts: AssertionSpec[] = [
      { type: 'latency', weight: 0, metric: 'latency_ms' },
      { type: 'levenshtein', value: 'hello' },
    ];
    const o = await scoreCase(makeCase(asserts), ctx('hallo', { latencyMs: 420 }));
    assert.equal(o.status, 'pass');
    assert.equal(o.score, 1);
    assert.deepEqual(o.namedScores, { latency_ms: 420 });
  });

  it('an unusable text assertion makes the job an error, not a failure', async () => {
    const o = await scoreCase(makeCase([{ type: 'perplexity', threshold: 2 }]), ctx('x'));
    assert.equal(o.status, 'error');
    assert.match(o.reason, /^perplexity: Perplexity assertion does not support providers/);
  });
});

describe('compatibility cases §11 #2–#4 through the loader', () => {
  it('#2: CSV latency:500 loads as threshold 0.75 and fails a 120 ms response', async () => {
    const spec = assertionFromString('latency:500');
    assert.deepEqual(spec, { type: 'latency', value: '500', threshold: 0.75 });
    const suite = await loadText('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n', {
      't.csv': 'q,__expected\na,latency:500\n',
    });
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'latency', value: '500', threshold: 0.75 }]);
    const o = await scoreCase(suite.cases[0], ctx('a', { latencyMs: 120 }));
    assert.equal(o.status, 'fail');
    assert.match(o.reason, /^Latency 120ms is greater than threshold 0\.75ms/);
  });

  it('#3: CSV levenshtein:hello passes only the exact text', async () => {
    const suite = await loadText('prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n', {
      't.csv': 'q,__expected\na,levenshtein:hello\n',
    });
    const c = suite.cases[0];
    assert.equal((await scoreCase(c, ctx('hello'))).status, 'pass');
    assert.equal((await scoreCase(c, ctx('hellp'))).status, 'fail');
  });

  it('#4: not-levenshtein with threshold 2 fails "helo" against "hello" (promptfoo 0.123.1 honours not-)', async () => {
    const suite = await loadText(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: helo}
    assert:
      - type: not-levenshtein
        value: hello
        threshold: 2
`);
    const o = await scoreCase(suite.cases[0], ctx('helo'));
    assert.equal(o.status, 'fail');
    assert.equal(o.verdicts[0].type, 'not-levenshtein');
  });

  it('shape problems are load errors, positioned per assertion', async () => {
    const diags = await errorsOf(`
prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: {q: x}
    assert:
      - type: word-count
        value: {min: 10, max: 5}
      - type: levenshtein
        value: [a, b]
      - type: is-xml
        value: 'root.a,'
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'tests[0].assert[0]: "word-count" assertion: min (10) must be less than or equal to max (5)',
        'tests[0].assert[1]: "levenshtein" needs a string value, got an array',
        'tests[0].assert[2]: "is-xml" value has an empty element path: "root.a,"',
      ],
    );
  });
});
