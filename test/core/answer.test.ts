// The structured answer's helpers and the `default` output rule: finish reasons in promptfoo's
// vocabulary (its 0.123.1 table), the text assay's own formats read, what an answer has instead
// of text, the rule registry, and the answer a run log's record stands for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compatAnswer,
  DEFAULT_RULE,
  isPlainText,
  nonTextOf,
  normalizeFinishReason,
  outputRule,
  outputRuleNames,
  recordedAnswer,
  registerOutputRule,
  replyText,
  textAnswer,
  toolCallBlock,
  withFinishReason,
} from '../../src/core/answer.js';
import type { Answer, AnswerRecord } from '../../src/core/types.js';

const ctx = { config: {}, params: {} };

describe('normalizeFinishReason', () => {
  it('folds each provider’s stop reasons onto promptfoo’s names, and passes others through lower-cased', () => {
    const cases: [unknown, string | undefined][] = [
      ['stop', 'stop'],
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['model_context_window_exceeded', 'length'],
      ['tool_use', 'tool_calls'],
      ['function_call', 'tool_calls'],
      ['refusal', 'content_filter'],
      ['content_filter', 'content_filter'],
      ['pause_turn', 'pause_turn'],
      ['  STOP ', 'stop'],
      ['SAFETY', 'safety'],
      ['guardrail_intervened', 'guardrail_intervened'],
      ['', undefined],
      ['   ', undefined],
      [null, undefined],
      [3, undefined],
    ];
    for (const [raw, expected] of cases) assert.equal(normalizeFinishReason(raw), expected, String(raw));
  });

  it('keeps the wire’s value beside the normalised one only when they differ', () => {
    assert.deepEqual(withFinishReason({ api: 'x', blocks: [] }, 'end_turn'), {
      api: 'x',
      blocks: [],
      finishReason: 'stop',
      finishReasonRaw: 'end_turn',
    });
    assert.deepEqual(withFinishReason({ api: 'x', blocks: [] }, 'stop'), {
      api: 'x',
      blocks: [],
      finishReason: 'stop',
    });
    assert.deepEqual(withFinishReason({ api: 'x', blocks: [] }, null), { api: 'x', blocks: [] });
  });
});

