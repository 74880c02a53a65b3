import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../../src/core/errors.js';
import type { Suite } from '../../../src/core/types.js';
import { SELF_GRADER } from '../../../src/core/types.js';
import { loadSuite } from '../../../src/formats/detect.js';
import { pramanaNative } from '../../../src/formats/pramana/load.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

const V1 = fixture('pramana', 'v1.0');

function line(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 't-1',
    category: 'factual',
    input: 'What is 2+2?',
    ideal: ['4'],
    assertion: { type: 'contains' },
    metadata: { difficulty: 'easy', tokens_est: 5, tags: [] },
    ...fields,
  });
}

async function loadText(text: string, name = 'tier.jsonl'): Promise<Suite> {
  const { dir, cleanup } = tempDir();
  try {
    const file = join(dir, name);
    writeFileSync(file, text);
    return await loadSuite(file);
  } finally {
    cleanup();
  }
}

async function loadErrors(text: string): Promise<string[]> {
  try {
    await loadText(text);
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    return err.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.line}:${d.col ?? ''} ${d.message}`);
  }
  assert.fail('the suite loaded');
}

function count(suite: Suite, key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of suite.cases) {
    const v = String(c.metadata[key]);
    out[v] = (out[v] ?? 0) + 1;
  }
  return out;
}

describe('pramana: the shipped tiers', () => {
  const expected = {
    cheap: { tests: 10, categories: [3, 2, 2, 1, 1, 1], difficulty: [7, 2, 1] },
    moderate: { tests: 25, categories: [6, 5, 5, 4, 3, 2], difficulty: [15, 7, 3] },
    comprehensive: { tests: 75, categories: [17, 16, 10, 15, 9, 8], difficulty: [45, 24, 6] },
  };
  for (const [tier, e] of Object.entries(expected)) {
    it(`${tier} loads with every test, category and difficulty (spec §6)`, async () => {
      const suite = await loadSuite(join(V1, `${tier}.jsonl`));
      assert.equal(suite.format, 'pramana');
      assert.equal(suite.cases.length, e.tests);
      assert.deepEqual(suite.warnings, []);
      const cats = count(suite, 'category');
      const order = ['reasoning', 'factual', 'instruction_following', 'coding', 'safety', 'creative'];
      assert.deepEqual(
        order.map((c) => cats[c]),
        e.categories,
      );
      const diff = count(suite, 'difficulty');
      assert.deepEqual([diff.easy, diff.medium, diff.hard], e.difficulty);
      assert.deepEqual(suite.scoring.breakdowns, ['category', 'difficulty']);
      assert.deepEqual(suite.grader, { id: SELF_GRADER });
      assert.equal(suite.providers.length, 0);
      const native = pramanaNative.read(suite.native).pramana;
      assert.deepEqual(
        native.tiers.map((t) => [t.suiteVersion, t.tests]),
        [[`v1.0-${tier}`, e.tests]],
      );
    });
  }

  it('sends the input as the one user message, with pramana parameters', async () => {
    const suite = await loadSuite(join(V1, 'cheap.jsonl'));
    const c = suite.cases[0];
    assert.equal(c.id, 'cheap/cheap-001');
    assert.deepEqual(c.conversations, [
      {
        messages: [
          { role: 'user', content: 'Calculate: 2 + 2 * 2' },
          { role: 'assistant', content: null },
        ],
      },
    ]);
    assert.deepEqual(suite.prompts[0].config, { temperature: 0, seed: 42, max_completion_tokens: 1000 });
    assert.deepEqual(c.metadata, {
      pramana_id: 'cheap-001',
      tier: 'cheap',
      category: 'reasoning',
      difficulty: 'easy',
      tags: ['math', 'order_of_operations'],
      tokens_est: 20,
    });
  });

  it('maps each assertion type onto a general scorer with pramana parameters', async () => {
    const suite = await loadSuite(join(V1, 'cheap.jsonl'));
    const byId = new Map(suite.cases.map((c) => [c.description, c.asserts[0]]));
    assert.deepEqual(byId.get('cheap-003')?.type, 'py-equals');
    assert.equal(byId.get('cheap-003')?.options?.caseSensitive, true, 'case_sensitive defaults to true');
    assert.equal(byId.get('cheap-002')?.type, 'py-contains-any');
    assert.equal(byId.get('cheap-002')?.options?.caseSensitive, false);
    assert.equal(byId.get('cheap-008')?.type, 'py-is-json');
    const judge = byId.get('cheap-010');
    assert.equal(judge?.type, 'judge-yes-no');
    assert.equal(judge?.value, 'Does this text contain exactly 3 lines following 5-7-5 syllable pattern?');
    assert.deepEqual(judge?.options?.params, { temperature: 0, seed: 42, max_completion_tokens: 1000 });
    assert.ok(
      suite.cases.every((c) => c.asserts[0].literal === true),
      'values are never templates',
    );
  });
});

describe('pramana: a suite folder with manifest.toml', () => {
  it('runs the cheapest tier by default and says what else there is', async () => {
    const suite = await loadSuite(V1);
    assert.equal(suite.cases.length, 10);
    assert.equal(
      suite.source.nativeHash,
      'sha256:174f832683e268f6b25ad0c4b6ff0c87fcb4f9b4cf9a5cef2022f408e6a8e47f',
    );
    assert.equal(suite.warnings.length, 1);
    assert.match(
      suite.warnings[0].message,
      /running the cheapest tier, cheap; .*moderate \(25 tests\), comprehensive \(75 tests\)/,
    );
  });

  it('--tier picks tiers (several, or all); several tiers have a hash each and none overall', async () => {
    const two = await loadSuite(V1, { tiers: ['comprehensive', 'cheap'] });
    assert.equal(two.cases.length, 85);
    assert.equal(two.cases[0].metadata.tier, 'cheap', 'manifest order');
    assert.equal(two.source.nativeHash, undefined);
    assert.deepEqual(Object.keys(two.source.nativeHashes ?? {}), ['cheap', 'comprehensive']);
    const all = await loadSuite(V1, { tiers: ['all'] });
    assert.equal(all.cases.length, 110);
    assert.deepEqual(all.warnings, []);
  });

  it('refuses an unknown tier, naming the ones there are', async () => {
    await assert.rejects(
      loadSuite(V1, { tiers: ['huge'] }),
      /--tier huge: no such tier; this suite has cheap, moderate, comprehensive/,
    );
    // `all` does not hide a bad name next to it.
    await assert.rejects(loadSuite(V1, { tiers: ['all', 'bogus'] }), /--tier bogus: no such tier/);
    await assert.rejects(
      loadSuite(join(V1, 'cheap.jsonl'), { tiers: ['moderate'] }),
      /this file is the cheap tier/,
    );
  });

  it('warns when a test count disagrees with the manifest, naming both numbers', async () => {
    const { dir, cleanup } = tempDir();
    try {
      for (const f of ['manifest.toml', 'cheap.jsonl', 'moderate.jsonl'])
        copyFileSync(join(V1, f), join(dir, f));
      writeFileSync(join(dir, 'comprehensive.jsonl'), `${line()}\n`);
      const suite = await loadSuite(dir, { tiers: ['cheap'] });
      const messages = suite.warnings.map((w) => `${w.line}: ${w.message}`);
      assert.ok(
        messages.includes('22: tiers.comprehensive.test_count is 75, but comprehensive.jsonl has 1 tests'),
        messages.join('\n'),
      );
      writeFileSync(join(dir, 'cheap.jsonl'), `${line()}\n${line({ id: 't-2' })}\n`);
      const cheap = await loadSuite(dir, { tiers: ['cheap'] });
      assert.ok(
        cheap.warnings.some(
          (w) =>
            w.line === 8 &&
            w.message === `tiers.cheap.test_count is 10, but ${join(dir, 'cheap.jsonl')} has 2 tests`,
        ),
      );
    } finally {
      cleanup();
    }
  });

  it('reports a broken manifest with its line and column, and a missing tier file', async () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, 'a.jsonl'), `${line()}\n`);
      writeFileSync(join(dir, 'manifest.toml'), '[tiers.a]\nfile = "a.jsonl"\ntest_count = = 1\n');
      await assert.rejects(loadSuite(dir), (err: unknown) => {
        assert.ok(err instanceof InputError);
        assert.equal(err.diagnostics[0].line, 3);
        assert.match(err.diagnostics[0].message, /invalid TOML/);
        return true;
      });
      // A string left open: said as such, not as a "control character" in it.
      writeFileSync(join(dir, 'manifest.toml'), '[suite]\nversion = "v1.0\n[tiers.a]\nfile = "a.jsonl"\n');
      await assert.rejects(loadSuite(dir), (err: unknown) => {
        assert.ok(err instanceof InputError);
        assert.equal(err.diagnostics[0].line, 2);
        assert.match(err.diagnostics[0].message, /invalid TOML: a string is not closed/);
        return true;
      });
      writeFileSync(
        join(dir, 'manifest.toml'),
        '[tiers.a]\nfile = "a.jsonl"\n\n[tiers.b]\nfile = "b.jsonl"\n',
      );
      await assert.rejects(loadSuite(dir, { tiers: ['b'] }), /:5: tiers\.b\.file: no such file/);
    } finally {
      cleanup();
    }
  });
});

describe('pramana: fields, types and defaults (spec §1)', () => {
  it('reports every bad line as file:line: field: problem, and loads nothing', async () => {
    const text = [
      line(),
      line({ category: 'math' }),
      '{"id": "t-3", "category": "factual",',
      line({ ideal: 5, metadata: { difficulty: 'Easy', tokens_est: 20.5 } }),
      line({ assertion: { type: 'regex', case_sensitive: 'maybe' } }),
      '[1, 2]',
      line({ id: 7, input: { role: 'user' } }),
      line({ metadata: { tokens_est: 1, tags: [1] } }),
    ].join('\n');
    assert.deepEqual(await loadErrors(text), [
      '2: category: expected one of reasoning, factual, instruction_following, coding, safety, creative; got a string "math"',
      '3:37 not valid JSON: Expecting property name enclosed in double quotes',
      '4: ideal: expected a string, a list of strings or null, got the number 5',
      '4: metadata.difficulty: expected easy, medium or hard; got a string "Easy"',
      '4: metadata.tokens_est: expected a whole number, got the number 20.5',
      '5: assertion.type: expected one of exact_match, contains, contains_any, is_json, llm_judge, semantic_similarity; got a string "regex"',
      '5: assertion.case_sensitive: expected a boolean, got a string "maybe"',
      '6: (line): expected a JSON object, got a list',
      '7: id: expected a string, got the number 7',
      '7: input: expected a string or a list of chat messages, got an object',
      '8: metadata.difficulty: required field is missing',
      '8: metadata.tags[0]: expected a string, got the number 1',
    ]);
  });

  it('loads a chat input pramana cannot send (it would stop the run) as a case that errors with its exception', async () => {
    const suite = await loadText(
      [line({ input: [] }), line({ id: 't-2', input: [{ role: 'user' }] }), line({ id: 't-3' })].join('\n'),
    );
    assert.deepEqual(
      suite.cases.map((c) => c.error),
      ['IndexError: list index out of range', "KeyError: 'content'", undefined],
    );
    assert.deepEqual(
      suite.warnings.map((w) => `${w.line}: ${w.message}`).filter((m) => m.includes('input:')),
      [
        '1: input: a chat list without a first message content (IndexError: list index out of range): pramana stops the whole run at this test; assay records it as an error and goes on',
        "2: input: a chat list without a first message content (KeyError: 'content'): pramana stops the whole run at this test; assay records it as an error and goes on",
      ],
    );
  });

  it('reports missing required fields and non-string ideal items', async () => {
    assert.deepEqual(await loadErrors(`${line()}\n{"ideal": ["a", 1]}`), [
      '2: id: required field is missing',
      '2: category: required field is missing',
      '2: input: required field is missing',
      '2: ideal[1]: expected a string, got the number 1',
      '2: assertion: required field is missing',
      '2: metadata: required field is missing',
    ]);
  });

  it("accepts what pydantic's lax mode accepts", async () => {
    const suite = await loadText(
      [
        line({
          id: 'a',
          assertion: { type: 'contains', case_sensitive: 'no' },
          metadata: { difficulty: 'easy', tokens_est: '20' },
        }),
        line({
          id: 'b',
          assertion: { type: 'contains', case_sensitive: 0 },
          metadata: { difficulty: 'hard', tokens_est: 20.0 },
        }),
        line({
          id: 'c',
          assertion: { type: 'contains', case_sensitive: 'TRUE', threshold: '0.5' },
          metadata: { difficulty: 'medium', tokens_est: ' 1_000 ' },
        }),
        line({
          id: 'd',
          ideal: null,
          assertion: { type: 'is_json' },
          metadata: { difficulty: 'easy', tokens_est: true },
        }),
      ].join('\n'),
    );
    assert.deepEqual(
      suite.cases.map((c) => [c.asserts[0].options?.caseSensitive, c.metadata.tokens_est, c.metadata.tags]),
      [
        [false, 20, []],
        [false, 20, []],
        [true, 1000, []],
        [undefined, 1, []],
      ],
    );
  });

  it('sends only the first chat message content when input is a list', async () => {
    const suite = await loadText(
      line({
        input: [
          { role: 'system', content: 'Say hi' },
          { role: 'user', content: 'ignored' },
        ],
      }),
    );
    assert.deepEqual(suite.cases[0].conversations?.[0].messages[0], { role: 'user', content: 'Say hi' });
  });

  it('skips blank lines (Python whitespace too), keeps file line numbers, reads CR line ends', async () => {
    const suite = await loadText(
      `\n\u00a0\n${line({ id: 'x' })}\r  \t\r\n${line({ id: 'y', category: 'oops' }).replace('oops', 'factual')}\n\n`,
    );
    assert.deepEqual(
      suite.cases.map((c) => [c.description, c.provenance?.source?.line]),
      [
        ['x', 3],
        ['y', 5],
      ],
    );
  });

  it('refuses a UTF-8 byte-order mark as pramana does, and text that is not UTF-8', async () => {
    assert.deepEqual(await loadErrors(`\ufeff${line()}`), [
      '1:1 not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig)',
    ]);
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 't.jsonl');
      writeFileSync(
        file,
        Buffer.concat([Buffer.from(line().slice(0, 30)), Buffer.from([0xff]), Buffer.from(line().slice(30))]),
      );
      await assert.rejects(loadSuite(file), /not UTF-8 text/);
    } finally {
      cleanup();
    }
  });

  it('warns about unknown fields (they count in the hash), repeated ids and tests pramana would stop on', async () => {
    const suite = await loadText(
      [
        line({ extra: 1 }),
        line({ assertion: { type: 'exact_match', why: 'x' }, ideal: null }),
        line({ id: 't-2', assertion: { type: 'contains' }, ideal: [] }),
        line({ id: 't-3', assertion: { type: 'llm_judge' }, ideal: null }),
      ].join('\n'),
    );
    assert.deepEqual(
      suite.warnings.map((w) => `${w.line}: ${w.message}`),
      [
        '1: extra: not a pramana field (pramana ignores it, but it counts in the suite hash)',
        '2: assertion.why: not a pramana field (pramana ignores it, but it counts in the suite hash)',
        '2: id: "t-1" is used again (first on line 1); pramana does not require unique ids',
        '2: ideal: null with exact_match: pramana stops the whole run at this test; assay records it as an error and goes on',
        '3: ideal: an empty list with contains: pramana stops the whole run at this test; assay records it as an error and goes on',
        '4: assertion.judge_prompt: missing or empty for llm_judge: pramana stops the whole run at this test; assay records it as an error and goes on',
      ],
    );
    assert.deepEqual(
      suite.cases.map((c) => c.id),
      ['tier/t-1', 'tier/t-1#2', 'tier/t-2', 'tier/t-3'],
    );
  });

  it('is recognised by shape: a .jsonl whose first line is a pramana test, even a broken one', async () => {
    await assert.rejects(
      loadText(`{"id": "x", "category": "factual", "input": "q", "assertion": {}, \n`),
      (err: unknown) => {
        assert.ok(err instanceof InputError);
        assert.match(err.message, /not valid JSON/);
        return true;
      },
    );
    await assert.rejects(loadText('{"foo": 1}\n'), /not a suite assay recognises/);
  });

  it('warns that a semantic_similarity threshold of inf leaves the test skipped', async () => {
    const suite = await loadText(
      `${line({ assertion: { type: 'semantic_similarity', threshold: 'inf' } })}\n`,
    );
    assert.match(
      suite.warnings.map((w) => `${w.line}: ${w.message}`).join('\n'),
      /1: assertion\.threshold is Infinity: .*skipped/,
    );
  });

  it('refuses a whole float tokens_est beyond ±2^63, as pydantic does (1e20, -9.223372036854776e18)', async () => {
    for (const value of ['1e20', '-9.223372036854776e18']) {
      const text = line().replace('"tokens_est":5', `"tokens_est":${value}`);
      const errors = await loadErrors(`${text}\n`);
      assert.equal(errors.length, 1, value);
      assert.match(
        errors[0],
        /^1: metadata\.tokens_est: the float .* is beyond the 64-bit range pydantic converts to an int/,
      );
    }
    // Within the range a whole float is an int to pydantic; a big integer written as an int stays valid.
    const ok = await loadText(`${line().replace('"tokens_est":5', '"tokens_est":9.223372036854775e18')}\n`);
    assert.equal(ok.cases[0].metadata.tokens_est, 2 ** 63 - 1024);
    await loadText(`${line().replace('"tokens_est":5', '"tokens_est":92233720368547758070')}\n`);
  });

  it("refuses a line Python's json.loads raises on (an integer over 4300 digits)", async () => {
    const big = line().replace('"tokens_est":5', `"tokens_est":${'7'.repeat(4301)}`);
    const errors = await loadErrors(`${line()}\n${big}\n`);
    assert.equal(errors.length, 1);
    assert.match(
      errors[0],
      /^2: Python's json\.loads cannot read this line \(ValueError: Exceeds the limit \(4300 digits\)/,
    );
  });

  it('is recognised when its first test fails validation: the loader says what is wrong with it', async () => {
    const first = JSON.stringify({
      id: 't-0',
      category: 'factual',
      input: 'q',
      ideal: ['4'],
      metadata: { difficulty: 'easy', tokens_est: 5, tags: [] },
    });
    const errors = await loadErrors(`${first}\n${line()}\n`);
    assert.deepEqual(errors, ['1: assertion: required field is missing']);
    // `id` alone, or with keys pramana tests do not have, is someone else's file.
    await assert.rejects(loadText('{"id": "x", "content": "y"}\n'), /not a suite assay recognises/);
  });
});

describe('pramana: a folder is found by its manifest', () => {
  it('needs manifest.toml beside .jsonl files', async () => {
    const { dir, cleanup } = tempDir();
    try {
      mkdirSync(join(dir, 's'));
      writeFileSync(join(dir, 's', 'a.jsonl'), `${line()}\n`);
      await assert.rejects(loadSuite(join(dir, 's')), /no suite found in this folder/);
      writeFileSync(
        join(dir, 's', 'manifest.toml'),
        '[suite]\nversion = "v2.1"\n[tiers.a]\nfile = "a.jsonl"\ntest_count = 1\n',
      );
      const suite = await loadSuite(join(dir, 's'));
      assert.deepEqual(suite.warnings, []);
      assert.equal(pramanaNative.read(suite.native).pramana.tiers[0].suiteVersion, 'v2.1-a');
      // The manifest's own path stands for its folder.
      const viaManifest = await loadSuite(join(dir, 's', 'manifest.toml'), { tiers: ['a'] });
      assert.equal(viaManifest.source.contentHash, suite.source.contentHash);
      assert.equal(viaManifest.cases.length, 1);
    } finally {
      cleanup();
    }
  });
});
