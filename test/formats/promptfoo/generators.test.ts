// Test generators (§1.4): real JavaScript and Python files on disk, run by the loader.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { errorsOf, loadText, plain, writeSuite } from './helpers.js';

const HEAD = 'prompts: ["{{q}}"]\nproviders: [echo]\n';

describe('JavaScript test generators (§1.4)', () => {
  it('calls an async default export with the {path, config} config', async () => {
    const suite = await loadText(`${HEAD}tests:\n  path: file://gen.mjs\n  config: {n: 2, word: hi}\n`, {
      'gen.mjs': `export default async function (config) {
  return Array.from({ length: config.n }, (_, i) => ({
    description: 'gen ' + i,
    vars: { q: config.word + i },
    assert: [{ type: 'contains', value: config.word }],
  }));
}
`,
    });
    assert.deepEqual(
      suite.cases.map((c) => [c.description, c.vars.q]),
      [
        ['gen 0', 'hi0'],
        ['gen 1', 'hi1'],
      ],
    );
    assert.deepEqual(plain(suite.cases[0].asserts), [{ type: 'contains', value: 'hi' }]);
    assert.equal(suite.cases[0].provenance?.source?.file.split('/').pop(), 'gen.mjs');
    assert.ok(suite.source.files?.includes('gen.mjs'), 'the generator counts in the content hash');
  });

  it('reads module.exports as a plain list, and a named function after ":"', async () => {
    const suite = await loadText(`${HEAD}tests:\n  - file://list.cjs\n  - file://named.js:make\n`, {
      'list.cjs': 'module.exports = [{ vars: { q: "from list" } }];\n',
      'named.js':
        'exports.make = (config) => [{ vars: { q: "named " + String(config) } }];\nexports.other = () => [];\n',
    });
    assert.deepEqual(
      suite.cases.map((c) => c.vars.q),
      ['from list', 'named undefined'],
    );
  });

  it('loads file:// values inside the config before calling the generator', async () => {
    const suite = await loadText(
      `${HEAD}tests:\n  - path: file://gen.mjs\n    config: {data: file://data.yaml, note: file://note.txt}\n`,
      {
        'gen.mjs': 'export default (c) => c.data.words.map((w) => ({ vars: { q: w + c.note } }));\n',
        'data.yaml': 'words: [a, b]\n',
        'note.txt': '!',
      },
    );
    assert.deepEqual(
      suite.cases.map((c) => c.vars.q),
      ['a!', 'b!'],
    );
  });

  it('reports a generator that throws, returns a non-list, lacks the function or will not load', async () => {
    const diags = await errorsOf(
      `${HEAD}tests:\n  - file://throws.mjs\n  - file://object.mjs\n  - file://named.mjs:nope\n  - file://broken.mjs\n`,
      {
        'throws.mjs': 'export default () => { throw new TypeError("no data"); };\n',
        'object.mjs': 'export default () => ({ vars: { q: 1 } });\n',
        'named.mjs': 'export const yes = () => [];\n',
        'broken.mjs': '// a generator\nexport default () => [\n  { vars: { q: 1 } ;\n];\n',
      },
    );
    const messages = diags.map((d) => `${d.line} ${d.message}`);
    assert.equal(messages[0], '4 test generator file://throws.mjs: the generator threw: TypeError: no data');
    assert.equal(
      messages[1],
      '5 test generator file://object.mjs must return a list of test cases, got {"vars":{"q":1}}',
    );
    assert.equal(messages[2], '6 test generator file://named.mjs:nope: it has no export named "nope"');
    assert.match(
      messages[3],
      /^7 test generator file:\/\/broken\.mjs: cannot load the module: SyntaxError: .* \(line 3, column 20\)$/,
    );
    // A TypeScript generator loads through tsx: test/fixtures/promptfoo/last-mile/typescript.
    assert.equal(messages.length, 4);
  });

  it('checks generated tests like inline ones, naming promptfoo’s test position', async () => {
    const diags = await errorsOf(`${HEAD}tests: file://gen.mjs\n`, {
      'gen.mjs': 'export default () => [{ vars: { q: 1 } }, { description: "only" }, 42];\n',
    });
    assert.equal(diags.length, 2);
    assert.equal(diags[0].file.split('/').pop(), 'promptfooconfig.yaml');
    assert.equal(diags[0].message, 'test generator file://gen.mjs: test case 3 must be a mapping, got 42');
    assert.equal(diags[1].file.split('/').pop(), 'gen.mjs');
    assert.match(diags[1].message, /^Test case must contain one of the following properties/);
  });
});