describe('the default output rule (assay’s own formats: the message text)', () => {
  it('is the text of a text answer, the blocks’ text joined, a value as it is', () => {
    assert.deepEqual(DEFAULT_RULE.derive(textAnswer('echo', 'hi'), ctx), {
      output: 'hi',
      value: 'hi',
      finishReason: undefined,
    });
    const two: Answer = {
      api: 'openai-chat',
      blocks: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
        toolCallBlock('c1', 'f', '{}'),
      ],
      finishReason: 'stop',
    };
    assert.deepEqual(DEFAULT_RULE.derive(two, ctx), { output: 'ab', value: 'ab', finishReason: 'stop' });
    assert.deepEqual(DEFAULT_RULE.derive({ api: 'http', blocks: [], value: { n: 1 } }, ctx), {
      output: '{"n":1}',
      value: { n: 1 },
      finishReason: undefined,
    });
  });

  it('with no text block: the tool calls as OpenAI’s JSON, else the refusal, else empty text', () => {
    const calls: Answer = {
      api: 'anthropic',
      blocks: [toolCallBlock('t1', 'get_weather', '{"city":"Paris"}')],
    };
    const out = DEFAULT_RULE.derive(calls, ctx);
    assert.deepEqual(JSON.parse(out.output ?? ''), [
      { id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    assert.equal(out.value, out.output);
    assert.equal(
      DEFAULT_RULE.derive({ api: 'x', blocks: [{ type: 'refusal', text: 'no' }] }, ctx).output,
      'no',
    );
    assert.equal(DEFAULT_RULE.derive({ api: 'x', blocks: [] }, ctx).output, '');
  });

  it('says what an answer had instead of text', () => {
    assert.equal(nonTextOf(textAnswer('x', '')), undefined);
    assert.equal(nonTextOf({ api: 'x', blocks: [toolCallBlock(undefined, 'f', '{}')] }), 'tool calls');
    assert.equal(nonTextOf({ api: 'x', blocks: [{ type: 'refusal', text: 'no' }] }), 'a refusal');
    assert.equal(nonTextOf({ api: 'x', blocks: [{ type: 'reasoning', text: 'r' }] }), 'nothing');
    assert.equal(nonTextOf({ api: 'x', blocks: [], value: 0 }), undefined);
  });

  it('reads a grader’s reply as text either way (structured or plain)', () => {
    assert.equal(replyText({ answer: textAnswer('openai-chat', 'Y') }), 'Y');
    assert.equal(replyText({ output: 'N' }), 'N');
    assert.equal(replyText({ output: null }), null);
  });

  it('parses a tool call’s arguments when they parse, and keeps the text as the wire gave it', () => {
    assert.deepEqual(toolCallBlock('1', 'f', '{"a": 1}'), {
      type: 'tool_call',
      id: '1',
      name: 'f',
      arguments: '{"a": 1}',
      input: { a: 1 },
    });
    assert.deepEqual(toolCallBlock(undefined, 'f', '{oops'), {
      type: 'tool_call',
      name: 'f',
      arguments: '{oops',
    });
  });

  it('the compatibility path: a plain-text answer is one text block, its finish reason as given', () => {
    assert.deepEqual(compatAnswer('x', 'end_turn'), {
      api: 'compat',
      blocks: [{ type: 'text', text: 'x' }],
      finishReason: 'end_turn',
    });
  });
});

describe('the output rule registry', () => {
  it('has the default rule, loads a registered one on demand, and names the known ones when one is unknown', async () => {
    assert.equal((await outputRule(undefined)).name, 'default');
    let loads = 0;
    registerOutputRule('shout', () => {
      loads++;
      return { name: 'shout', derive: (a) => ({ output: 'X', value: 'X', finishReason: a.finishReason }) };
    });
    assert.equal(loads, 0, 'registering loads nothing');
    assert.equal((await outputRule('shout')).derive(textAnswer('echo', 'a'), ctx).output, 'X');
    assert.ok(outputRuleNames().includes('shout'));
    await assert.rejects(outputRule('nope'), /unknown output rule "nope" \(known: default, .*shout/);
  });
});

describe('a run log’s record of an answer', () => {
  const record = (fields: Partial<AnswerRecord>): AnswerRecord => ({ latencyMs: 0, ...fields });

  it('stands for its structured answer: blocks implied by the raw output when left out, the wire’s finish reason kept', () => {
    assert.deepEqual(recordedAnswer(record({ api: 'echo' }), 'hi'), textAnswer('echo', 'hi'));
    const blocks = [toolCallBlock('c', 'f', '{}')];
    assert.deepEqual(
      recordedAnswer(record({ api: 'openai-chat', blocks, finishReason: 'tool_calls' }), '[…]'),
      {
        api: 'openai-chat',
        blocks,
        finishReason: 'tool_calls',
      },
    );
    // A reason the rule hid from assertions (promptfoo's Mistral reports none): the wire's is the answer's.
    assert.deepEqual(recordedAnswer(record({ api: 'mistral-chat', finishReasonRaw: 'stop' }), 'a'), {
      ...textAnswer('mistral-chat', 'a'),
      finishReason: 'stop',
    });
    assert.deepEqual(
      recordedAnswer(record({ api: 'anthropic', finishReason: 'stop', finishReasonRaw: 'end_turn' }), 'a'),
      {
        ...textAnswer('anthropic', 'a'),
        finishReason: 'stop',
        finishReasonRaw: 'end_turn',
      },
    );
  });

  it('is none for a plain-text answer or a log older than version 3', () => {
    assert.equal(recordedAnswer(record({ finishReason: 'stop' }), 'a'), undefined);
  });

  it('leaves out the blocks of exactly one text block holding the output', () => {
    assert.equal(isPlainText(textAnswer('echo', 'a'), 'a'), true);
    assert.equal(isPlainText(textAnswer('echo', 'a'), 'b'), false);
    assert.equal(isPlainText({ api: 'x', blocks: [{ type: 'text', text: 'a' }], value: 'a' }, 'a'), false);
  });
});
