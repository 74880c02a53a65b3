import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../src/core/errors.js';
import { createProvider, isKnownProviderId } from '../../src/providers/registry.js';
import type { Provider, ProviderRequest, RetryPolicy } from '../../src/providers/types.js';
import { closePythonWorker } from '../../src/runtime/python-worker.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-script-provider-');
after(async () => {
  await closePythonWorker();
  tmp.cleanup();
});
const RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 20_000 };
// Only ends a hung test, so generous: CI machines are slow and loaded.
const TIMEOUT = { timeout: 300_000 };

function file(name: string, body: string): string {
  writeFileSync(join(tmp.dir, name), body);
  return name;
}

function provider(id: string, config: Record<string, unknown> = {}, label?: string): Promise<Provider> {
  return createProvider(
    { id, config, ...(label ? { label } : {}) },
    { env: {}, maxConcurrency: 2, retry: RETRY, basePath: tmp.dir },
  );
}

function ask(prompt: string, vars: Record<string, unknown> = {}): ProviderRequest {
  return { prompt, messages: [{ role: 'user', content: prompt }], params: {}, vars };
}

describe('file:// providers (code)', () => {
  it('knows code files by extension, with an optional function name', () => {
    for (const id of ['file://p.js', 'file://dir/p.mjs', 'file://p.ts', 'file://p.py', 'file://p.py:my_call'])
      assert.ok(isKnownProviderId(id), id);
    for (const id of ['file://p.yaml', 'file://p.go', 'file://p.py:1bad'])
      assert.equal(isKnownProviderId(id), false, id);
  });

  it(
    'a JavaScript class: constructed with {id, label, config}, callApi given the prompt and context',
    TIMEOUT,
    async () => {
      const name = file(
        'class-provider.mjs',
        `export default class Upper {
         constructor(options) { this.options = options; }
         id() { return 'upper'; }
         async callApi(prompt, context) {
           return { output: prompt.toUpperCase() + ' ' + context.vars.city + ' ' + this.options.config.suffix,
                    tokenUsage: { prompt: 3, completion: 2, total: 5 }, cost: 0.25 };
         }
       }`,
      );
      const p = await provider(`file://${name}`, { suffix: '!' });
      const res = await p.call(ask('hello', { city: 'Lima' }));
      assert.equal(res.error, undefined);
      assert.equal(res.output, 'HELLO Lima !');
      assert.deepEqual(res.usage, { prompt: 3, completion: 2, total: 5 });
      assert.equal(res.cost, 0.25);
    },
  );

  it(
    'a named export, an object with callApi, and a plain function; a structured output is JSON',
    TIMEOUT,
    async () => {
      const name = file(
        'exports.mjs',
        `export const asObject = { callApi: async (prompt) => ({ output: { echoed: prompt } }) };
       export function asFunction(prompt) { return 'fn:' + prompt; }`,
      );
      const obj = await provider(`file://${name}:asObject`);
      assert.deepEqual(JSON.parse((await obj.call(ask('x'))).output ?? ''), { echoed: 'x' });
      const fn = await provider(`file://${name}:asFunction`);
      assert.equal((await fn.call(ask('y'))).output, 'fn:y');
    },
  );

  it('a TypeScript class provider (through tsx)', TIMEOUT, async () => {
    const name = file(
      'typed.ts',
      `export default class Typed {
         async callApi(prompt: string): Promise<{ output: string }> { return { output: \`typed \${prompt.length}\` }; }
       }`,
    );
    const res = await (await provider(`file://${name}`)).call(ask('four'));
    assert.equal(res.error, undefined, res.error);
    assert.equal(res.output, 'typed 4');
  });

  it('a Python provider: call_api(prompt, options, context), or a named function', TIMEOUT, async () => {
    const name = file(
      'provider.py',
      `def call_api(prompt, options, context):
    return {"output": prompt[::-1] + "|" + str(context["vars"].get("n")) + "|" + options["config"]["tag"],
            "tokenUsage": {"total": 7}}

def failing(prompt, options, context):
    return {"error": "quota exhausted"}

def raising(prompt, options, context):
    raise ValueError("bad input " + prompt)
`,
    );
    const ok = await provider(`file://${name}`, { tag: 't' });
    const res = await ok.call(ask('abc', { n: 2 }));
    assert.equal(res.error, undefined, res.error);
    assert.equal(res.output, 'cba|2|t');
    assert.equal(res.usage?.total, 7);
    const failing = await provider(`file://${name}:failing`);
    assert.equal((await failing.call(ask('x'))).error, 'quota exhausted');
    const raising = await provider(`file://${name}:raising`);
    const raised = await raising.call(ask('x'));
    assert.equal(raised.output, null);
    assert.match(raised.error ?? '', /ValueError: bad input x/);
    assert.equal(raised.attempts, 1, 'not retried');
  });

  it(
    'a thrown error is an error result; a missing file is refused when the provider is made',
    TIMEOUT,
    async () => {
      const name = file('throws.mjs', `export default { callApi() { throw new Error('upstream down'); } };`);
      const res = await (await provider(`file://${name}`)).call(ask('x'));
      assert.match(res.error ?? '', /upstream down/);
      await assert.rejects(
        provider('file://missing.js'),
        (err: unknown) => err instanceof InputError && /file not found/.test(err.message),
      );
    },
  );

  it(
    'runs from a promptfoo config; a missing provider file is a positioned load error (exit 2)',
    TIMEOUT,
    async () => {
      const name = file(
        'echo-provider.cjs',
        `module.exports = class { async callApi(p) { return { output: 'said: ' + p }; } };`,
      );
      writeFileSync(
        join(tmp.dir, 'promptfooconfig.yaml'),
        `prompts: ['{{word}}']\nproviders: ['file://${name}']\ntests:\n  - vars: {word: hi}\n    assert: [{type: equals, value: 'said: hi'}]\n`,
      );
      const ok = await runCli([
        'eval',
        join(tmp.dir, 'promptfooconfig.yaml'),
        '--no-progress',
        '--runs-dir',
        join(tmp.dir, 'runs'),
      ]);
      assert.equal(ok.code, 0, ok.stderr + ok.stdout);
      writeFileSync(join(tmp.dir, 'missing.yaml'), `prompts: [x]\nproviders:\n  - file://nowhere.py\n`);
      const bad = await runCli(['validate', join(tmp.dir, 'missing.yaml')]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /missing\.yaml:3:5: provider "file:\/\/nowhere\.py": file not found/);
    },
  );
  it(
    'a Python provider call that hangs costs its own job only: the other calls run in other workers',
    TIMEOUT,
    async () => {
      const name = file(
        'hangs.py',
        `import time\ndef call_api(prompt, options, context):\n    if 'hang' in prompt:\n        time.sleep(120)\n    return {'output': 'ok ' + prompt}\n`,
      );
      // The request timeout is generous (the healthy calls need only start Python, even on a loaded
      // machine); before the pool, all five queued behind the hung call in one worker and timed out.
      const words = ['hang', 'a', 'b', 'c', 'd'];
      writeFileSync(
        join(tmp.dir, 'hang.yaml'),
        `prompts: ['{{word}}']\nproviders: ['file://${name}']\ntests:\n${words.map((w) => `  - vars: {word: ${w}}\n    assert: [{type: equals, value: 'ok ${w}'}]\n`).join('')}`,
      );
      const run = await runCli([
        'eval',
        join(tmp.dir, 'hang.yaml'),
        '--no-progress',
        '--no-cache',
        '--request-timeout',
        '15000',
        '--max-retries',
        '0',
        '--runs-dir',
        join(tmp.dir, 'hang-runs'),
      ]);
      assert.equal(run.code, 3, run.stderr + run.stdout);
      assert.match(run.stdout, /5 jobs: 4 passed · 0 failed · 1 error/);
      assert.match(
        run.stdout,
        /! error "word=hang"[^\n]*\n\s+request timed out \(no complete response within 15000 ms\)/,
      );
    },
  );
});
