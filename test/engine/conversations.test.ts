// Conversations with holes and repetitions, for any format: each hole filled in order with
// everything before it as context, each conversation × repetition run, every completion recorded
// and given to scorers. Checked request by request against the mock server.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobResult, Message } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { closeAllPools } from '../../src/providers/http-transport.js';
import { readResults } from '../../src/runlog/reader.js';
import { registerScorer } from '../../src/scorers/registry.js';
import type { ScoreInput } from '../../src/scorers/types.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { buildSuite, hole, system, user } from '../support/suite-builder.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-conversations-');
let mock: MockServer;
/** What the test scorer saw, by case ref. */
const seen = new Map<string, ScoreInput>();

before(async () => {
  mock = await startMockServer({
    answers: [
      { match: '^Name a colour', reply: 'red' },
      { match: '^Name a fruit of that colour', reply: 'cherry', conversation: 'red' },
      { match: '^How many letters', reply: '6', conversation: 'cherry' },
      { match: '^Say hi', reply: 'hi' },
    ],
  });
  registerScorer({
    type: 'test:sees-conversation',
    description: 'records what it is given',
    score(input) {
      seen.set(String(input.vars.ref), input);
      return { pass: true, score: 1, reason: 'recorded' };
    },
  });
});
after(async () => {
  await closeAllPools();
  await mock.close();
  tmp.cleanup();
});

const provider = () => ({ id: 'openai:chat:m', config: { apiBaseUrl: mock.baseUrl, maxRetries: 0 } });

async function run(suite: ReturnType<typeof buildSuite>, runsDir: string): Promise<JobResult[]> {
  const outcome = await evaluate({ suite, runsDir, cache: false, env: {} });
  const results: JobResult[] = [];
  for await (const r of readResults(outcome.runDir)) results.push(r);
  return results;
}

function sent(): Message[][] {
  return mock.requests.map((r) => (r.body as { messages: Message[] }).messages);
}