describe('Python test generators (§1.4)', () => {
  it('calls the named function with the config and reads its JSON result, ignoring what it prints', async () => {
    const suite = await loadText(
      `${HEAD}tests:\n  - path: file://gen.py:create_tests\n    config: {topics: [cats, dogs]}\n`,
      {
        'gen.py': `def create_tests(config):
    print("generating", config)
    return [{"vars": {"q": t}, "assert": [{"type": "contains", "value": t}]} for t in config["topics"]]
`,
      },
    );
    assert.deepEqual(
      suite.cases.map((c) => [c.vars.q, c.asserts[0].value]),
      [
        ['cats', 'cats'],
        ['dogs', 'dogs'],
      ],
    );
  });

  it('calls generate_tests without arguments by default, and awaits a coroutine', async () => {
    const suite = await loadText(`${HEAD}tests:\n  - file://gen.py\n  - file://agen.py:make\n`, {
      'gen.py': 'import helper\ndef generate_tests():\n    return [{"vars": {"q": helper.WORD}}]\n',
      'helper.py': 'WORD = "from a sibling module"\n',
      'agen.py': 'async def make():\n    return [{"vars": {"q": "async"}}]\n',
    });
    assert.deepEqual(
      suite.cases.map((c) => c.vars.q),
      ['from a sibling module', 'async'],
    );
  });

  it('reports a raise, a non-list, a missing function and an unserialisable result (a set, a NaN)', async () => {
    const diags = await errorsOf(
      `${HEAD}tests:\n  - file://raises.py\n  - file://dict.py\n  - file://gen.py:nope\n  - file://sets.py\n  - file://nan.py\n`,
      {
        'nan.py': 'def generate_tests():\n    return [{"vars": {"q": float("nan")}}]\n',
        'raises.py': 'def generate_tests():\n    raise ValueError("bad config")\n',
        'dict.py': 'def generate_tests():\n    return {"vars": {}}\n',
        'gen.py': 'def generate_tests():\n    return []\n',
        'sets.py': 'def generate_tests():\n    return [{"vars": {"q": {1, 2}}}]\n',
      },
    );
    const messages = diags.map((d) => `${d.line} ${d.message}`);
    assert.deepEqual(messages.slice(0, 3), [
      '4 test generator file://raises.py: the generator raised ValueError: bad config (line 2)',
      '5 test generator file://dict.py must return a list of test cases, got {"vars":{}}',
      '6 test generator file://gen.py:nope: it has no function named "nope"',
    ]);
    assert.match(
      messages[3],
      /^7 test generator file:\/\/sets\.py: its result is not JSON: .*not JSON serializable/,
    );
    // Python writes NaN into JSON, which no JSON reader accepts: said plainly, not "exited without a result".
    assert.equal(
      messages[4],
      '8 test generator file://nan.py: its result is not JSON: it holds NaN or Infinity, which JSON cannot represent',
    );
    assert.equal(messages.length, 5);
  });

  it('says how to proceed when Python cannot be started', async () => {
    const config = writeSuite({
      'promptfooconfig.yaml': `${HEAD}tests: file://gen.py\n`,
      'gen.py': 'def generate_tests():\n    return []\n',
    });
    await assert.rejects(
      loadPromptfooSuite(config, { env: { ASSAY_PYTHON: '/nonexistent/python3' } }),
      /Python 3 is needed to run it, but "\/nonexistent\/python3" could not be started .*set ASSAY_PYTHON/,
    );
  });
});
