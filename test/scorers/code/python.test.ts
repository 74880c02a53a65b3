import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { AssertionSpec } from '../../../src/core/types.js';
import { closePythonWorker } from '../../../src/scorers/code/index.js';
import { pythonScript } from '../../../src/scorers/code/python.js';
import { getScorer } from '../../../src/scorers/registry.js';
import { ps, score, scoreWith } from './support.js';

after(() => closePythonWorker());

const py = (value: unknown, extra: Partial<AssertionSpec> = {}): AssertionSpec => ({
  type: 'python',
  value,
  ...extra,
});
/** A file function returning vars.result, so any JSON value can be fed to the normalisation. */
const returning = (result: unknown, extra: Partial<AssertionSpec> = {}) =>
  score(py('file://asserts.py:returns', extra), 'x', { vars: { result } });

describe('python: result normalisation (§5.3)', () => {
  it('boolean: pass is the value, negated by not-; score 1/0', async () => {
    assert.deepEqual(ps(await score(py('True'), 'x')), { pass: true, score: 1 });
    const f = await score(py('False'), 'x');
    assert.deepEqual(f, { pass: false, score: 0, reason: 'Python code returned false\nFalse' });
    assert.deepEqual(ps(await score(py('True', { negate: true }), 'x')), { pass: false, score: 0 });
    assert.deepEqual(ps(await score(py('False', { negate: true }), 'x')), { pass: true, score: 1 });
  });

  it('the strings "true" and "false" (any case) are booleans', async () => {
    assert.deepEqual(ps(await score(py("'true'"), 'x')), { pass: true, score: 1 });
    assert.deepEqual(ps(await score(py("'TRUE'"), 'x')), { pass: true, score: 1 });
    assert.deepEqual(ps(await score(py("'False'"), 'x')), { pass: false, score: 0 });
    assert.deepEqual(ps(await returning('true', { negate: true })), { pass: false, score: 0 });
  });

  it('number: > 0 without threshold, ≥ threshold with one; never inverted', async () => {
    assert.deepEqual(ps(await score(py('0.5'), 'x')), { pass: true, score: 0.5 });
    assert.deepEqual(ps(await score(py('0'), 'x')), { pass: false, score: 0 });
    assert.deepEqual(ps(await score(py('0.5', { threshold: 0.6 }), 'x')), { pass: false, score: 0.5 });
    assert.deepEqual(ps(await score(py('0.7', { threshold: 0.6 }), 'x')), { pass: true, score: 0.7 });
    assert.deepEqual(ps(await score(py('0.5', { negate: true }), 'x')), { pass: false, score: 0.5 });
    assert.deepEqual(ps(await score(py('len(output)'), 'abc')), { pass: true, score: 3 });
  });

  it('numeric strings are numbers (parsed leniently, as parseFloat does)', async () => {
    assert.deepEqual(ps(await score(py("'0.8'"), 'x')), { pass: true, score: 0.8 });
    assert.deepEqual(ps(await returning('0.5 points', { threshold: 0.6 })), { pass: false, score: 0.5 });
  });

  it('GradingResult dicts: the threshold applies (unlike JavaScript); not- flips pass only', async () => {
    const result = { pass: true, score: 0.1, reason: 'r' };
    assert.deepEqual(await returning(result), { pass: true, score: 0.1, reason: 'r' });
    assert.deepEqual(await returning(result, { threshold: 0.5 }), {
      pass: false,
      score: 0.1,
      reason: 'Python score 0.1 is less than threshold 0.5: r',
    });
    assert.deepEqual(await returning({ pass: true, score: 0.9, reason: 'r' }, { negate: true }), {
      pass: false,
      score: 0.9,
      reason: 'Python code returned true',
    });
    // The threshold fails the object first; not- then turns that failure into a pass.
    assert.deepEqual(ps(await returning(result, { threshold: 0.5, negate: true })), {
      pass: true,
      score: 0.1,
    });
  });

  it('maps snake_case keys (pass_, named_scores, component_results)', async () => {
    const r = await score(py('file://asserts.py:snake'), 'x');
    // The snake_case originals stay in the result beside their camelCase copies, as in promptfoo
    // (its JSON output shows them; assay keeps them as the script's own fields).
    assert.deepEqual(r, {
      pass: true,
      score: 0.7,
      reason: 'snake',
      namedScores: { style: 0.7 },
      details: { scriptFields: { pass_: true, named_scores: { style: 0.7 } } },
    });
    const nested = await returning({
      pass: true,
      score: 1,
      reason: 'r',
      component_results: [{ pass_: false, score: 0, reason: 'c' }],
    });
    assert.deepEqual(nested.componentResults, [{ pass_: false, pass: false, score: 0, reason: 'c' }]);
  });

  it('a string starting with { is parsed as a JSON object', async () => {
    const r = await score(py('\'{"pass": true, "score": 0.9, "reason": "from json"}\''), 'x');
    assert.deepEqual(r, { pass: true, score: 0.9, reason: 'from json' });
    const bad = await score(py("'{not json'"), 'x');
    assert.match(
      bad.reason,
      /^Python code execution failed: Invalid JSON: SyntaxError: .* when parsing result: \{not json$/,
    );
  });

  it('anything else fails with "Python code execution failed" and score 0', async () => {
    for (const code of ["'maybe'", '[True]', "{'pass': True, 'score': 1}", 'None', 'object()']) {
      const r = await score(py(code), 'x');
      assert.deepEqual(ps(r), { pass: false, score: 0 }, code);
      assert.match(r.reason, /^Python code execution failed: /, code);
    }
    assert.equal(
      (await score(py("'maybe'"), 'x')).reason,
      'Python code execution failed: Python assertion must return a boolean, number, or {pass, score, reason} object. Instead got:\nmaybe',
    );
    // A multi-line body without `return` returns None; the message says why.
    assert.match(
      (await score(py('x = 1\nx == 1'), 'x')).reason,
      /Instead got:\nNone \(a multi-line Python assertion must `return`/,
    );
    assert.equal(
      (await score(py("float('nan')"), 'x')).reason,
      'Python code execution failed: the result contains NaN or Infinity, which JSON cannot carry',
    );
    assert.equal((await score(py("'maybe'", { negate: true }), 'x')).pass, false);
  });
});

describe('python: compatibility case §11 #29', () => {
  it('{pass: True, score: 0.1} with threshold 0.5 fails in Python', async () => {
    const o = await scoreWith([py("{'pass': True, 'score': 0.1, 'reason': 'r'}", { threshold: 0.5 })], 'out');
    assert.deepEqual([o.status, o.score], ['fail', 0.1]);
  });
});

describe('python: inline code', () => {
  it('wraps one line as `return <expr>` and indents several lines into main', () => {
    assert.equal(
      pythonScript("output == 'x'"),
      "import json\n\ndef main(output, context):\n    return output == 'x'\n",
    );
    assert.equal(
      pythonScript('if output:\n  return True\nreturn False'),
      'import json\n\ndef main(output, context):\n  if output:\n    return True\n  return False\n',
    );
  });

  it('runs expressions and bodies, with json imported', async () => {
    assert.equal((await score(py("json.loads(output)['a'] == 1"), '{"a": 1}')).pass, true);
    const body = 'words = output.split()\nif len(words) > 2:\n    return True\nreturn False\n';
    assert.equal((await score(py(body), 'one two three')).pass, true);
    assert.equal((await score(py(body), 'one two')).pass, false);
  });

  it('receives object outputs as dicts, and the context', async () => {
    assert.equal((await score(py("output['answer'] == 42"), { answer: 42 })).pass, true);
    const r = await score(py("context['vars']['q'] == 'hi' and context['prompt'] == 'say hi'"), 'x', {
      vars: { q: 'hi' },
      prompt: 'say hi',
    });
    assert.equal(r.pass, true);
    const keys = await score(py('file://asserts.py:context_keys', { options: { config: { k: 1 } } }), 'x', {
      provider: { id: 'echo', config: {} },
      response: { finishReason: 'stop' },
    });
    assert.equal(keys.reason, 'config,prompt,provider,providerResponse,test,vars');
    assert.deepEqual(keys.namedScores, { provider: 1 });
  });

  it('an error in user code is a failed verdict with the Python message and where it happened', async () => {
    const r = await score(py('1 / 0'), 'x');
    assert.deepEqual(r, {
      pass: false,
      score: 0,
      reason:
        'Python code execution failed: ZeroDivisionError: division by zero\nFile "inline code", line 1, in main',
    });
    const multi = await score(py("x = 1\ny = {}\nreturn y['missing']"), 'x');
    assert.equal(
      multi.reason,
      'Python code execution failed: KeyError: \'missing\'\nFile "inline code", line 3, in main',
    );
    const o = await scoreWith([py('undefined_name')], 'x');
    assert.equal(o.status, 'fail');
    assert.match(o.reason, /^Python code execution failed: NameError: name 'undefined_name' is not defined/);
  });

  it('checks Python syntax when the code runs (reported with the user’s line number)', async () => {
    assert.equal(getScorer('python')?.validate?.(py('this is not python')), undefined);
    const r = await score(py('x = 1\nreturn (x'), 'x');
    assert.equal(r.pass, false);
    assert.match(r.reason, /^Python code execution failed: SyntaxError: .* \(line 2\)$/);
  });

  it('print() in user code does not disturb the protocol', async () => {
    assert.equal((await score(py("print('hello') or True"), 'x')).pass, true);
    assert.equal((await score(py('file://asserts.py:noisy'), 'x')).pass, true);
  });

  it('needs non-empty text', () => {
    const validate = getScorer('python')?.validate;
    assert.equal(validate?.(py(undefined)), 'python needs a value: inline code or file://path');
    assert.equal(validate?.(py('', { negate: true })), 'not-python needs code, got an empty string');
    assert.equal(
      validate?.(py(['x'])),
      '"python" needs a string value (inline code or file://path), got an array',
    );
  });
});

describe('python: file:// scripts', () => {
  it('calls get_assert by default (sibling modules importable)', async () => {
    assert.equal((await score(py('file://asserts.py'), 'ok then')).pass, true);
    const r = await score(py('file://asserts.py'), 'not ok');
    assert.deepEqual(r, { pass: false, score: 0, reason: 'Python code returned false\nfile://asserts.py' });
  });

  it('calls a named function, a static method, or an async def', async () => {
    assert.deepEqual(ps(await score(py('file://asserts.py:score_of'), 'x', { vars: { score: 0.4 } })), {
      pass: true,
      score: 0.4,
    });
    assert.equal((await score(py('file://asserts.py:Grader.check'), 'method')).pass, true);
    assert.equal((await score(py('file://asserts.py:later'), 'async')).pass, true);
    assert.equal((await score(py('file://asserts.py:dict_output'), { answer: 42 })).pass, true);
  });

  it('errors, a missing function and a broken file fail the assertion with the message', async () => {
    const raised = await score(py('file://asserts.py:raises'), 'x');
    assert.deepEqual(ps(raised), { pass: false, score: 0 });
    assert.match(
      raised.reason,
      /^Error running Python script file:\/\/asserts\.py: KeyError: 'b'\nFile "asserts\.py", line \d+, in raises$/,
    );
    const missing = await score(py('file://asserts.py:nope'), 'x');
    assert.equal(
      missing.reason,
      "Error running Python script file://asserts.py: AttributeError: asserts.py has no function 'nope'",
    );
    const syntax = await score(py('file://bad_syntax.py'), 'x');
    assert.match(syntax.reason, /^Error running Python script file:\/\/bad_syntax\.py: SyntaxError: /);
    const gone = await score(py('file://gone.py'), 'x');
    assert.match(gone.reason, /^Error running Python script file:\/\/gone\.py: FileNotFoundError: /);
  });

  it('a python assertion naming a JavaScript file runs it and reads the result by Python’s rules', async () => {
    assert.deepEqual(ps(await score(py('file://common.cjs'), 'cjs')), { pass: true, score: 1 });
  });
});