describe('conversations with holes and repetitions', () => {
  it('fills three holes in order, each with everything before it as context', async () => {
    mock.resetStats();
    const suite = buildSuite({
      providers: [provider()],
      cases: [
        {
          ref: 'three-holes',
          vars: { ref: 'three-holes' },
          conversations: [
            {
              messages: [
                system('Answer in one word.'),
                user('Name a colour.'),
                hole('colour'),
                user('Name a fruit of that colour.'),
                hole('fruit'),
                user('How many letters has it?'),
                hole('letters'),
              ],
            },
          ],
          asserts: [{ type: 'test:sees-conversation' }, { type: 'equals', value: '6' }],
        },
      ],
    });
    const [result] = await run(suite, join(tmp.dir, 'runs-holes'));
    // Exactly three requests, each carrying the earlier completions as assistant turns.
    assert.deepEqual(sent(), [
      [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Name a colour.' },
      ],
      [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Name a colour.' },
        { role: 'assistant', content: 'red' },
        { role: 'user', content: 'Name a fruit of that colour.' },
      ],
      [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Name a colour.' },
        { role: 'assistant', content: 'red' },
        { role: 'user', content: 'Name a fruit of that colour.' },
        { role: 'assistant', content: 'cherry' },
        { role: 'user', content: 'How many letters has it?' },
      ],
    ]);
    assert.equal(result.status, 'pass', result.reason);
    assert.equal(result.output, '6');
    assert.equal(result.case.ref, 'three-holes');
    assert.deepEqual(result.answer.outputs, { colour: 'red', fruit: 'cherry', letters: '6' });
    assert.deepEqual(result.answer.runs, [
      {
        conversation: 0,
        repetition: 0,
        completions: ['red', 'cherry', '6'],
        outputs: { colour: 'red', fruit: 'cherry', letters: '6' },
      },
    ]);
    // Usage adds up over the three calls.
    assert.equal(result.answer.attempts, 3);
    const input = seen.get('three-holes')!;
    assert.deepEqual(input.outputs, { colour: 'red', fruit: 'cherry', letters: '6' });
    assert.equal(input.output, '6');
    assert.deepEqual(
      input.messages?.map((m) => [m.role, m.content]),
      [
        ['system', 'Answer in one word.'],
        ['user', 'Name a colour.'],
        ['assistant', 'red'],
        ['user', 'Name a fruit of that colour.'],
        ['assistant', 'cherry'],
        ['user', 'How many letters has it?'],
        ['assistant', '6'],
      ],
    );
    assert.equal(input.runs?.length, 1);
  });

  it('runs a conversation three times and a second conversation once, all given to the scorer', async () => {
    mock.resetStats();
    const suite = buildSuite({
      providers: [provider()],
      cases: [
        {
          ref: 'repeated',
          vars: { ref: 'repeated' },
          conversations: [
            { messages: [user('Say hi')], repetitions: 3 },
            { messages: [user('Name a colour.'), hole('colour')] },
          ],
          asserts: [{ type: 'test:sees-conversation' }],
        },
      ],
    });
    const [result] = await run(suite, join(tmp.dir, 'runs-reps'));
    assert.deepEqual(sent(), [
      [{ role: 'user', content: 'Say hi' }],
      [{ role: 'user', content: 'Say hi' }],
      [{ role: 'user', content: 'Say hi' }],
      [{ role: 'user', content: 'Name a colour.' }],
    ]);
    assert.equal(result.status, 'pass');
    assert.deepEqual(result.answer.runs, [
      { conversation: 0, repetition: 0, completions: ['hi'] },
      { conversation: 0, repetition: 1, completions: ['hi'] },
      { conversation: 0, repetition: 2, completions: ['hi'] },
      { conversation: 1, repetition: 0, completions: ['red'], outputs: { colour: 'red' } },
    ]);
    assert.equal(result.output, 'red');
    const input = seen.get('repeated')!;
    assert.deepEqual(
      input.runs?.map((r) => [r.conversation, r.repetition, r.output]),
      [
        [0, 0, 'hi'],
        [0, 1, 'hi'],
        [0, 2, 'hi'],
        [1, 0, 'red'],
      ],
    );
    assert.deepEqual(
      input.runs?.[1].messages.map((m) => [m.role, m.content]),
      [
        ['user', 'Say hi'],
        ['assistant', 'hi'],
      ],
    );
  });

  it('repetitions are separate samples in the response cache; a rerun asks nothing', async () => {
    mock.resetStats();
    const suite = buildSuite({
      providers: [provider()],
      cases: [{ vars: { ref: 'cached' }, conversations: [{ messages: [user('Say hi')], repetitions: 3 }] }],
    });
    const cachePath = join(tmp.dir, 'cache.sqlite');
    const first = await evaluate({
      suite,
      runsDir: join(tmp.dir, 'runs-c1'),
      cache: { path: cachePath },
      env: {},
    });
    assert.equal(mock.stats().requests, 3);
    const second = await evaluate({
      suite,
      runsDir: join(tmp.dir, 'runs-c2'),
      cache: { path: cachePath },
      env: {},
    });
    assert.equal(mock.stats().requests, 3, 'the rerun is answered from the cache');
    assert.equal(first.scorecard.counts.pass, 1);
    assert.equal(second.scorecard.counts.pass, 1);
    for await (const r of readResults(second.runDir)) assert.equal(r.answer.cached, true);
  });

  it('re-scoring a run of a multi-hole case rebuilds its conversation with no model request', async () => {
    mock.resetStats();
    const messages = [
      user('Name a colour.'),
      hole('colour'),
      user('Name a fruit of that colour.'),
      hole('fruit'),
    ];
    const asked = (asserts: { type: string; value?: unknown }[]) =>
      buildSuite({
        providers: [provider()],
        cases: [{ ref: 'rescored', vars: { ref: 'rescored' }, conversations: [{ messages }], asserts }],
      });
    const first = await evaluate({
      suite: asked([{ type: 'equals', value: 'apple' }]),
      runsDir: join(tmp.dir, 'runs-r1'),
      cache: false,
      env: {},
    });
    assert.equal(first.scorecard.counts.fail, 1);
    assert.equal(mock.stats().requests, 2);
    mock.resetStats();
    seen.delete('rescored');
    const again = await evaluate({
      suite: asked([{ type: 'equals', value: 'cherry' }, { type: 'test:sees-conversation' }]),
      rescore: first.runDir,
      runsDir: join(tmp.dir, 'runs-r2'),
      cache: false,
      env: {},
    });
    assert.equal(mock.stats().requests, 0);
    assert.equal(again.scorecard.counts.pass, 1);
    const input = seen.get('rescored')!;
    assert.deepEqual(input.outputs, { colour: 'red', fruit: 'cherry' });
    assert.deepEqual(
      input.messages?.map((m) => m.content),
      ['Name a colour.', 'red', 'Name a fruit of that colour.', 'cherry'],
    );
    assert.equal(again.manifest.rescoredFrom?.runId, first.manifest.runId);
  });

  it('a provider error on a later hole makes the job an error from generation, keeping the runs so far', async () => {
    mock.resetStats();
    const failing = {
      id: 'openai:chat:m',
      config: { apiBaseUrl: `${mock.url}/_/status=400/v1`, maxRetries: 0 },
    };
    const suite = buildSuite({
      providers: [failing],
      cases: [
        {
          vars: { ref: 'broken' },
          conversations: [{ messages: [user('Say hi'), hole('a'), user('again'), hole('b')] }],
        },
      ],
    });
    const [result] = await run(suite, join(tmp.dir, 'runs-err'));
    assert.equal(result.status, 'error');
    assert.equal(result.errorStage, 'generation');
    assert.equal(mock.stats().requests, 1, 'generation stops at the first failed hole');
  });

  it('recorded completions stand in for the provider: no request, scorers see the filled runs', async () => {
    mock.resetStats();
    const suite = buildSuite({
      providers: [provider()],
      cases: [
        {
          ref: 'recorded',
          vars: { ref: 'recorded' },
          conversations: [
            {
              messages: [
                user('Name a colour.'),
                hole('colour'),
                user('Name a fruit of that colour.'),
                hole('fruit'),
              ],
            },
            { messages: [user('Say hi')], repetitions: 2 },
          ],
          recordedRuns: [['blue', 'blueberry'], ['hi'], ['hello']],
          asserts: [{ type: 'test:sees-conversation' }, { type: 'equals', value: 'hello' }],
        },
        {
          ref: 'short',
          vars: { ref: 'short' },
          conversations: [
            { messages: [user('Name a colour.'), hole('colour'), user('And a fruit?'), hole('fruit')] },
          ],
          recordedRuns: [['blue']],
          asserts: [{ type: 'test:sees-conversation' }],
        },
      ],
    });
    const results = await run(suite, join(tmp.dir, 'runs-recorded'));
    const result = results.find((r) => r.case.ref === 'recorded')!;
    const short = results.find((r) => r.case.ref === 'short')!;
    assert.equal(mock.requests.length, 0);
    assert.equal(result.status, 'pass', result.reason);
    assert.deepEqual(
      result.answer.runs?.map((r) => r.completions),
      [['blue', 'blueberry'], ['hi'], ['hello']],
    );
    const input = seen.get('recorded')!;
    assert.deepEqual(input.runs?.[0].outputs, { colour: 'blue', fruit: 'blueberry' });
    assert.deepEqual(
      input.runs?.[0].messages.map((m) => m.content),
      ['Name a colour.', 'blue', 'Name a fruit of that colour.', 'blueberry'],
    );
    assert.equal(input.runs?.[2].output, 'hello');
    // Recorded answers that do not fit the conversation are an error, not a guess.
    assert.equal(short.status, 'error');
    assert.match(short.reason, /run 1 has 2 hole\(s\) and 1 recorded completion/);
  });
});
