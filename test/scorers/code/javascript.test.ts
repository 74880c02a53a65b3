import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { AssertionSpec } from '../../../src/core/types.js';
import { compileInline, inlineBody, singleLineBody } from '../../../src/runtime/js-runtime.js';
import { closePythonWorker } from '../../../src/scorers/code/index.js';
import { getScorer } from '../../../src/scorers/registry.js';
import { ps, score, scoreWith } from './support.js';

after(() => closePythonWorker());

const js = (value: unknown, extra: Partial<AssertionSpec> = {}): AssertionSpec => ({
  type: 'javascript',
  value,
  ...extra,
});
const validate = (spec: AssertionSpec) => getScorer('javascript')?.validate?.(spec);

describe('javascript: result normalisation (§5.3)', () => {
  it('boolean: pass is the value, negated by not-; score 1/0', async () => {
    assert.deepEqual(ps(await score(js('true'), 'x')), { pass: true, score: 1 });
    const f = await score(js('false'), 'x');
    assert.deepEqual(ps(f), { pass: false, score: 0 });
    assert.equal(f.reason, 'Custom function returned false\nfalse');
    const nt = await score(js('true', { negate: true }), 'x');
    assert.deepEqual(ps(nt), { pass: false, score: 0 });
    assert.equal(nt.reason, 'Custom function returned true\ntrue');
    assert.deepEqual(ps(await score(js('false', { negate: true }), 'x')), { pass: true, score: 1 });
  });

  it('number: > 0 without threshold, ≥ threshold with one; the score is never inverted', async () => {
    assert.deepEqual(ps(await score(js('0.5'), 'x')), { pass: true, score: 0.5 });
    assert.deepEqual(ps(await score(js('0'), 'x')), { pass: false, score: 0 });
    assert.deepEqual(ps(await score(js('-1'), 'x')), { pass: false, score: -1 });
    assert.deepEqual(ps(await score(js('0.5', { threshold: 0.6 }), 'x')), { pass: false, score: 0.5 });
    assert.deepEqual(ps(await score(js('0.6', { threshold: 0.6 }), 'x')), { pass: true, score: 0.6 });
    // A threshold of 0 is a threshold (newest promptfoo): 0 ≥ 0 passes.
    assert.deepEqual(ps(await score(js('0', { threshold: 0 }), 'x')), { pass: true, score: 0 });
    assert.deepEqual(ps(await score(js('0.5', { negate: true }), 'x')), { pass: false, score: 0.5 });
    assert.deepEqual(ps(await score(js('0.5', { negate: true, threshold: 0.6 }), 'x')), {
      pass: true,
      score: 0.5,
    });
    const failed = await score(js('0.5', { threshold: 0.6 }), 'x');
    assert.equal(failed.reason, 'Custom function returned false\n0.5');
  });

  it('GradingResult: its pass (flipped by not-), its score, the threshold ignored', async () => {
    const obj = "({pass: true, score: 0.1, reason: 'fine', namedScores: {tone: 0.1, bad: 'x'}})";
    const r = await score(js(obj, { threshold: 0.5 }), 'x');
    assert.deepEqual(r, { pass: true, score: 0.1, reason: 'fine', namedScores: { tone: 0.1 } });
    const neg = await score(js("({pass: true, score: 0.9, reason: 'fine'})", { negate: true }), 'x');
    assert.deepEqual(neg, { pass: false, score: 0.9, reason: 'Custom function returned true' });
    const negFail = await score(js("({pass: false, score: 0.2, reason: 'no'})", { negate: true }), 'x');
    assert.deepEqual(negFail, { pass: true, score: 0.2, reason: 'Assertion passed' });
    const kept = await score(js("({pass: false, score: 0.3, reason: 'too short'})"), 'x');
    assert.deepEqual(kept, { pass: false, score: 0.3, reason: 'too short' });
  });

  it('GradingResult: component results and the script’s own fields are kept for promptfoo’s JSON (as JSON)', async () => {
    const obj =
      "({pass: true, score: 1, reason: 'ok', componentResults: [{pass: false, score: 0, reason: 'c'}], metadata: {k: 1}, extra: 'x'})";
    const r = await score(js(obj), 'x');
    assert.deepEqual(r.details, {
      componentResults: [{ pass: false, score: 0, reason: 'c' }],
      scriptFields: { metadata: { k: 1 }, extra: 'x' },
    });
    // A field the run log could not write (a circular structure) is left out; the verdict stands.
    const circular = await score(
      js("(() => { const m = {}; m.self = m; return {pass: true, score: 1, reason: 'ok', metadata: m}; })()"),
      'x',
    );
    assert.deepEqual(ps(circular), { pass: true, score: 1 });
    assert.equal(circular.details, undefined);
  });

  it('anything else fails the assertion with "Custom function threw error" and score 0', async () => {
    for (const code of [
      "'yes'",
      'null',
      'undefined',
      '[true]',
      'NaN',
      'Infinity',
      '({pass: true, score: 1})',
    ]) {
      const r = await score(js(code), 'x');
      assert.equal(r.pass, false, code);
      assert.equal(r.score, 0, code);
      assert.match(r.reason, /^Custom function threw error: /, code);
    }
    const r = await score(js("'yes'"), 'x');
    assert.equal(
      r.reason,
      'Custom function threw error: Custom function must return a boolean, number, or GradingResult object ({pass: boolean, score: number, reason: string}). Got type string: "yes"\n\'yes\'',
    );
    // The negated form fails too: an invalid result is never a pass.
    assert.equal((await score(js("'yes'", { negate: true }), 'x')).pass, false);
    // A reason is part of a GradingResult, as in promptfoo.
    assert.match(
      (await score(js('({pass: true, score: 1})'), 'x')).reason,
      /Got type object: \{"pass":true,"score":1\}/,
    );
  });
});

