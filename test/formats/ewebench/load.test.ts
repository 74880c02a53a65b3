import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../../src/core/errors.js';
import { loadSuite } from '../../../src/formats/detect.js';
import { eweNative } from '../../../src/formats/ewebench/load.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const mini = fixture('ewebench', 'mini');
const tmp = tempDir('assay-ewebench-load-');
after(() => tmp.cleanup());

function write(name: string, files: Record<string, unknown>): string {
  const dir = join(tmp.dir, name);
  mkdirSync(join(dir, 'tests'), { recursive: true });
  for (const [file, content] of Object.entries(files))
    writeFileSync(
      join(dir, 'tests', file),
      typeof content === 'string' ? content : JSON.stringify(content, null, 2),
    );
  return dir;
}

async function loadError(path: string, options = {}): Promise<InputError> {
  try {
    await loadSuite(path, options);
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    return err;
  }
  assert.fail('expected an InputError');
}

describe('ÈwéBench loading', () => {
  it('recognises the folder, its tests/ folder and one category file by shape', async () => {
    for (const path of [mini, join(mini, 'tests'), join(mini, 'tests', 'agentic.json')]) {
      const suite = await loadSuite(path);
      assert.equal(suite.format, 'ewebench', path);
    }
    assert.equal((await loadSuite(join(mini, 'tests', 'agentic.json'))).cases.length, 2);
  });

  it('builds one case per test, in the tool order of categories, with the tool request', async () => {
    const suite = await loadSuite(mini);
    assert.equal(suite.cases.length, 11);
    assert.deepEqual(
      [...new Set(suite.cases.map((c) => c.metadata.category))],
      ['linguistic_comprehension', 'text_generation', 'reasoning', 'multi_turn', 'agentic'],
    );
    const first = suite.cases[0];
    assert.deepEqual(first.conversations?.[0].messages, [
      { role: 'system', content: 'Tu es Yawo, un assistant IA qui répond en Ewe.' },
      { role: 'user', content: "Ŋkɔ kae nye ŋutsu la tɔ? 'Kofi le afi sia.'" },
      { role: 'assistant', content: null },
    ]);
    assert.deepEqual(first.preparation?.options?.params, { temperature: 0.3, max_tokens: 1024 });
    assert.equal(first.scoring?.threshold, 0.7);
    assert.equal(first.scoring?.thresholdDigits, 3);
    assert.deepEqual(first.metadata, {
      category: 'linguistic_comprehension',
      test_id: 'lc_01',
      eval_method: 'exact_match',
    });
    // messages are sent verbatim, with no default system prompt added
    const multi = suite.cases.find((c) => c.metadata.test_id === 'mt_01');
    assert.equal(multi?.conversations?.[0].messages[0].content, 'Tu es Yawo.');
    assert.equal(multi?.conversations?.[0].messages.length, 5);
    assert.equal(suite.scoring.weightedScore?.name, 'ÈwéScore');
    assert.deepEqual(Object.entries(suite.scoring.weightedScore?.weights ?? {}).slice(0, 3), [
      ['linguistic_comprehension', 0.15],
      ['text_generation', 0.15],
      ['reasoning', 0.12],
    ]);
    assert.equal(eweNative.read(suite.native).mode, 'compat');
    assert.equal(suite.scoring.scoreErrorsAs, '[ERROR] {error}');
  });

  it('warns, per test id with file and line, about what the tool mishandles', async () => {
    const suite = await loadSuite(mini);
    const text = suite.warnings.map((w) => `${w.file}:${w.line}: ${w.message}`);
    const find = (re: RegExp) => text.find((t) => re.test(t));
    assert.match(
      find(/rs_01/) ?? '',
      /reasoning\.json:2: test "rs_01": exact_match test has no "expected".*KeyError/,
    );
    assert.match(
      find(/no_french/) ?? '',
      /text_generation\.json:\d+: test "tg_02": expected_format key "no_french" is ignored/,
    );
    assert.match(
      find(/contains_function_call is false/) ?? '',
      /agentic\.json:9: test "ag_02": .*false.*ignores the value/,
    );
    assert.match(find(/bleu/) ?? '', /test "tg_03": unknown eval_method "bleu": scored as ewe_quality/);
    assert.equal(suite.warnings.length, 4);
  });

  it('--category selects categories; an unknown one is refused with the list', async () => {
    const suite = await loadSuite(mini, { categories: ['agentic', 'multi_turn'] });
    assert.deepEqual([...new Set(suite.cases.map((c) => c.metadata.category))], ['multi_turn', 'agentic']);
    const err = await loadError(mini, { categories: ['agentics'] });
    assert.match(
      err.message,
      /--category agentics: unknown category; expected one of: linguistic_comprehension/,
    );
  });

  it('--mode fixed is recorded and changes the suite identity', async () => {
    const compat = await loadSuite(mini);
    const fixed = await loadSuite(mini, { mode: 'fixed' });
    assert.equal(eweNative.read(fixed.native).mode, 'fixed');
    assert.equal(fixed.scoring.scoreErrorsAs, undefined);
    assert.equal(fixed.scoring.weightedScore?.unscoredErrors, 'zero');
    assert.notEqual(fixed.source.contentHash, compat.source.contentHash);
  });

  it('refuses a broken file with file, line and column', async () => {
    const dir = write('broken', { 'agentic.json': '[\n  {"id": "a", "prompt": "x",}\n]' });
    const err = await loadError(dir);
    assert.match(err.message, /agentic\.json:2:\d+: invalid JSON/);
  });

  it('refuses tests the tool would crash on or misread, each with its line', async () => {
    const dir = write('bad', {
      'agentic.json': [
        { id: 'a1', prompt: 'x', eval_method: 'keywords', expected_keywords: 'abc' },
        { id: 'a2', eval_method: 'keywords', expected_keywords: ['x'] },
        { id: 'a3', prompt: 'x', eval_method: 'format', expected_format: { min_length: '40' } },
        { id: 'a4', prompt: 'x', eval_method: 'exact_match', expected: 5 },
        { id: 'a5', messages: [{ role: 'user' }], eval_method: 'keywords', expected_keywords: ['x'] },
      ],
    });
    const err = await loadError(dir);
    const lines = err.diagnostics.map((d) => `${d.line}: ${d.message}`);
    assert.deepEqual(lines, [
      '2: test "a1": "expected_keywords" must be a list of strings, got a string',
      '8: test "a2": has neither "prompt" nor "messages"',
      '15: test "a3": expected_format.min_length must be a number, got a string',
      '23: test "a4": "expected" must be a string, got a number',
      '29: test "a5": messages[0] must be {role, content} with string values',
    ]);
  });

  it('warns when a format or composite test can only score 0 for format', async () => {
    const dir = write('zero-format', {
      'agentic.json': [
        { id: 'v1', prompt: 'x', eval_method: 'format' },
        { id: 'v2', prompt: 'x', eval_method: 'composite', expected_keywords: ['a'] },
        { id: 'v3', prompt: 'x', eval_method: 'format', expected_format: {} },
        { id: 'v4', prompt: 'x', eval_method: 'format', expected_format: { no_french: true } },
        { id: 'ok', prompt: 'x', eval_method: 'format', expected_format: { min_length: 3, no_french: true } },
      ],
    });
    const suite = await loadSuite(dir);
    const zero = suite.warnings.filter((w) => /scores 0/.test(w.message)).map((w) => w.message);
    assert.deepEqual(zero, [
      'test "v1": format test has no expected_format: it always scores 0 (as in the ÈwéBench tool)',
      'test "v2": composite test has no expected_format: its format part always scores 0 (as in the ÈwéBench tool)',
      'test "v3": format test\'s expected_format has none of the keys the scorer checks (contains_ewe, min_length, max_length, contains_function_call, markdown_elements): it always scores 0 (as in the ÈwéBench tool)',
      'test "v4": format test\'s expected_format has none of the keys the scorer checks (contains_ewe, min_length, max_length, contains_function_call, markdown_elements): it always scores 0 (as in the ÈwéBench tool)',
    ]);
  });

  it('accepts a bool length bound as Python compares it (True is 1)', async () => {
    const dir = write('bool-length', {
      'agentic.json': [
        {
          id: 'b',
          prompt: 'x',
          eval_method: 'format',
          expected_format: { min_length: true, max_length: false },
        },
      ],
    });
    const suite = await loadSuite(dir);
    const parts = suite.cases[0].asserts[0].value as { value: unknown }[];
    assert.deepEqual(
      parts.map((p) => p.value),
      [{ min: 1 }, { max: 0 }],
    );
  });

  it("refuses a file with a UTF-8 byte-order mark, as Python's json.load does", async () => {
    const tests = JSON.stringify([
      { id: 'a', prompt: 'x', eval_method: 'keywords', expected_keywords: ['x'] },
    ]);
    const dir = write('bom', { 'agentic.json': `\ufeff${tests}` });
    const err = await loadError(dir);
    assert.match(
      err.message,
      /agentic\.json:1:1: starts with a UTF-8 byte-order mark, which Python's json\.load rejects/,
    );
    // A single such file is still recognised as ÈwéBench, so the message is the same.
    const single = await loadError(join(dir, 'tests', 'agentic.json'));
    assert.match(single.message, /starts with a UTF-8 byte-order mark/);
  });

  it('ignores files that are not category files, saying so', async () => {
    const dir = write('extra', {
      'agentic.json': [{ id: 'a', prompt: 'x', eval_method: 'keywords', expected_keywords: ['x'] }],
      'notes.json': [{ id: 'n', prompt: 'y', eval_method: 'keywords', expected_keywords: ['y'] }],
    });
    const suite = await loadSuite(dir);
    assert.equal(suite.cases.length, 1);
    assert.match(
      suite.warnings.map((w) => `${w.file}: ${w.message}`).join('\n'),
      /notes\.json: not an ÈwéBench category file: ignored/,
    );
  });

  it('a JSON array without ÈwéBench fields is not taken for an ÈwéBench suite', async () => {
    const dir = join(tmp.dir, 'other');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'data.json'), JSON.stringify([{ prompt: 'x', answer: 'y' }]));
    const err = await loadError(join(dir, 'data.json'));
    assert.match(err.message, /not a suite assay recognises/);
  });
});
