import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { eweQuality } from '../../../src/formats/ewebench/ewe-quality.js';
import { fixture } from '../../support/paths.js';
import { scoreTest, unitCaseTest } from './helpers.js';

interface UnitCase {
  method: string;
  args: unknown[];
  score: number;
  note: string;
}

const { unit_cases: unitCases } = JSON.parse(
  readFileSync(fixture('ewebench', 'unit-cases.json'), 'utf8'),
) as {
  unit_cases: UnitCase[];
};

describe('ÈwéBench scoring: every golden unit case, through the case pipeline', () => {
  it('has the 30 golden cases', () => assert.equal(unitCases.length, 30));
  for (const [i, u] of unitCases.entries()) {
    it(`#${i + 1} ${u.method} ${JSON.stringify(u.args)} → ${u.score}${u.note ? ` (${u.note})` : ''}`, async () => {
      const { test, response } = unitCaseTest(u.method, u.args);
      const outcome = await scoreTest(test, response);
      assert.notEqual(outcome.status, 'error', outcome.reason);
      // Bit-for-bit: 0.9500000000000001 is not 0.95.
      assert.ok(Object.is(outcome.score, u.score), `got ${outcome.score}, want ${u.score}`);
    });
  }
});

describe('ÈwéBench scoring: rules beyond the golden cases', () => {
  it('composite is (keywords + ewe_quality + format) / 3 summed in that order', async () => {
    const response = 'Ɖe nye ŋkɔ? Mele afi sia. Ame nyo.';
    const outcome = await scoreTest(
      {
        eval_method: 'composite',
        expected_keywords: ['nye', 'absent'],
        expected_format: { contains_ewe: true, min_length: 500 },
      },
      response,
    );
    const want = (0.5 + eweQuality(response).score + (1 + 0) / 2) / 3;
    assert.ok(Object.is(outcome.score, want));
  });

  it('a test passes on its score rounded to 3 decimals: 0.6995 → 0.7 passes, 0.699 fails', async () => {
    const keywords = Array.from({ length: 2000 }, (_, i) => `k${i}|`);
    const found = (n: number): string => keywords.slice(0, n).join(' ');
    const near = await scoreTest({ eval_method: 'keywords', expected_keywords: keywords }, found(1399));
    assert.equal(near.score, 0.6995);
    assert.equal(near.status, 'pass');
    const below = await scoreTest({ eval_method: 'keywords', expected_keywords: keywords }, found(1398));
    assert.equal(below.status, 'fail');
  });

  it('an unknown eval_method is scored as ewe_quality', async () => {
    const response = 'Ɖe nye ŋkɔ? Mele afi sia. Ame nyo.';
    const outcome = await scoreTest({ eval_method: 'bleu' }, response);
    assert.ok(Object.is(outcome.score, 0.9500000000000001));
  });

  it('a missing eval_method means keywords', async () => {
    const outcome = await scoreTest({ expected_keywords: ['ga', 'fufu', 'abc', 'def'] }, 'Ga fufu');
    assert.equal(outcome.score, 0.5);
  });

  it('exact_match with no expected is an error saying why, in both modes', async () => {
    for (const mode of ['compat', 'fixed'] as const) {
      const outcome = await scoreTest(
        { eval_method: 'exact_match', expected_keywords: ['50 CFA'] },
        '50 CFA',
        mode,
      );
      assert.equal(outcome.status, 'error');
      assert.match(outcome.reason, /no "expected".*KeyError/);
    }
  });

  it('contains_function_call: false is scored like true in compat mode and honoured in fixed mode', async () => {
    const test = {
      eval_method: 'format',
      expected_format: { contains_function_call: false, contains_ewe: true },
    };
    const compat = await scoreTest(test, 'Nu ka nèdi?', 'compat');
    const fixed = await scoreTest(test, 'Nu ka nèdi?', 'fixed');
    assert.equal(compat.score, 0);
    assert.equal(fixed.score, 0.5); // no call: honoured; no Ewe marker in "nu ka nèdi?"
    const called = await scoreTest(test, '<function_call>get_weather()</function_call> ɖe', 'fixed');
    assert.equal(called.score, 0.5);
  });

  it('contains_ewe: false is honoured in fixed mode only', async () => {
    const test = { eval_method: 'format', expected_format: { contains_ewe: false } };
    assert.equal((await scoreTest(test, 'Bonjour', 'compat')).score, 0);
    assert.equal((await scoreTest(test, 'Bonjour', 'fixed')).score, 1);
  });

  it('a format test with only unknown keys scores 0', async () => {
    const outcome = await scoreTest(
      { eval_method: 'format', expected_format: { no_french: true } },
      'anything',
    );
    assert.equal(outcome.score, 0);
    assert.equal(outcome.status, 'fail');
  });

  it('multiple_choice accepts the letter in the first 5 characters, as a word, or before ) or .', async () => {
    const mc = (expected: string, response: string) =>
      scoreTest({ eval_method: 'multiple_choice', expected }, response);
    assert.equal((await mc('b', '  la réponse est b.')).score, 1);
    assert.equal((await mc('C', 'Je choisis XC)')).score, 1);
    assert.equal((await mc('C', 'Je choisis ABC')).score, 1); // the tool's false positive: "JE CH" holds C
    assert.equal((await mc('C', 'Nous optons ABC')).score, 0);
  });

  it('multiple_choice interpolates the answer unescaped into Python regexes in compat mode, as the tool does', async () => {
    const mc = (expected: string, response: string, mode: 'compat' | 'fixed' = 'compat') =>
      scoreTest({ eval_method: 'multiple_choice', expected }, response, mode);
    // Expected values checked with python3 against the tool's evaluate_multiple_choice.
    assert.equal((await mc('A.', 'zzzzzz AB')).score, 1); // `.` matches any character
    assert.equal((await mc('A.', 'zzzzzz AB', 'fixed')).score, 0);
    assert.equal((await mc('a|b', 'zzzzzz b')).score, 1); // \bA|B\b
    assert.equal((await mc('c++', 'zzzzzz ccc')).score, 1); // C++ is a possessive C+ (Python 3.11)
    assert.equal((await mc('A(', 'A( zzz')).score, 1); // found in the first 5 characters before any regex
    const broken = await mc('A(', 'zzzzzz A(');
    assert.equal(broken.status, 'error');
    assert.match(broken.error ?? '', /re\.error: missing \), unterminated subpattern at position 3/);
    assert.equal((await mc('A(', 'zzzzzz A(', 'fixed')).score, 1);
  });

  it('markdown headers need 1–3 # then whitespace at a line start, as Python re.MULTILINE sees lines', async () => {
    const md = (response: string) =>
      scoreTest({ eval_method: 'format', expected_format: { markdown_elements: ['header'] } }, response);
    assert.equal((await md('intro\n## Title')).score, 1);
    assert.equal((await md('###\nnext')).score, 1); // \s matches the newline
    assert.equal((await md('intro\r## Title')).score, 0); // Python's ^ only follows \n
    assert.equal((await md('\ufeff# x')).score, 0);
    assert.equal((await md('#\u001ftitle')).score, 1); // U+001F is whitespace to Python
  });

  it('keywords are case-insensitive substrings; duplicates count twice', async () => {
    const outcome = await scoreTest(
      { eval_method: 'keywords', expected_keywords: ['ga', 'ga', 'xyz'] },
      'GAGA',
    );
    assert.ok(Object.is(outcome.score, 2 / 3));
  });
});