describe('javascript: compatibility cases (§11 #28–30)', () => {
  it('#28 numbers: 0.5 passes; 0 fails; 0.5 with threshold 0.6 fails', async () => {
    const a = await scoreWith([js('0.5')], 'out');
    assert.deepEqual([a.status, a.score], ['pass', 0.5]);
    const b = await scoreWith([js('0')], 'out');
    assert.deepEqual([b.status, b.score], ['fail', 0]);
    const c = await scoreWith([js('0.5', { threshold: 0.6 })], 'out');
    assert.deepEqual([c.status, c.score], ['fail', 0.5]);
  });

  it('#29 an object result ignores the threshold', async () => {
    const o = await scoreWith([js("({pass: true, score: 0.1, reason: 'r'})", { threshold: 0.5 })], 'out');
    assert.deepEqual([o.status, o.score], ['pass', 0.1]);
  });

  it('#30 not-javascript flips pass and keeps the score', async () => {
    const o = await scoreWith([js("({pass: true, score: 0.9, reason: 'r'})", { negate: true })], 'out');
    assert.deepEqual([o.status, o.score, o.verdicts[0].type], ['fail', 0.9, 'not-javascript']);
  });
});

describe('javascript: inline code', () => {
  it('one line is `return <expr>`; trailing semicolons and a YAML newline are dropped', async () => {
    assert.equal(singleLineBody("output === 'x';;"), "return output === 'x'");
    assert.equal(inlineBody("output === 'x'\n"), "return output === 'x'");
    assert.equal((await score(js("output === 'x';\n"), 'x')).pass, true);
  });

  it('a line starting with const/let/var returns the expression after the last `;`', async () => {
    assert.equal(singleLineBody('const n = output.length; n > 3'), 'const n = output.length; return n > 3');
    assert.equal(singleLineBody("const s = output; s === 'a;b'"), "const s = output; return s === 'a;b'");
    assert.equal(singleLineBody('let x = 1'), 'let x = 1');
    assert.equal((await score(js('const n = output.length; n > 3'), 'long')).pass, true);
    assert.equal((await score(js("var s = output; s === 'a;b'"), 'a;b')).pass, true);
  });

  it('several lines are a function body that must return', async () => {
    const body = "const words = output.split(' ');\nreturn words.length === 2;\n";
    assert.equal((await score(js(body), 'two words')).pass, true);
    const noReturn = await score(js('const x = 1;\nx > 0;'), 'x');
    assert.match(noReturn.reason, /^Custom function threw error: .*Got type undefined/);
  });

  it('receives the raw output: an object output stays an object', async () => {
    const toolCall = { tool_calls: [{ function: { name: 'get_weather', arguments: '{}' } }] };
    assert.equal(
      (await score(js("output.tool_calls[0].function.name === 'get_weather'"), toolCall)).pass,
      true,
    );
    assert.equal((await score(js("typeof output === 'object'"), toolCall)).pass, true);
  });

  it('awaits a returned promise', async () => {
    assert.deepEqual(ps(await score(js('Promise.resolve(0.7)'), 'x')), { pass: true, score: 0.7 });
    const body = 'return new Promise((resolve) => setTimeout(() => resolve(output === "late"), 2));';
    assert.equal((await score(js(`// async\n${body}`), 'late')).pass, true);
  });

  it('a thrown error is a failed verdict with the message, not a job error', async () => {
    const r = await score(js('output.missing.field'), 'x');
    assert.equal(r.pass, false);
    assert.equal(r.score, 0);
    assert.match(r.reason, /^Custom function threw error: TypeError: Cannot read properties of undefined/);
    const o = await scoreWith([js("(() => { throw new Error('boom') })()")], 'x');
    assert.equal(o.status, 'fail');
    assert.equal(o.reason, "Custom function threw error: boom\n(() => { throw new Error('boom') })()");
  });

  it('sees promptfoo’s context: prompt, vars, test, config, provider, providerResponse, logProbs', async () => {
    const body =
      '// several lines make a body\nreturn {pass: true, score: 1, reason: JSON.stringify(context)};';
    const r = await score(js(body, { options: { config: { min: 2 } } }), 'out', {
      vars: { q: 'hi' },
      prompt: 'say hi',
      provider: { id: 'echo', config: { temperature: 0 } },
      response: { finishReason: 'stop', usage: { total: 3 }, latencyMs: 5, logProbs: [-0.5] },
    });
    assert.deepEqual(JSON.parse(r.reason), {
      prompt: 'say hi',
      vars: { q: 'hi' },
      test: { vars: { q: 'hi' } },
      providerResponse: {
        output: 'out',
        finishReason: 'stop',
        tokenUsage: { total: 3 },
        latencyMs: 5,
        logProbs: [-0.5],
      },
      logProbs: [-0.5],
      config: { min: 2 },
      // promptfoo's provider.id is a method; JSON drops it, the config stays.
      provider: { config: { temperature: 0 } },
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the JavaScript under test is a template literal.
    const id = await score(js('`${context.provider.id()}|${context.provider.id}`'), 'x', {
      provider: { id: 'openai:gpt-4o', config: {} },
    });
    assert.equal(id.pass, false);
    assert.match(id.reason, /Got type string: "openai:gpt-4o\|openai:gpt-4o"/);
  });

  it('reaches require through process.mainModule, as promptfoo’s shim allows', async () => {
    const r = await score(
      js("process.mainModule.require('node:path').basename('/a/b.txt') === 'b.txt'"),
      'x',
    );
    assert.equal(r.pass, true);
    assert.equal((await score(js("typeof process.cwd() === 'string'"), 'x')).pass, true);
  });

  it('compiles each distinct code text once', () => {
    const a = compileInline('output.length > 12345');
    assert.equal(typeof a, 'function');
    assert.equal(compileInline('output.length > 12345'), a);
  });

  it('code that does not compile is a load-time error; templated code fails at run time', async () => {
    assert.match(
      validate(js('output ===')) ?? '',
      /^javascript: inline code does not compile: SyntaxError: /,
    );
    assert.match(
      validate(js('const = 1;\nreturn true', { negate: true })) ?? '',
      /^not-javascript: inline code does not compile/,
    );
    assert.equal(validate(js("output === '{{ expected }}'")), undefined);
    const r = await score(js('{{ code }}'), 'x', { value: 'output ===' });
    assert.match(r.reason, /^Custom function threw error: SyntaxError: /);
  });

  it('needs non-empty text', () => {
    assert.equal(validate(js(undefined)), 'javascript needs a value: inline code or file://path');
    assert.equal(validate(js('  ')), 'javascript needs code, got an empty string');
    assert.equal(
      validate(js(42)),
      '"javascript" needs a string value (inline code or file://path), got a number',
    );
  });
});

describe('javascript: file:// scripts', () => {
  it('calls the default export with (output, context)', async () => {
    const spec = js('file://default.mjs');
    assert.equal((await score(spec, 'all about cats', { vars: { topic: 'cats' } })).pass, true);
    const r = await score(spec, 'all about dogs', { vars: { topic: 'cats' } });
    assert.equal(r.reason, 'Custom function returned false\nfile://default.mjs');
  });

  it('calls a named export (`:fn`), including async ones and object methods', async () => {
    assert.deepEqual(ps(await score(js('file://named.mjs:length'), '12345')), { pass: true, score: 0.5 });
    assert.deepEqual(ps(await score(js('file://named.mjs:length', { threshold: 0.6 }), '12345')), {
      pass: false,
      score: 0.5,
    });
    assert.deepEqual(await score(js('file://named.mjs:slow'), 'nope'), {
      pass: false,
      score: 0.25,
      reason: 'async saw nope',
    });
    assert.equal((await score(js('file://named.mjs:grader.check'), 'ok then')).pass, true);
    const toolCall = { tool_calls: [{ function: { name: 'get_weather', arguments: '{}' } }] };
    assert.equal((await score(js('file://named.mjs:toolName'), toolCall)).pass, true);
  });

  it('runs CommonJS: module.exports as the function, or a function on it', async () => {
    assert.deepEqual(ps(await score(js('file://common.cjs'), 'cjs')), { pass: true, score: 1 });
    assert.deepEqual(ps(await score(js('file://common.cjs'), 'esm')), { pass: false, score: 0 });
    assert.equal((await score(js('file://common-named.cjs:shout'), 'LOUD')).pass, true);
    assert.equal((await score(js('file://common-named.cjs:shout'), 'quiet')).pass, false);
  });

  it('passes the provider id as a method, as promptfoo does', async () => {
    const r = await score(js('file://named.mjs:providerId'), 'x', { provider: { id: 'echo', config: {} } });
    assert.equal(r.reason, 'echo / echo');
  });

  it('imports a module once, however many assertions use it', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => score(js('file://counter.mjs'), 'x')));
    assert.ok(results.every((r) => r.score === 1));
  });

  it("a file's function that throws makes the job an error with its message, as in promptfoo", async () => {
    const r = await scoreWith([js('file://named.mjs:throws')], 'x');
    assert.equal(r.status, 'error');
    assert.equal(r.reason, 'javascript: TypeError: bad output shape');
  });

  it('a module that cannot be used makes the job an error, naming the file', async () => {
    const missing = await scoreWith([js('file://named.mjs:nope')], 'x');
    assert.equal(missing.status, 'error');
    assert.equal(missing.reason, 'javascript: file://named.mjs has no exported function "nope"');
    const none = await scoreWith([js('file://no-function.mjs')], 'x');
    assert.equal(
      none.reason,
      'javascript: Assertion malformed: file://no-function.mjs must export a function or have a default export as a function',
    );
    const broken = await scoreWith([js('file://broken.mjs')], 'x');
    assert.equal(broken.status, 'error');
    assert.match(broken.reason, /^javascript: cannot load file:\/\/broken\.mjs: SyntaxError: /);
  });

  it('accepts TypeScript (loaded through tsx) and refuses declaration files and files that are not scripts at load', () => {
    assert.equal(validate(js('file://check.ts')), undefined);
    assert.equal(
      validate(js('file://check.d.ts')),
      'javascript: file://check.d.ts is a type declaration file, which holds no code',
    );
    assert.equal(
      validate(js('file://check.txt')),
      'javascript: file://check.txt is not a script assay can run (use .js, .mjs, .cjs, .ts or .py)',
    );
    assert.equal(
      validate(js('file://check.js:not-a-name')),
      'javascript: "not-a-name" in file://check.js:not-a-name is not a function name',
    );
    assert.equal(validate(js('file://check.js:grade')), undefined);
  });

  it('a javascript assertion naming a .py file runs it in Python and reads the result as JavaScript', async () => {
    assert.equal((await score(js('file://asserts.py'), 'ok go')).pass, true);
    // "true" is a pass in Python's rules but not in JavaScript's.
    const r = await score(js('file://asserts.py:returns'), 'x', { vars: { result: 'true' } });
    assert.equal(r.pass, false);
    assert.match(r.reason, /^Custom function threw error: Custom function must return/);
  });
});
