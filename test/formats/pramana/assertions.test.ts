import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Case, Message, Suite } from '../../../src/core/types.js';
import { type CaseOutcome, scoreCase } from '../../../src/engine/score.js';
import { loadSuite } from '../../../src/formats/detect.js';
import { type Grader, GraderError } from '../../../src/scorers/types.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

// pramana's assertion rules (spec §3) and the cases the spec singles out (§6), judged through the
// engine's scoring of the loaded cases, exactly as a run scores a model's reply.
const cases = new Map<string, Case>();

before(async () => {
  const suite = await loadSuite(fixture('pramana', 'v1.0'), { tiers: ['all'] });
  for (const c of suite.cases) cases.set(String(c.metadata.pramana_id), c);
});

function judged(c: Case, output: string, grader?: Grader): Promise<CaseOutcome> {
  return scoreCase(c, {
    output,
    outputValue: output,
    vars: c.vars,
    prompt: '',
    response: {},
    test: { description: c.description, metadata: c.metadata },
    grader: async () => grader,
  });
}

async function check(
  id: string,
  output: string,
  status: string,
  details?: Record<string, unknown>,
): Promise<void> {
  const c = cases.get(id);
  assert.ok(c, id);
  const outcome = await judged(c, output);
  assert.equal(outcome.status, status, `${id} on ${JSON.stringify(output)}: ${outcome.reason}`);
  if (details) assert.deepEqual(outcome.verdicts[0].details, details);
}

/** A one-test suite of our own, for rules no shipped test exercises. */
async function synthetic(fields: Record<string, unknown>): Promise<Case> {
  const { dir, cleanup } = tempDir();
  try {
    const file = join(dir, 'synthetic.jsonl');
    const test = {
      id: 's-1',
      category: 'factual',
      input: 'q',
      ideal: null,
      assertion: { type: 'contains' },
      metadata: { difficulty: 'easy', tokens_est: 1 },
      ...fields,
    };
    writeFileSync(file, `${JSON.stringify(test)}\n`);
    const suite: Suite = await loadSuite(file);
    return suite.cases[0];
  } finally {
    cleanup();
  }
}

describe('exact_match', () => {
  it('is case-sensitive by default and strips both sides (cheap-003, moderate-003)', async () => {
    await check('cheap-003', '  SUCCESS\n', 'pass', { expected: 'SUCCESS', got: 'SUCCESS' });
    await check('cheap-003', 'success', 'fail', { expected: 'SUCCESS', got: 'success' });
    await check('moderate-003', 'SUCCESS.', 'fail');
  });

  it('uses only the first item of a list ideal (comp-049, comp-067)', async () => {
    await check('comp-049', 'XXXXX', 'pass', { expected: 'XXXXX', got: 'XXXXX' });
    await check('comp-067', 'hello', 'pass');
    await check('comp-067', 'HELLO', 'fail', { expected: 'hello', got: 'HELLO' });
  });

  it("strips as Python's str.strip does: U+0085 and U+001C go, U+FEFF stays", async () => {
    await check('cheap-003', '\u0085SUCCESS\u001c', 'pass');
    await check('cheap-003', '\ufeffSUCCESS', 'fail');
  });

  it('lowercases both sides when case-insensitive, reporting the normalised forms', async () => {
    const c = await synthetic({
      ideal: ' Straße ',
      assertion: { type: 'exact_match', case_sensitive: false },
    });
    const outcome = await judged(c, 'STRASSE');
    assert.equal(outcome.status, 'fail', '"STRASSE" lowercases to "strasse", not "straße"');
    const ok = await judged(c, 'straße\n');
    assert.equal(ok.status, 'pass');
    assert.deepEqual(ok.verdicts[0].details, { expected: 'straße', got: 'straße' });
  });
});

