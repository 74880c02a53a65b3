// promptfoo's output rule on the cases its recorded rows (provider-rows.test.ts) do not reach,
// each read from promptfoo 0.123.1's providers (dist: chat, azure, openrouter, mistral): a
// `json_schema` response format parses the text; `showThinking: false` drops the reasoning; a
// legacy function call is written as OpenAI wrote it; Azure's completion filter sentence; a
// plain-text answer (a provider still on the compatibility path) is its text and its reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compatAnswer, textAnswer, toolCallBlock } from '../../../src/core/answer.js';
import type { Answer } from '../../../src/core/types.js';
import { AZURE_COMPLETION_FILTERED, PROMPTFOO_RULE } from '../../../src/formats/promptfoo/output-rule.js';

const derive = (answer: Answer, config: Record<string, unknown> = {}, params: Record<string, unknown> = {}) =>
  PROMPTFOO_RULE.derive(answer, { config, params });

const schema = { type: 'json_schema', json_schema: { name: 'x', schema: {} } };

describe('promptfoo’s output rule', () => {
  it('openai-chat: a json_schema response format parses the text (the prompt’s config over the provider’s)', () => {
    const answer = { ...textAnswer('openai-chat', '{ "city": "Paris" }'), finishReason: 'stop' };
    assert.deepEqual(derive(answer, { response_format: schema }), {
      output: '{"city":"Paris"}',
      value: { city: 'Paris' },
      finishReason: 'stop',
    });
    assert.equal(
      derive(answer, { response_format: schema }, { response_format: { type: 'text' } }).value,
      '{ "city": "Paris" }',
    );
    // Text that does not parse stays text.
    assert.equal(
      derive(textAnswer('openai-chat', 'not json'), { response_format: schema }).value,
      'not json',
    );
    // json_object is not parsed by the OpenAI provider (Azure's parses both).
    assert.equal(derive(answer, { response_format: { type: 'json_object' } }).value, '{ "city": "Paris" }');
    assert.deepEqual(
      derive({ ...answer, api: 'azure-chat' }, { response_format: { type: 'json_object' } }).value,
      {
        city: 'Paris',
      },
    );
  });

  it('openai-chat: the reasoning before the text, unless showThinking is false', () => {
    const answer: Answer = {
      api: 'openai-chat',
      blocks: [
        { type: 'reasoning', text: 'R' },
        { type: 'text', text: 'T' },
      ],
    };
    assert.equal(derive(answer).output, 'Thinking: R\n\nT');
    assert.equal(derive(answer, { showThinking: false }).output, 'T');
    // OpenRouter likewise; with no text, the reasoning itself.
    assert.equal(derive({ ...answer, api: 'openrouter-chat' }).output, 'Thinking: R\n\nT');
    assert.equal(derive({ api: 'openrouter-chat', blocks: [{ type: 'reasoning', text: 'R' }] }).output, 'R');
    assert.equal(
      derive({ api: 'openrouter-chat', blocks: [{ type: 'reasoning', text: 'R' }] }, { showThinking: false })
        .output,
      '',
    );
  });

  it('a legacy function call is written as the function_call object, beside text as the whole message', () => {
    const call = {
      ...toolCallBlock(undefined, 'get_weather', '{"city":"Paris"}'),
      form: 'function_call' as const,
    };
    assert.deepEqual(derive({ api: 'openai-chat', blocks: [call] }).value, {
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    assert.deepEqual(derive({ api: 'openai-chat', blocks: [{ type: 'text', text: 'T' }, call] }).value, {
      role: 'assistant',
      content: 'T',
      function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    assert.deepEqual(derive({ api: 'azure-chat', blocks: [call] }).value, {
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
  });

  it('azure-completion: a filtered answer with no text is Azure’s sentence; its 400 filter reports no usage', () => {
    assert.equal(
      derive({ api: 'azure-completion', blocks: [], finishReason: 'content_filter' }).output,
      AZURE_COMPLETION_FILTERED,
    );
    const filtered = derive({
      api: 'azure-completion',
      blocks: [{ type: 'refusal', text: 'blocked', by: 'filter' }],
      finishReason: 'content_filter',
    });
    assert.deepEqual(filtered, {
      output: 'blocked',
      value: 'blocked',
      finishReason: undefined,
      reportsUsage: false,
    });
  });

  it('mistral-chat: its thinking chunks are left out of the text, and no finish reason is reported', () => {
    const answer: Answer = {
      api: 'mistral-chat',
      blocks: [
        { type: 'reasoning', text: 'R' },
        { type: 'text', text: 'T' },
      ],
      finishReason: 'stop',
    };
    assert.deepEqual(derive(answer), { output: 'T', value: 'T', finishReason: undefined });
  });

  it('a plain-text answer and an unknown dialect are their text, with the finish reason as given', () => {
    assert.deepEqual(derive(compatAnswer('hello', 'end_turn')), {
      output: 'hello',
      value: 'hello',
      finishReason: 'end_turn',
    });
    assert.deepEqual(
      derive({
        api: 'someday-api',
        blocks: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
      {
        output: 'ab',
        value: 'ab',
        finishReason: undefined,
      },
    );
    assert.deepEqual(derive({ api: 'http', blocks: [], value: [1, 2] }), {
      output: '[1,2]',
      value: [1, 2],
      finishReason: undefined,
    });
  });
});
