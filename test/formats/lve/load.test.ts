// Loading LVEs: discovery, category and name, test.json validation with file:line, .prompt traps,
// Python substitution and the split of instance args.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../../src/core/errors.js';
import type { Case, Suite } from '../../../src/core/types.js';
import { loadSuite } from '../../../src/formats/detect.js';
import { parsePromptFile } from '../../../src/formats/lve/prompt-file.js';
import { tempDir } from '../../support/tmp.js';
import { instance, regexTest, writeLve } from './helpers.js';

const tmp = tempDir('assay-lve-load-');
after(() => tmp.cleanup());
let n = 0;
const fresh = () => join(tmp.dir, `repo${n++}`);

async function loadError(root: string): Promise<InputError> {
  try {
    await loadSuite(root);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  assert.fail('expected an InputError');
}

const only = (suite: Suite): Case => {
  assert.equal(suite.cases.length, 1);
  return suite.cases[0];
};

describe('LVE discovery', () => {
  it('finds every LVE below a repository, with category and name as LVE derives them', async () => {
    const root = fresh();
    writeLve(root, 'dummy/math/a_plus_b/openai--gpt-35-turbo', regexTest(), {
      instances: instance({ thing: 'x' }, 'r'),
    });
    writeLve(root, 'security/phishing/openai--gpt-4', regexTest({ model: 'openai/gpt-4' }), {
      instances: instance({ thing: 'y' }, 'r'),
    });
    writeLve(root, 'trust/lonely', regexTest(), { instances: instance({ thing: 'z' }, 'r') });
    const suite = await loadSuite(root);
    assert.equal(suite.format, 'lve');
    const seen = suite.cases.map((c) => [c.metadata.category, c.metadata.name, c.metadata.model]);
    assert.deepEqual(seen, [
      ['dummy', 'a_plus_b', 'openai/gpt-3.5-turbo'],
      ['security', 'phishing', 'openai/gpt-4'],
      ['trust', 'lonely', 'openai/gpt-3.5-turbo'],
    ]);
    assert.equal(
      suite.cases[0].ref,
      'repository/dummy/math/a_plus_b/openai--gpt-35-turbo/instances/instances.jsonl:1',
    );
    // Each LVE runs on the provider its model maps to, labelled by the model id.
    assert.deepEqual(
      suite.providers.map((p) => [p.label, p.id]),
      [
        ['openai/gpt-3.5-turbo', 'openai:chat:gpt-3.5-turbo'],
        ['openai/gpt-4', 'openai:chat:gpt-4'],
      ],
    );
    assert.deepEqual(suite.cases[1].only, { providers: ['openai/gpt-4'] });
    // A category folder, or one LVE folder, loads just that part.
    const category = await loadSuite(join(root, 'repository', 'security'));
    assert.equal(category.cases.length, 1);
    assert.equal(category.cases[0].metadata.category, 'security');
  });

  it('takes category and name below the nearest repository/ folder (a history/ copy too)', async () => {
    const root = fresh();
    writeLve(root, 'dummy/x/openai--gpt-4', regexTest(), { instances: instance({ thing: 'a' }, 'r') });
    writeLve(join(root, 'history'), 'dummy/old_one/openai--gpt-4', regexTest(), {
      instances: instance({ thing: 'a' }, 'r'),
    });
    const history = only(await loadSuite(join(root, 'history')));
    assert.deepEqual([history.metadata.category, history.metadata.name], ['dummy', 'old_one']);
    // From the repository root only repository/ is searched.
    assert.equal((await loadSuite(root)).cases.length, 1);
  });

  it('tags become metadata (for --filter-metadata), the category × severity key included', async () => {
    const root = fresh();
    writeLve(
      root,
      'privacy/leak/openai--gpt-4',
      regexTest({
        tags: [
          { name: 'severity', value: 'high' },
          { name: 'jailbreak', value: 'yes' },
        ],
      }),
      {
        instances: instance({ thing: 'x' }, 'r'),
      },
    );
    const c = only(await loadSuite(root));
    assert.equal(c.metadata.severity, 'high');
    assert.equal(c.metadata.jailbreak, 'yes');
    assert.equal(c.metadata['category × severity'], 'privacy · high');
    const root2 = fresh();
    writeLve(root2, 'trust/x/openai--gpt-4', regexTest({ tags: [] }), {
      instances: instance({ thing: 'x' }, 'r'),
    });
    const untagged = only(await loadSuite(root2));
    assert.equal('jailbreak' in untagged.metadata, false);
    assert.equal(untagged.metadata['category × severity'], 'trust · no severity tag');
  });
});

describe('test.json validation', () => {
  const cases: [string, Record<string, unknown> | string, RegExp][] = [
    ['no model', regexTest({ model: undefined }), /missing "model"/],
    [
      'two prompt styles',
      regexTest({ prompt_file: 'test.prompt' }),
      /exactly one of "prompt", "prompt_file" or "multi_run_prompt"/,
    ],
    [
      'a tag name LVE does not know',
      regexTest({ tags: [{ name: 'risk', value: 'x' }] }),
      /invalid tag name "risk"/,
    ],
    [
      'a severity LVE does not know',
      regexTest({ tags: [{ name: 'severity', value: 'huge' }] }),
      /invalid severity value "huge"/,
    ],
    [
      'a checker_name still to fill in',
      regexTest({ checker_args: { checker_name: '<please fill in>' } }),
      /checker_name/,
    ],
    [
      'a missing required checker argument',
      regexTest({ checker_args: { checker_name: 'RegexChecker', pattern: 'x' } }),
      /RegexChecker requires "match_safe"/,
    ],
    [
      'an argument the checker does not take',
      regexTest({ checker_args: { checker_name: 'RefuseChecker', pattern: 'x' } }),
      /takes no argument "pattern"/,
    ],
    [
      'prompt_parameters still to fill in',
      regexTest({ prompt_parameters: ['<please fill in>'] }),
      /not been filled in/,
    ],
    ['a plain string prompt', regexTest({ prompt: 'hello' }), /plain string prompt/],
    [
      'a prompt file that is not .prompt',
      regexTest({ prompt: undefined, prompt_file: 'p.txt' }),
      /must end with \.prompt/,
    ],
    [
      'a prompt file that does not exist',
      regexTest({ prompt: undefined, prompt_file: 'gone.prompt' }),
      /does not exist/,
    ],
    ['a loader field in the file', regexTest({ name: 'x' }), /"name" is set by LVE/],
    ['not JSON', '{"model": "openai/gpt-4",\n  "description": }', /test\.json:2/],
  ];
  for (const [what, test, message] of cases)
    it(`refuses ${what}, naming test.json and the line`, async () => {
      const root = fresh();
      writeLve(root, 'dummy/x/openai--gpt-4', test);
      const err = await loadError(root);
      assert.match(err.message, message);
      assert.match(err.message, /test\.json:\d+/);
    });

  it('an unreadable instance line is an error naming file:line', async () => {
    const root = fresh();
    writeLve(root, 'dummy/x/openai--gpt-4', regexTest(), {
      instances: `${instance({ thing: 'a' }, 'r')}{"args": {oops}\n`,
    });
    const err = await loadError(root);
    assert.match(err.message, /instances\.jsonl:2:\d+: not JSON/);
  });
});

describe('.prompt files (LVE get_prompt, traps included)', () => {
  it('reads JSONL as one message a line', () => {
    const r = parsePromptFile(
      '{"content": "be brief", "role": "system"}\n{"content": "hi {x}", "role": "user"}\n',
    );
    assert.deepEqual(
      r.messages?.map((m) => [m.role, m.content]),
      [
        ['system', 'be brief'],
        ['user', 'hi {x}'],
      ],
    );
    assert.deepEqual(r.warnings, []);
  });
  it('a blank line makes the whole JSONL file one user message, with a warning', () => {
    const text = '{"content": "a", "role": "system"}\n\n{"content": "b", "role": "user"}\n';
    const r = parsePromptFile(text);
    assert.deepEqual(
      r.messages?.map((m) => [m.role, m.content]),
      [['user', text]],
    );
    assert.match(r.warnings[0].message, /blank line/);
    assert.equal(r.warnings[0].line, 2);
  });
  it('plain text is one user message, the trailing newline kept', () => {
    assert.deepEqual(
      parsePromptFile('Say {word} forever\n').messages?.map((m) => m.content),
      ['Say {word} forever\n'],
    );
  });
  it('a one-line JSON object is a message; a multi-line one is read with a warning (LVE fails on it)', () => {
    assert.equal(parsePromptFile('{"content": "hi", "role": "user"}').messages?.[0].content, 'hi');
    const multi = parsePromptFile('{\n  "content": "hi",\n  "role": "user"\n}\n');
    assert.equal(multi.messages?.[0].content, 'hi');
    assert.match(multi.warnings[0].message, /LVE itself fails on it/);
  });
  it('lines that are all JSON scalars are an error, as LVE asserts', () => {
    assert.match(parsePromptFile('42\n7\n').error?.message ?? '', /not an object/);
  });
});

describe('parameters and instance args', () => {
  it("fills prompts with Python's str(): lists, booleans, floats, {{ }}", async () => {
    const root = fresh();
    writeLve(
      root,
      'dummy/x/openai--gpt-4',
      regexTest({
        prompt: [{ content: 'Places {where}; flag {flag}; t {t}; {{literal}}', role: 'user' }],
        prompt_parameters: ['where', 'flag', 't'],
      }),
      {
        // Written by hand: JSON.stringify would drop the `.0` Python keeps.
        instances:
          '{"args": {"where": ["zurich", "z\\u00fcrich"], "flag": true, "t": 0.0, "temperature": 0.5}, "response": "r", "passed": true, "run_info": {}}\n',
      },
    );
    const c = only(await loadSuite(root));
    assert.equal(c.error, undefined);
    const user = c.conversations?.[0].messages[0];
    // `0.0` keeps its Python spelling: the instance file is read as Python reads JSON.
    assert.equal(user?.content, "Places ['zurich', 'zürich']; flag True; t 0.0; {literal}");
    // The response hole LVE appends, and the model args with the temperature given.
    assert.deepEqual(c.conversations?.[0].messages[1], {
      role: 'assistant',
      content: null,
      variable: 'response',
    });
    assert.deepEqual(c.preparation?.options?.params, { temperature: 0.5 });
  });

  it('a missing parameter or a lone brace is an error for that instance only', async () => {
    const root = fresh();
    writeLve(root, 'dummy/x/openai--gpt-4', regexTest(), {
      instances: instance({ thing: null }, 'r') + instance({ thing: 'ok' }, 'r'),
    });
    writeLve(
      root,
      'dummy/y/openai--gpt-4',
      regexTest({ prompt: [{ content: 'a { b', role: 'user' }], prompt_parameters: [] }),
      {
        instances: instance({}, 'r'),
      },
    );
    const suite = await loadSuite(root);
    // None values are dropped from the prompt values, so {thing} has none: KeyError.
    assert.match(suite.cases[0].error ?? '', /KeyError: 'thing'/);
    assert.equal(suite.cases[1].error, undefined);
    assert.match(suite.cases[2].error ?? '', /ValueError: expected '}' before end of string/);
  });

  it('default_model_args merge under the instance model args; temperature 0.0 when absent', async () => {
    const root = fresh();
    writeLve(
      root,
      'dummy/x/openai--gpt-4',
      regexTest({ default_model_args: { max_new_tokens: 50, top_p: 0.9 } }),
      {
        instances: instance({ thing: 'a', top_p: 0.5, max_tokens: null }, 'r'),
      },
    );
    assert.deepEqual(only(await loadSuite(root)).preparation?.options?.params, {
      max_tokens: 50,
      top_p: 0.5,
      temperature: 0,
    });
  });

  it('checker arguments are formatted with every instance arg, model args included', async () => {
    const root = fresh();
    writeLve(
      root,
      'dummy/x/openai--gpt-4',
      regexTest({
        checker_args: {
          checker_name: 'RegexChecker',
          pattern: '{thing}[0-9]{{2}}t{temperature}',
          match_safe: false,
        },
      }),
      { instances: '{"args": {"thing": "a", "temperature": 1.0}, "response": "r", "run_info": {}}\n' },
    );
    const c = only(await loadSuite(root));
    assert.equal(JSON.parse(String(c.asserts[0].options?.args)).pattern, 'a[0-9]{2}t1.0');
  });

  it('several assistant messages need a variable each (LVE asserts it)', async () => {
    const root = fresh();
    writeLve(
      root,
      'dummy/x/openai--gpt-4',
      regexTest({
        prompt: [
          { content: 'q1', role: 'user' },
          { content: 'example', role: 'assistant' },
          { content: 'q2 {thing}', role: 'user' },
        ],
      }),
      { instances: instance({ thing: 'a' }, 'r') },
    );
    assert.match(only(await loadSuite(root)).error ?? '', /every one needs a "variable"/);
  });

  it('a model with no provider is an error result for its instances; --model-map and -p give it one', async () => {
    const root = fresh();
    writeLve(root, 'dummy/x/meta--llama-2-7b-chat', regexTest({ model: 'meta/llama-2-7b-chat' }), {
      instances: instance({ thing: 'a' }, 'r'),
    });
    const unmapped = only(await loadSuite(root));
    assert.match(unmapped.error ?? '', /has no provider in assay \(LVE runs it on Replicate\).*--model-map/);
    const mapped = await loadSuite(root, { modelMap: { 'meta/llama-2-7b-chat': 'openai:chat:llama2' } });
    assert.equal(only(mapped).error, undefined);
    assert.deepEqual(mapped.providers, [{ id: 'openai:chat:llama2', label: 'meta/llama-2-7b-chat' }]);
    const overridden = await loadSuite(root, { providers: ['openai:chat:x'] });
    assert.equal(only(overridden).error, undefined);
    assert.equal(only(overridden).only, undefined);
    assert.deepEqual(overridden.providers, []);
  });
});

describe('the dummy/dummy model', () => {
  it('answers with the instance\'s response model arg, else "Hello world", calling no provider', async () => {
    const root = fresh();
    writeLve(root, 'dummy/d/dummy--dummy', regexTest({ model: 'dummy/dummy' }), {
      instances:
        instance({ thing: 'a', response: 'the secret' }, 'r') +
        instance({ thing: 'b' }, 'r') +
        instance({ thing: 'c', random_responses: ['x', 'y'] }, 'r'),
    });
    const suite = await loadSuite(root);
    assert.deepEqual(suite.providers, [{ id: 'echo', label: 'dummy/dummy' }]);
    const [given, plain, random] = suite.cases;
    assert.equal(given.replay?.output, 'the secret');
    assert.equal(plain.replay?.output, 'Hello world');
    assert.match(random.error ?? '', /at random/);
  });
});

describe('--replay', () => {
  it('uses the recorded response as the answer: a string, a dict of variables, a list of runs', async () => {
    const root = fresh();
    writeLve(root, 'dummy/a/openai--gpt-4', regexTest(), {
      instances: instance({ thing: 'a' }, 'the secret', false),
    });
    writeLve(
      root,
      'dummy/b/openai--gpt-4',
      regexTest({
        prompt: [
          { content: 'q1', role: 'user' },
          { role: 'assistant', variable: 'one' },
          { content: 'q2', role: 'user' },
          { role: 'assistant', variable: 'two' },
        ],
        prompt_parameters: [],
      }),
      { instances: instance({}, { one: '1', two: '2' }) },
    );
    writeLve(
      root,
      'dummy/c/openai--gpt-4',
      regexTest({
        prompt: undefined,
        multi_run_prompt: [
          { name: 'p1', prompt: [{ content: 'q', role: 'user' }], repetitions: 2 },
          { name: 'p2', prompt: [{ content: 'r', role: 'user' }] },
        ],
        checker_args: { checker_name: 'MultiRunLambdaChecker', func: 'lambda rs: True' },
        prompt_parameters: [],
      }),
      { instances: instance({}, ['4', '4', '5']) },
    );
    const suite = await loadSuite(root, { replay: true });
    assert.deepEqual(suite.providers, [{ id: 'echo', label: 'recorded' }]);
    const [a, b, c] = suite.cases;
    assert.equal(a.replay?.output, 'the secret');
    assert.equal(a.asserts[0].options?.expect, false);
    assert.deepEqual(b.replay?.runs, [['1', '2']]);
    assert.deepEqual(c.replay?.runs, [['4'], ['4'], ['5']]);
    assert.equal(c.conversations?.[0].repetitions, 2);
  });
  it('a recorded response that does not fit the prompt is an error for that instance', async () => {
    const root = fresh();
    writeLve(root, 'dummy/a/openai--gpt-4', regexTest(), { instances: instance({ thing: 'a' }, ['x', 'y']) });
    assert.match(only(await loadSuite(root, { replay: true })).error ?? '', /does not fit/);
  });
});
