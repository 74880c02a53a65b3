// LVE end to end: a multi_run_prompt that makes exactly one run (one entry, one repetition).
// Upstream's MultiRunBaseChecker.invoke_check always returns a list of responses and hands its
// checker a list of conversations, whatever their number.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { instance, regexTest, writeLve } from '../formats/lve/helpers.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-cli-lve-single-');
let mock: MockServer;
let n = 0;
before(async () => {
  mock = await startMockServer({ answers: [{ match: 'Compute (\\d+) \\+ (\\d+)', reply: '44' }] });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});
async function assay(args: string[]) {
  const runs = join(tmp.dir, `runs-${n++}`);
  return runCli([...args, '--no-progress', '--runs-dir', runs], {
    env: { ...cleanEnv, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'test-key' },
  });
}

describe('a multi-run prompt with a single run', () => {
  it('records the response as a one-element list, and replays an upstream-shaped ["44"]', async () => {
    const repo = join(tmp.dir, 'one-run');
    const rel = 'dummy/math/one_run/openai--gpt-35-turbo';
    writeLve(
      repo,
      rel,
      {
        description: 'multi-run, one entry',
        model: 'openai/gpt-3.5-turbo',
        checker_args: {
          checker_name: 'MultiRunLambdaChecker',
          func: 'lambda rs, a, b: all(int(r) == int(a) + int(b) for r in rs)',
        },
        multi_run_prompt: [
          { name: 'only', prompt: [{ content: 'Compute {a} + {b}.', role: 'user' }], repetitions: 1 },
        ],
        prompt_parameters: ['a', 'b'],
      },
      { instances: instance({ a: '20', b: '24' }, ['44']) },
    );
    const replay = await assay(['eval', repo, '--replay']);
    assert.equal(replay.code, 0, replay.stdout);
    const r = await assay(['eval', repo, '--no-cache', '--record', 'again.jsonl']);
    assert.equal(r.code, 0, r.stdout);
    const recorded = readFileSync(join(repo, 'repository', rel, 'instances', 'again.jsonl'), 'utf8');
    assert.match(recorded, /"response":\["44"\],"passed":true/);
  });

  it('a custom MultiRunBaseChecker is given a list of one conversation', async () => {
    const repo = join(tmp.dir, 'one-run-custom');
    const rel = 'dummy/math/one_run_custom/openai--gpt-35-turbo';
    const dir = writeLve(
      repo,
      rel,
      {
        description: 'multi-run, one entry, custom checker',
        model: 'openai/gpt-3.5-turbo',
        checker_args: { checker_name: 'OneRun' },
        multi_run_prompt: [
          { name: 'only', prompt: [{ content: 'Compute {a} + {b}.', role: 'user' }], repetitions: 1 },
        ],
        prompt_parameters: ['a', 'b'],
      },
      { instances: instance({ a: '20', b: '24' }, ['44']) },
    );
    mkdirSync(join(dir, 'checker'), { recursive: true });
    writeFileSync(
      join(dir, 'checker', 'checker_one.py'),
      [
        'from lve.checkers.base import MultiRunBaseChecker',
        '',
        'class OneRun(MultiRunBaseChecker):',
        '    def is_safe(self, prompt_out, param_values=None):',
        '        assert isinstance(prompt_out, list) and isinstance(prompt_out[0], list), repr(prompt_out)',
        '        return len(prompt_out) == 1 and prompt_out[0][-1].content == "44"',
        '',
      ].join('\n'),
    );
    const replay = await assay(['eval', repo, '--replay']);
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    const r = await assay(['eval', repo, '--no-cache', '--record', 'again.jsonl']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const recorded = readFileSync(join(repo, 'repository', rel, 'instances', 'again.jsonl'), 'utf8');
    assert.match(recorded, /"response":\["44"\],"passed":true/);
  });

  it('a literal named assistant message: the checker sees every variable and --record writes the dict', async () => {
    const repo = join(tmp.dir, 'literal-named');
    const rel = 'dummy/math/literal_named/openai--gpt-35-turbo';
    const dir = writeLve(
      repo,
      rel,
      {
        description: 'a literal assistant message with a variable',
        model: 'openai/gpt-3.5-turbo',
        checker_args: { checker_name: 'Vars' },
        prompt: [
          { content: 'hi {a}', role: 'user' },
          { content: 'ok', role: 'assistant', variable: 'ex' },
          { content: 'Compute {a} + {b}.', role: 'user' },
        ],
        prompt_parameters: ['a', 'b'],
      },
      { instances: instance({ a: '20', b: '24' }, { ex: 'ok', response: '44' }) },
    );
    mkdirSync(join(dir, 'checker'), { recursive: true });
    writeFileSync(
      join(dir, 'checker', 'checker_vars.py'),
      [
        'from lve.checkers.base import BaseChecker',
        '',
        'class Vars(BaseChecker):',
        '    def is_safe(self, prompt_out, param_values=None):',
        '        got = [(m.role, m.content, m.variable) for m in prompt_out if m.role == "assistant"]',
        '        assert got == [("assistant", "ok", "ex"), ("assistant", "44", "response")], repr(got)',
        '        return True',
        '',
      ].join('\n'),
    );
    const replay = await assay(['eval', repo, '--replay']);
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    const r = await assay(['eval', repo, '--no-cache', '--record', 'again.jsonl']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const recorded = readFileSync(join(repo, 'repository', rel, 'instances', 'again.jsonl'), 'utf8');
    assert.match(recorded, /"response":\{"ex":"ok","response":"44"\},"passed":true/);
  });

  it("an instance's passed is read as pydantic reads a bool; null is an error at its line", async () => {
    const repo = join(tmp.dir, 'lax-bool');
    const rel = 'dummy/lax/passed/openai--gpt-35-turbo';
    const line = (passed: string) =>
      `{"args": {"thing": "x"}, "response": "a secret", "passed": ${passed}, "author": null, "run_info": {}}\n`;
    writeLve(repo, rel, regexTest(), {
      instances: ['"false"', '0', '"off"', '"F"', '0.0'].map(line).join(''),
    });
    const ok = await assay(['eval', repo, '--replay']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /5 passed|passed: 5|5\/5/);
    writeLve(repo, rel, regexTest(), { instances: line('false') + line('null') });
    const bad = await assay(['eval', repo, '--replay']);
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /instances\.jsonl:2\b.*"passed" must be a boolean/);
  });

  it('a custom checker class named like a built-in replaces it for its LVE', async () => {
    const repo = join(tmp.dir, 'shadow');
    const rel = 'dummy/shadow/regex/openai--gpt-35-turbo';
    const dir = writeLve(
      repo,
      rel,
      regexTest({ checker_args: { checker_name: 'RegexChecker', word: 'fine' } }),
      { instances: instance({ thing: 'x' }, 'all fine') + instance({ thing: 'y' }, 'bad', false) },
    );
    mkdirSync(join(dir, 'checker'), { recursive: true });
    writeFileSync(
      join(dir, 'checker', 'checker.py'),
      [
        'from lve.checkers.base import BaseChecker',
        '',
        'class RegexChecker(BaseChecker):',
        '    def __init__(self, word):',
        '        super().__init__()',
        '        self.word = word',
        '',
        '    def is_safe(self, prompt_out, param_values=None):',
        '        return self.word in prompt_out[-1].content',
        '',
      ].join('\n'),
    );
    const replay = await assay(['eval', repo, '--replay']);
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  });
});