describe('contains', () => {
  it('uses the first item of a single-item list (cheap-001, case-insensitive)', async () => {
    await check('cheap-001', 'The answer is 6.', 'pass', { search_term: '6' });
    await check('cheap-001', 'The answer is eight.', 'fail', { search_term: '6' });
  });

  it('is case-sensitive by default ("1912", "Au", "9")', async () => {
    await check('cheap-007', 'It sank in 1912.', 'pass');
    await check('comp-017', 'The symbol is Au.', 'pass');
    await check('comp-017', 'The symbol is AU.', 'fail', { search_term: 'Au' });
    await check('comp-023', '9 sheep are left.', 'pass');
  });

  it('matches a multi-line ideal in the raw output (moderate-025, comp-025)', async () => {
    await check('moderate-025', '1\n2\n3\n4\n5', 'pass', { search_term: '1\n2\n3\n4\n5' });
    await check('comp-025', 'Here:\n1\n2\n3\n4\n5\n', 'pass');
    await check('comp-025', '1 2 3 4 5', 'fail');
    await check('comp-025', '1\r\n2\r\n3\r\n4\r\n5', 'fail');
  });

  it('passes almost anything where the assertion is weak, as pramana does (comp-058, comp-046)', async () => {
    await check('comp-058', 'It is 2026.', 'pass');
    await check('comp-046', 'The smallest prime is 2.', 'pass');
    await check('comp-046', 'Twenty-three is prime, and so is 2', 'pass');
  });

  it('passes with an empty term, and nothing is stripped from the output', async () => {
    const empty = await synthetic({ ideal: '', assertion: { type: 'contains' } });
    assert.equal((await judged(empty, 'anything')).status, 'pass');
    const spaced = await synthetic({ ideal: ' x ', assertion: { type: 'contains' } });
    assert.equal((await judged(spaced, 'x')).status, 'fail');
  });
});

describe('contains_any', () => {
  it('returns the first term in list order that matches (cheap-005: a quote inside a term)', async () => {
    await check('cheap-005', "Sorry, I can't help with that.", 'pass', { matched_term: "can't" });
    await check('cheap-005', 'Here is how.', 'fail', {
      terms: ['cannot', "can't", 'unable', 'sorry', "I'm not able", 'not appropriate'],
    });
    await check('comp-043', "You don't bury survivors.", 'pass', { matched_term: "don't" });
  });

  it('matches "no" inside other words, case-insensitively (cheap-006)', async () => {
    await check('cheap-006', 'I know the answer: yes.', 'pass', { matched_term: 'no' });
    await check('cheap-006', 'Yes, definitely.', 'fail');
  });

  it('is case-sensitive when told so, with a backslash term (moderate-021, comp-021)', async () => {
    await check('moderate-021', 'Use \\w+ then a dot', 'pass', { matched_term: '\\w' });
    await check('moderate-021', 'USE \\W+', 'fail');
    await check('comp-021', 'x@y', 'pass', { matched_term: '@' });
  });

  it('matches non-ASCII terms, written escaped or raw (moderate-020, comp-037)', async () => {
    await check('moderate-020', 'HOLA, ¿CÓMO ESTÁS?', 'pass', { matched_term: 'Hola, ¿cómo estás?' });
    await check('comp-037', 'A² + B² = C²', 'pass', { matched_term: 'a² + b² = c²' });
  });

  it("lowercases with Python's tables: a letter Python does not case-map stays as it is", async () => {
    // U+1C89 has a lowercase form (U+1C8A) only since Unicode 16; Python 3.11–3.13 keeps it.
    const c = await synthetic({
      ideal: ['\u1c89'],
      assertion: { type: 'contains_any', case_sensitive: false },
    });
    assert.equal((await judged(c, '\u1c8a')).status, 'fail');
    assert.equal((await judged(c, '\u1c89')).status, 'pass');
  });

  it('wraps a string ideal as one term; an empty list fails without error', async () => {
    const one = await synthetic({ ideal: 'a, b', assertion: { type: 'contains_any' } });
    assert.equal((await judged(one, 'a')).status, 'fail', 'no comma splitting');
    assert.equal((await judged(one, 'xa, by')).status, 'pass');
    const none = await synthetic({ ideal: [], assertion: { type: 'contains_any' } });
    const outcome = await judged(none, 'anything');
    assert.equal(outcome.status, 'fail');
    assert.deepEqual(outcome.verdicts[0].details, { terms: [] });
  });
});

describe('where pramana stops the run, assay records an error with its reason', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ideal: null, assertion: { type: 'exact_match' } }, /exact_match requires ideal value$/],
    [{ ideal: null, assertion: { type: 'contains' } }, /contains requires ideal value$/],
    [
      { ideal: null, assertion: { type: 'contains_any' } },
      /contains_any requires ideal value \(got: None, type: <class 'NoneType'>\)$/,
    ],
    [{ ideal: [], assertion: { type: 'exact_match' } }, /list index out of range$/],
    [{ ideal: [], assertion: { type: 'contains' } }, /list index out of range$/],
    [{ assertion: { type: 'llm_judge' } }, /llm_judge requires judge_prompt for test s-1$/],
    [{ assertion: { type: 'llm_judge', judge_prompt: '' } }, /llm_judge requires judge_prompt for test s-1$/],
  ];
  for (const [fields, reason] of cases) {
    it(`${JSON.stringify(fields)}`, async () => {
      const outcome = await judged(await synthetic(fields), 'some output', fakeGrader(['YES']).grader);
      assert.equal(outcome.status, 'error');
      assert.match(outcome.error ?? '', reason);
    });
  }
});

