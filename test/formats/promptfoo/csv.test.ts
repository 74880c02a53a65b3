import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertionFromString } from '../../../src/formats/promptfoo/expected.js';
import { errorsOf, loadFixture, loadText, plain, shown } from './helpers.js';

const CONFIG = 'prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://t.csv\n';

describe('CSV rows (§3)', () => {
  it('applies every column rule', async () => {
    const suite = await loadFixture('csv');
    const [one, two, three] = suite.cases;

    // Row 1: __expected1 blank, so __config:__expected1 addresses the first parsed assertion (§11 #1).
    assert.deepEqual(plain(one.asserts), [
      { type: 'is-json' },
      { type: 'contains', value: '4', threshold: 0.5, metric: 'acc' },
    ]);
    // _expected (header " _expected ", trimmed) is a var; __metadata (no key) is ignored.
    assert.deepEqual(one.vars, { question: 'What is 2+2?', _expected: 'x', notes: 'n1' });
    // __metadata:tags[] splits on unescaped commas, unescaping every \, (promptfoo 0.123.1).
    assert.deepEqual(one.metadata, { topic: 'math', tags: ['a,b,c', 'd'], threshold: 0.5 });
    assert.equal(one.description, 'row one');
    assert.equal(one.replay?.output, '4');
    assert.deepEqual(one.preparation?.options, { prefix: 'P: ', suffix: ' S' });
    // __threshold 0 is a threshold of 0 (promptfoo 0.123.1; §11 #7 describes older versions).
    assert.equal(one.scoring?.threshold, 0);

    // Row 2: relaxed quotes; `similar(.8):hi` is equals (§11 #5); contains-any is split and trimmed (§11 #6).
    assert.equal(two.vars.question, 'He said "hi"');
    assert.deepEqual(plain(two.asserts), [
      { type: 'is-json' },
      { type: 'equals', value: 'similar(.8):hi', threshold: 0.9 },
      { type: 'contains-any', value: ['a', 'b', 'c'] },
    ]);
    assert.equal(two.description, 'Row #2');
    assert.equal(two.scoring?.threshold, 0.25);
    assert.deepEqual(two.metadata, { threshold: 0.9 });

    // Row 3: a quoted multi-line cell; not- prefix; an unparsable __threshold is dropped.
    assert.equal(three.vars.question, 'multi\nline');
    assert.deepEqual(plain(three.asserts), [
      { type: 'is-json' },
      { type: 'icontains', negate: true, value: 'PARIS', threshold: 0.3 },
    ]);
    assert.equal(three.scoring?.threshold, undefined);
    assert.equal(three.description, 'Row #3');
  });

  it('positions rows at their first line and warns about columns at the header', async () => {
    const suite = await loadFixture('csv');
    const file = shown('csv', 'tests.csv');
    assert.deepEqual(
      suite.cases.map((c) => `${c.provenance?.source?.file}:${c.provenance?.source?.line}`),
      [`${file}:2`, `${file}:3`, `${file}:4`],
    );
    assert.deepEqual(
      suite.warnings.map((w) => `${w.file}:${w.line} ${w.message}`),
      [
        `${file}:1 The "__metadata" column requires a key, e.g. "__metadata:category". This column will be ignored.`,
        `${file}:1 You used a single underscore for the key "_expected". Did you mean to use "__expected" instead?`,
      ],
    );
  });

  it('reports __config problems at the row (§3.2)', async () => {
    const diags = await errorsOf(CONFIG, {
      't.csv':
        'q,__expected,__config:__expectedX:threshold,__config:__expected:weight,__config:__expected:threshold,__config:bad\n' +
        'a,contains:a,1,1,0.5,z\n' +
        'b,contains:b,1,1,high,z\n',
    });
    assert.deepEqual(
      diags.map((d) => `${d.line} ${d.message}`),
      [
        '2 Invalid expected key "__expectedX" in __config column "__config:__expectedX:threshold". Must be __expected or __expected<N> where N is a positive integer.',
        '2 Invalid config key "weight" in __config column "__config:__expected:weight". Valid config keys include: threshold',
        '3 Invalid expected key "__expectedX" in __config column "__config:__expectedX:threshold". Must be __expected or __expected<N> where N is a positive integer.',
        '3 Invalid config key "weight" in __config column "__config:__expected:weight". Valid config keys include: threshold',
        '3 Invalid numeric value "high" for config key "threshold" in column "__config:__expected:threshold"',
      ],
    );
  });

  it('warns about a malformed __config column and ignores it', async () => {
    const suite = await loadText(CONFIG, { 't.csv': 'q,__config:bad\na,1\n' });
    assert.deepEqual(
      suite.warnings.map((w) => w.message),
      [
        'Invalid __config column format: "__config:bad". Expected format: __config:__expected:threshold or __config:__expected<N>:threshold',
      ],
    );
    assert.deepEqual(suite.cases[0].vars, { q: 'a' });
  });

  it('reports a CSV syntax error with its line', async () => {
    const diags = await errorsOf(CONFIG, { 't.csv': 'q,r\na,b\nc\n' });
    assert.equal(diags.length, 1);
    assert.equal(diags[0].line, 3);
    assert.match(diags[0].message, /^invalid CSV: /);
  });

  it('treats any column starting with __expected as an assertion, skipping blanks', async () => {
    const suite = await loadText(CONFIG, {
      't.csv': 'q,__expected,__expectedFoo,__expected3\na,starts-with:a,,regex:^a\n',
    });
    assert.deepEqual(plain(suite.cases[0].asserts), [
      { type: 'starts-with', value: 'a', threshold: 0.75 },
      { type: 'regex', value: '^a' },
    ]);
  });

  it('validates __expected types like any assertion', async () => {
    const diags = await errorsOf(CONFIG, {
      't.csv': 'q,__expected\na,trace-span-count:hello\nb,classifier:positive\n',
    });
    assert.deepEqual(
      diags.map((d) => `${d.line} ${d.message}`),
      [
        '2 tests[0].assert[0]: assertion type "trace-span-count" is a promptfoo type assay does not support yet',
        '3 tests[1].assert[0]: assertion type "classifier" needs a HuggingFace text-classification provider, which assay does not have',
      ],
    );
  });
});

