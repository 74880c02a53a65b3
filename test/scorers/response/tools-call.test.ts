import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { type RunOptions, run } from '../text/helpers.js';

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city'],
      },
    },
  },
  { type: 'function', function: { name: 'ping' } },
];

const provider: RunOptions = { provider: { id: 'openai:chat:gpt-4o-mini', config: { tools } } };

function call(
  name: string,
  args: unknown,
): { id: string; type: string; function: { name: string; arguments: string } } {
  return {
    id: 'call_1',
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'assay-tools-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('is-valid-openai-tools-call', () => {
  it('passes calls that match the tool schemas, from a JSON string output (assay’s OpenAI provider)', async () => {
    const output = JSON.stringify([call('get_weather', { city: 'Paris', unit: 'c' }), call('ping', {})]);
    assert.deepEqual(await run('is-valid-openai-tools-call', undefined, output, provider), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
  });

  it('accepts an output object with tool_calls, or the list itself', async () => {
    const calls = [call('get_weather', { city: 'Oslo' })];
    const message = { role: 'assistant', content: null, tool_calls: calls };
    const asObject = await run('is-valid-openai-tools-call', undefined, JSON.stringify(message), {
      ...provider,
      outputValue: message,
    });
    assert.equal(asObject.pass, true);
    const asList = await run('is-valid-openai-tools-call', undefined, JSON.stringify(calls), {
      ...provider,
      outputValue: calls,
    });
    assert.equal(asList.pass, true);
  });

  it('fails arguments that break the schema', async () => {
    const output = JSON.stringify([call('get_weather', { unit: 'k' })]);
    const r = await run('is-valid-openai-tools-call', undefined, output, provider);
    assert.equal(r.pass, false);
    assert.match(r.reason, /^Call to "get_weather" does not match schema: /);
    assert.match(r.reason, /city/);
  });

  it('fails an unknown function and unparsable arguments', async () => {
    const unknown = await run(
      'is-valid-openai-tools-call',
      undefined,
      JSON.stringify([call('nope', {})]),
      provider,
    );
    assert.deepEqual(unknown, {
      pass: false,
      score: 0,
      reason: 'Called "nope", but there is no function with that name',
    });
    const broken = await run(
      'is-valid-openai-tools-call',
      undefined,
      JSON.stringify([call('get_weather', '{city: Paris')]),
      provider,
    );
    assert.equal(broken.pass, false);
    assert.match(broken.reason, /^Call to "get_weather" has arguments that are not valid JSON/);
  });

  it('fails outputs that are not tool calls', async () => {
    for (const output of ['The weather is nice.', '[]', '[{"name":"get_weather"}]', '{"a":1}', '']) {
      const r = await run('is-valid-openai-tools-call', undefined, output, provider);
      assert.equal(r.pass, false, output);
      assert.match(r.reason, /^OpenAI did not return a valid-looking tools response/);
    }
  });

  it('ignores not- as the promptfoo version the spec follows does', async () => {
    const output = JSON.stringify([call('ping', {})]);
    assert.equal(
      (await run('is-valid-openai-tools-call', undefined, output, { ...provider, spec: { negate: true } }))
        .pass,
      true,
    );
  });

  it('reads tools given as YAML/JSON text or a file:// path beside the suite', async () => {
    writeFileSync(join(dir, 'tools.json'), JSON.stringify(tools));
    const output = JSON.stringify([call('get_weather', { city: 'Rome' })]);
    const fromFile = await run('is-valid-openai-tools-call', undefined, output, {
      provider: { id: 'openai', config: { tools: 'file://tools.json' } },
      basePath: dir,
    });
    assert.equal(fromFile.pass, true);
    const fromText = await run('is-valid-openai-tools-call', undefined, output, {
      provider: { id: 'openai', config: { tools: JSON.stringify(tools) } },
    });
    assert.equal(fromText.pass, true);
  });

  it('a provider without tools makes the assertion unusable', async () => {
    const output = JSON.stringify([call('ping', {})]);
    await assert.rejects(
      run('is-valid-openai-tools-call', undefined, output, { provider: { id: 'openai', config: {} } }),
      (err: Error) =>
        err instanceof ScorerInputError && /Tools are expected to be an array/.test(err.message),
    );
    await assert.rejects(
      run('is-valid-openai-tools-call', undefined, output, {
        provider: { id: 'openai', config: { tools: 'file://missing.json' } },
        basePath: dir,
      }),
      /cannot read the provider's tools file/,
    );
  });
});