describe('is_json', () => {
  const vectors: [string, string, Record<string, unknown>][] = [
    ['{"status": "ok"}', 'pass', { parsed: true, type: 'dict' }],
    ['```json\n{"status": "ok"}\n```', 'pass', { parsed: true, type: 'dict' }],
    ['{"a":1}```', 'pass', { parsed: true, type: 'dict' }],
    ['```{"a":1}```', 'fail', { error: 'Extra data: line 1 column 8 (char 7)' }],
    ['Here it is:\n```json\n{}\n```', 'fail', { error: 'Expecting value: line 1 column 1 (char 0)' }],
    ['```json\n```json\n{}\n```\n```', 'fail', { error: 'Expecting value: line 1 column 1 (char 0)' }],
    ['42', 'pass', { parsed: true, type: 'int' }],
    ['  "x"  ', 'pass', { parsed: true, type: 'str' }],
    ['null', 'pass', { parsed: true, type: 'NoneType' }],
    ['NaN', 'pass', { parsed: true, type: 'float' }],
    ['[1, 2,]', 'fail', { error: 'Expecting value: line 1 column 7 (char 6)' }],
  ];
  for (const [output, status, details] of vectors) {
    it(`${JSON.stringify(output)} → ${status}`, () => check('cheap-008', output, status, details));
  }

  // json.loads raises ValueError / RecursionError here (python3 3.11), not JSONDecodeError:
  // pramana does not catch them, so its run stops; assay records an error for that test.
  const aborts: [string, string, RegExp][] = [
    [
      'a 5000-digit integer',
      '1'.repeat(5000),
      /ValueError: Exceeds the limit \(4300 digits\) for integer string conversion: value has 5000 digits/,
    ],
    ['a 4301-digit negative integer', `[-${'9'.repeat(4301)}]`, /value has 4301 digits/],
    [
      'arrays nested 996 deep',
      `${'['.repeat(996)}${']'.repeat(996)}`,
      /RecursionError: maximum recursion depth exceeded while decoding a JSON array/,
    ],
    [
      'objects nested 996 deep',
      `${'{"a":'.repeat(996)}1${'}'.repeat(996)}`,
      /RecursionError: .* JSON object/,
    ],
  ];
  for (const [name, output, reason] of aborts) {
    it(`${name} → error (Python raises; pramana stops)`, async () => {
      const outcome = await judged(cases.get('cheap-008')!, output);
      assert.equal(outcome.status, 'error');
      assert.match(outcome.error ?? '', reason);
    });
  }
  it('the limits themselves still parse: 4300 digits, 995 levels, a 5000-digit float', async () => {
    await check('cheap-008', '1'.repeat(4300), 'pass');
    await check('cheap-008', `${'['.repeat(995)}${']'.repeat(995)}`, 'pass');
    await check('cheap-008', `${'1'.repeat(5000)}.0`, 'pass');
  });
});

function fakeGrader(replies: string[], opts: { fail?: boolean; embed?: Grader['embed'] } = {}) {
  const calls: { messages: Message[]; params?: Record<string, unknown> }[] = [];
  let i = 0;
  const grader: Grader = {
    id: 'fake-judge',
    async complete(messages, params) {
      calls.push({ messages, params });
      if (opts.fail) throw new GraderError('grader fake-judge failed: HTTP 500');
      return { output: replies[i++ % replies.length] };
    },
  };
  if (opts.embed) grader.embed = opts.embed;
  return { grader, calls };
}

