import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closePythonWorker } from '../../src/runtime/python-worker.js';
import { runTransform, TransformError, transformProblem } from '../../src/runtime/transform.js';
import { fixture } from '../support/paths.js';

const base = fixture('transforms');
const ctx = { vars: { name: 'Ada' }, prompt: { label: 'p' } };

after(closePythonWorker);

describe('runTransform (promptfoo transform semantics)', () => {
  it('runs a one-line expression with output and context', async () => {
    assert.equal(await runTransform('output.trim() + context.vars.name', '  hi ', ctx), 'hiAda');
  });

  it('runs multi-line code as a function body (it must return)', async () => {
    const code = 'const parsed = JSON.parse(output);\nreturn parsed.answer;';
    assert.equal(await runTransform(code, '{"answer": 42}', ctx), 42);
  });

  it('can return an object, which later steps see as an object', async () => {
    assert.deepEqual(await runTransform('({ text: output })', 'x', ctx), { text: 'x' });
  });

  it('names the input `vars` for vars transforms', async () => {
    assert.deepEqual(await runTransform('({ ...vars, b: 2 })', { a: 1 }, {}, { input: 'vars' }), {
      a: 1,
      b: 2,
    });
  });

  it('calls a JavaScript file: the default export, or a named function', async () => {
    assert.equal(await runTransform('file://upper.mjs', 'hi', ctx, { basePath: base }), 'HI|Ada');
    assert.deepEqual(await runTransform('file://upper.mjs:wrap', 'hi', ctx, { basePath: base }), {
      wrapped: 'hi',
    });
  });

  it('calls a Python file: get_transform by default, or a named function', async () => {
    assert.equal(await runTransform('file://shout.py', 'hi', ctx, { basePath: base }), 'HI!Ada');
    await assert.rejects(
      runTransform('file://shout.py:broken', 'hi', ctx, { basePath: base }),
      (err: Error) =>
        err instanceof TransformError &&
        /Transform failed \(file:\/\/shout\.py:broken\): .*bad output/.test(err.message),
    );
  });

  it('is an error when it returns null or undefined', async () => {
    await assert.rejects(
      runTransform('null', 'x', ctx),
      /Transform function did not return a value \(null\)/,
    );
    await assert.rejects(
      runTransform('file://shout.py:nothing', 'x', ctx, { basePath: base }),
      /did not return a value \(file:\/\/shout\.py:nothing\)/,
    );
  });

  it('is an error, naming the transform, when it throws', async () => {
    await assert.rejects(
      runTransform('JSON.parse(output).a', 'not json', ctx),
      (err: Error) =>
        err instanceof TransformError &&
        err.message.startsWith('Transform failed (JSON.parse(output).a): SyntaxError'),
    );
  });

  it('finds problems before running: code that does not compile, unsupported files', () => {
    assert.match(transformProblem('output.(') ?? '', /^transform does not compile: SyntaxError/);
    assert.match(transformProblem('file://t.rb') ?? '', /Unsupported transform file format: file:\/\/t\.rb/);
    assert.equal(transformProblem('file://t.ts'), undefined);
    assert.equal(transformProblem('file://t.js:fn'), undefined);
    assert.equal(transformProblem('output.trim()'), undefined);
    assert.match(transformProblem(42) ?? '', /must be JavaScript code or a file:\/\/ path/);
  });
});