describe('__expected grammar (§3.3)', () => {
  it('parses script and rubric prefixes', () => {
    assert.deepEqual(assertionFromString('javascript: output.length > 3 '), {
      type: 'javascript',
      value: 'output.length > 3',
    });
    assert.deepEqual(assertionFromString('fn:x'), { type: 'javascript', value: 'x' });
    assert.deepEqual(assertionFromString('eval:x'), { type: 'javascript', value: 'x' });
    // promptfoo strips `file://` from script files (which then run as inline code and always fail,
    // §10 #9); assay keeps it so the file runs.
    assert.deepEqual(assertionFromString('file://check.js'), {
      type: 'javascript',
      value: 'file://check.js',
    });
    assert.deepEqual(assertionFromString('file://check.mjs:grade'), {
      type: 'javascript',
      value: 'file://check.mjs:grade',
    });
    assert.deepEqual(assertionFromString('grade: be nice'), { type: 'llm-rubric', value: ' be nice' });
    assert.deepEqual(assertionFromString('llm-rubric:x'), { type: 'llm-rubric', value: 'x' });
    assert.deepEqual(assertionFromString('python: x == 1'), { type: 'python', value: 'x == 1' });
    assert.deepEqual(assertionFromString('file://check.py:fn'), {
      type: 'python',
      value: 'file://check.py:fn',
    });
    assert.deepEqual(assertionFromString('file://check.py'), { type: 'python', value: 'file://check.py' });
    // A file that is no script stays an `equals` value.
    assert.deepEqual(assertionFromString('file://data.json'), { type: 'equals', value: 'file://data.json' });
  });

  it('parses types, thresholds and values', () => {
    // §11 #2, #3: threshold types default to 0.75, `similar` to 0.8.
    assert.deepEqual(assertionFromString('latency:500'), { type: 'latency', value: '500', threshold: 0.75 });
    assert.deepEqual(assertionFromString('levenshtein:hello'), {
      type: 'levenshtein',
      value: 'hello',
      threshold: 0.75,
    });
    assert.deepEqual(assertionFromString('similar:hi'), { type: 'similar', value: 'hi', threshold: 0.8 });
    assert.deepEqual(assertionFromString('similar(0.6):hi'), {
      type: 'similar',
      value: 'hi',
      threshold: 0.6,
    });
    assert.deepEqual(assertionFromString('similar:cosine:text'), {
      type: 'similar',
      value: 'cosine:text',
      threshold: 0.8,
    });
    // §11 #5
    assert.deepEqual(assertionFromString('similar(.8):hi'), { type: 'equals', value: 'similar(.8):hi' });
    // §11 #6
    assert.deepEqual(assertionFromString('contains-any: a, b ,c'), {
      type: 'contains-any',
      value: ['a', 'b', 'c'],
    });
    assert.deepEqual(assertionFromString('contains-all'), { type: 'contains-all', value: undefined });
    assert.deepEqual(assertionFromString('is-json: {"type":"object"}'), {
      type: 'is-json',
      value: ' {"type":"object"}',
    });
    assert.deepEqual(assertionFromString('is-json'), { type: 'is-json', value: undefined });
    assert.deepEqual(assertionFromString('not-contains: Paris '), { type: 'not-contains', value: 'Paris' });
    assert.deepEqual(assertionFromString('contains:'), { type: 'contains', value: '' });
  });

  it('falls back to equals for anything else', () => {
    assert.deepEqual(assertionFromString('Paris'), { type: 'equals', value: 'Paris' });
    assert.deepEqual(assertionFromString('max-score:x'), { type: 'equals', value: 'max-score:x' });
    assert.deepEqual(assertionFromString('contains-foo:x'), { type: 'equals', value: 'contains-foo:x' });
  });

  it('parses a repeated cell once: rows share one frozen assertion, positioned by the row', async () => {
    const suite = await loadText(CONFIG, {
      't.csv':
        'q,__expected1,__expected2,__metric\na,contains:a,"icontains-any:x, y",\nb,contains:b,"icontains-any:x, y",\nc,contains:c,"icontains-any:x, y",m\n',
    });
    const [a, b, c] = suite.cases;
    assert.equal(a.asserts[1], b.asserts[1]);
    assert.ok(Object.isFrozen(a.asserts[1]) && Object.isFrozen(a.asserts[1].value));
    assert.deepEqual(plain([a.asserts[1]]), [{ type: 'icontains-any', value: ['x', 'y'] }]);
    assert.equal(a.asserts[1].source, undefined);
    // A different metric is a different assertion.
    assert.notEqual(c.asserts[1], a.asserts[1]);
    assert.deepEqual(plain(c.asserts), [
      { type: 'contains', value: 'c', metric: 'm' },
      { type: 'icontains-any', value: ['x', 'y'], metric: 'm' },
    ]);
    assert.deepEqual(
      suite.cases.map((k) => k.provenance?.source?.line),
      [2, 3, 4],
    );
  });

  it('reports a bad repeated cell on every row, at the row', async () => {
    const diags = await errorsOf(CONFIG, {
      't.csv': 'q,__expected\na,contains:file://missing.json\nb,contains:file://missing.json\n',
    });
    assert.deepEqual(
      diags.map((d) => d.line),
      [2, 3],
    );
    assert.equal(diags[0].message, diags[1].message.replace('tests[1]', 'tests[0]'));
  });
});