describe('llm_judge', () => {
  it("asks with pramana's system prompt, prompt layout, temperature 0 and seed 42", async () => {
    const { grader, calls } = fakeGrader(['YES']);
    const outcome = await judged(cases.get('cheap-010')!, 'Code flows like water\n…', grader);
    assert.equal(outcome.status, 'pass');
    assert.deepEqual(calls[0].messages, [
      {
        role: 'system',
        content:
          "You are an evaluation judge. Given a model output and a question about it, respond with ONLY 'YES' or 'NO'. Do not explain.",
      },
      {
        role: 'user',
        content:
          'Model output:\nCode flows like water\n…\n\nQuestion: Does this text contain exactly 3 lines following 5-7-5 syllable pattern?',
      },
    ]);
    assert.deepEqual(calls[0].params, { temperature: 0, seed: 42, max_completion_tokens: 1000 });
    assert.deepEqual(outcome.verdicts[0].details, {
      judge_prompt: 'Does this text contain exactly 3 lines following 5-7-5 syllable pattern?',
      judge_verdict: 'YES',
    });
  });

  it('passes when the stripped, uppercased reply starts with YES, whatever follows', async () => {
    const verdicts: [string, string][] = [
      ['Yes.', 'pass'],
      ['  yes, it is\n', 'pass'],
      ['yesterday', 'pass'],
      ['**YES**', 'fail'],
      ['"YES"', 'fail'],
      ['The answer is YES', 'fail'],
      ['NO', 'fail'],
      ['', 'fail'],
    ];
    for (const [reply, status] of verdicts) {
      const { grader } = fakeGrader([reply]);
      const outcome = await judged(cases.get('cheap-010')!, 'a haiku', grader);
      assert.equal(outcome.status, status, reply);
    }
  });

  it('does not substitute placeholders found in the output', async () => {
    const { grader, calls } = fakeGrader(['NO']);
    await judged(cases.get('cheap-010')!, 'see {question}', grader);
    assert.match(String(calls[0].messages[1].content), /^Model output:\nsee \{question\}\n\n/);
  });

  it('a judge that cannot answer makes the test an error, not a failure', async () => {
    const { grader } = fakeGrader([], { fail: true });
    const outcome = await judged(cases.get('cheap-010')!, 'a haiku', grader);
    assert.equal(outcome.status, 'error');
    assert.match(outcome.error ?? '', /fake-judge failed: HTTP 500/);
  });
});

describe('semantic_similarity', () => {
  const unit = (text: string): number[] =>
    text.includes('Paris') ? [1, 0] : text.includes('France') ? [0.8, 0.6] : [0, 1];
  const embed = async (texts: string[]): Promise<number[][]> => texts.map(unit);

  it('is skipped, with the reason, when the grader offers no embeddings (pramana skips it always)', async () => {
    const c = await synthetic({
      ideal: ['Paris'],
      assertion: { type: 'semantic_similarity', threshold: 0.9 },
    });
    const outcome = await judged(c, 'Paris', fakeGrader(['YES']).grader);
    assert.equal(outcome.status, 'skip');
    assert.match(outcome.reason, /no embeddings: fake-judge offers none/);
  });

  it('scores the cosine against the closest ideal, passing at the threshold', async () => {
    const c = await synthetic({
      ideal: ['Nowhere', 'Paris'],
      assertion: { type: 'semantic_similarity', threshold: 0.9 },
    });
    const { grader } = fakeGrader([], { embed });
    const pass = await judged(c, 'It is Paris', grader);
    assert.equal(pass.status, 'pass');
    assert.deepEqual(pass.verdicts[0].details, { similarity: 1, threshold: 0.9, closest: 'Paris' });
    const fail = await judged(c, 'Somewhere in France', grader);
    assert.equal(fail.status, 'fail');
    assert.ok(Math.abs(fail.verdicts[0].score - 0.8) < 1e-12);
  });

  it('an infinite threshold ("inf", as pydantic reads it) is skipped as pramana skips it, with no non-JSON number anywhere', async () => {
    const c = await synthetic({
      ideal: ['Paris'],
      assertion: { type: 'semantic_similarity', threshold: 'inf' },
    });
    assert.equal(c.asserts[0].threshold, undefined);
    const outcome = await judged(c, 'Paris', fakeGrader([], { embed }).grader);
    assert.equal(outcome.status, 'skip');
    assert.match(outcome.reason, /no similarity threshold given/);
    assert.doesNotMatch(JSON.stringify(outcome.verdicts), /null/);
  });

  it('is skipped without a threshold or without an ideal', async () => {
    const { grader } = fakeGrader([], { embed });
    const noThreshold = await synthetic({ ideal: 'Paris', assertion: { type: 'semantic_similarity' } });
    assert.equal((await judged(noThreshold, 'Paris', grader)).status, 'skip');
    const noIdeal = await synthetic({
      ideal: null,
      assertion: { type: 'semantic_similarity', threshold: 0.5 },
    });
    assert.equal((await judged(noIdeal, 'Paris', grader)).status, 'skip');
  });
});

describe('values are literal text', () => {
  it('a template-looking ideal is matched as written', async () => {
    const c = await synthetic({ ideal: ['{{ name }}'], assertion: { type: 'contains' } });
    assert.equal((await judged(c, 'Vue uses {{ name }} for text')).status, 'pass');
    assert.equal((await judged(c, 'nothing here')).status, 'fail');
  });
});
