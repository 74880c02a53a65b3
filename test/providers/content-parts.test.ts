// One mapping of content parts to each wire (providers/content-parts.ts), and OpenAI's answer back
// to blocks: what each provider sends for a conversation with a system message, text and image
// parts and a trailing hole, and the blocks an OpenAI-compatible message gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../src/core/types.js';
import {
  anthropicMessages,
  converseMessages,
  geminiContents,
  ollamaMessages,
  openAiBlocks,
  openAiMessages,
} from '../../src/providers/content-parts.js';

const DATA = 'data:image/png;base64,iVBORw0KGgo=';
const conversation: Message[] = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in ' },
      { type: 'text', text: 'these?' },
      { type: 'image_url', image_url: { url: DATA } },
      { type: 'image_url', image_url: { url: 'https://example.test/cat.jpg' } },
    ],
    variable: 'ignored',
  },
  { role: 'assistant', content: 'A cat.' },
  { role: 'tool', content: 'result' },
  { role: 'assistant', content: null, variable: 'answer' },
];

describe('content parts, to each wire', () => {
  it('OpenAI: the messages as they are, without assay’s variable and the trailing hole', () => {
    assert.deepEqual(openAiMessages(conversation), [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: conversation[1].content },
      { role: 'assistant', content: 'A cat.' },
      { role: 'tool', content: 'result' },
    ]);
  });

  it('Anthropic: the system apart, parts as blocks (a data URL as base64, else by URL), a tool turn as the user’s', () => {
    assert.deepEqual(anthropicMessages(conversation), {
      system: 'Be brief.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in ' },
            { type: 'text', text: 'these?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.test/cat.jpg' } },
          ],
        },
        { role: 'assistant', content: 'A cat.' },
        { role: 'user', content: 'result' },
      ],
    });
  });

  it('Ollama: the parts’ text as content, images apart (the data URL’s base64, else the URL)', () => {
    assert.deepEqual(ollamaMessages(conversation), [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: 'What is in these?',
        images: ['iVBORw0KGgo=', 'https://example.test/cat.jpg'],
      },
      { role: 'assistant', content: 'A cat.' },
      { role: 'tool', content: 'result' },
    ]);
  });

  it('Gemini: assistant turns as the model’s, images inline or by URI, the system’s parts apart', () => {
    assert.deepEqual(geminiContents(conversation), {
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is in ' },
            { text: 'these?' },
            { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { file_data: { file_uri: 'https://example.test/cat.jpg', mime_type: 'image/*' } },
          ],
        },
        { role: 'model', parts: [{ text: 'A cat.' }] },
        { role: 'user', parts: [{ text: 'result' }] },
      ],
      systemParts: [{ text: 'Be brief.' }],
    });
  });

  it('Bedrock Converse: text blocks, an image’s bytes from a data URL, an image by URL as its JSON', () => {
    const { system, wire } = converseMessages(conversation);
    assert.deepEqual(system, [{ text: 'Be brief.' }]);
    assert.deepEqual(wire[0], {
      role: 'user',
      content: [
        { text: 'What is in ' },
        { text: 'these?' },
        { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
        { text: JSON.stringify({ type: 'image_url', image_url: { url: 'https://example.test/cat.jpg' } }) },
      ],
    });
    assert.deepEqual(wire.slice(1), [
      { role: 'assistant', content: [{ text: 'A cat.' }] },
      { role: 'user', content: [{ text: 'result' }] },
    ]);
  });
});

describe('an OpenAI-compatible message, to blocks', () => {
  it('reasoning, text, refusal, then tool calls, in that order, the arguments kept as sent', () => {
    assert.deepEqual(
      openAiBlocks({
        role: 'assistant',
        content: 'T',
        reasoning_content: 'R',
        refusal: 'no',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      }),
      [
        { type: 'reasoning', text: 'R' },
        { type: 'text', text: 'T' },
        { type: 'refusal', text: 'no' },
        { type: 'tool_call', id: 'c1', name: 'f', arguments: '{"a":1}', input: { a: 1 } },
      ],
    );
  });

  it('content "" is one empty text block; null none; `refusal: null` nothing', () => {
    assert.deepEqual(openAiBlocks({ content: '', refusal: null }), [{ type: 'text', text: '' }]);
    assert.deepEqual(openAiBlocks({ content: null, refusal: null }), []);
  });

  it('reads reasoning from the service’s own field only when told (OpenRouter’s `reasoning`)', () => {
    const message = { content: 'T', reasoning_content: 'RC', reasoning: 'R' };
    assert.deepEqual(openAiBlocks(message)[0], { type: 'reasoning', text: 'RC' });
    assert.deepEqual(openAiBlocks(message, ['reasoning'])[0], { type: 'reasoning', text: 'R' });
    assert.deepEqual(openAiBlocks({ content: 'T', reasoning_content: 'RC' }, ['reasoning']), [
      { type: 'text', text: 'T' },
    ]);
  });

  it('Mistral’s content chunks: text chunks as text, thinking chunks as reasoning', () => {
    assert.deepEqual(
      openAiBlocks({
        content: [
          { type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] },
          { type: 'text', text: 'Paris.' },
        ],
      }),
      [
        { type: 'reasoning', text: 'hm' },
        { type: 'text', text: 'Paris.' },
      ],
    );
  });

  it('a legacy function_call is one call without an id, marked as such; object arguments as their JSON', () => {
    assert.deepEqual(openAiBlocks({ content: null, function_call: { name: 'f', arguments: { a: 1 } } }), [
      { type: 'tool_call', name: 'f', arguments: '{"a":1}', input: { a: 1 }, form: 'function_call' },
    ]);
  });
});
