// Suites whose tests are all in big CSV/JSONL files are streamed: read again on each pass, never
// held whole. A streamed suite must be the same suite as the one read whole (cases, ids, refs,
// descriptions, diagnostics), and a run of it must never build its case array.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { caseCount, surveyOf } from '../../../src/core/cases.js';
import { InputError } from '../../../src/core/errors.js';
import type { Case, Suite } from '../../../src/core/types.js';
import { caseProviderSpecs } from '../../../src/engine/case-providers.js';
import { countJobs } from '../../../src/engine/plan.js';
import { checkGraders } from '../../../src/evaluate/check-graders.js';
import { evaluate } from '../../../src/evaluate.js';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { resultsInCaseOrder } from '../../support/runs.js';
import { ENV, writeSuite } from './helpers.js';

const runsDirs: string[] = [];
after(() => {
  for (const d of runsDirs) rmSync(d, { recursive: true, force: true });
});

/** The providers the survey's cases name, as the pass before a run gathers them. */
function caseProviderSpecsOf(suite: Suite): Map<string, unknown> {
  const specs = new Map<string, unknown>();
  for (const { c } of surveyOf(suite)) {
    const held = { ...suite, stream: undefined, cases: [c] } as Suite;
    for (const [k, v] of caseProviderSpecs(held)) if (!specs.has(k)) specs.set(k, v);
  }
  return specs;
}

const load = (path: string, stream: boolean): Promise<Suite> =>
  loadPromptfooSuite(path, { env: ENV, streamAboveBytes: stream ? 0 : Number.POSITIVE_INFINITY });

/** A CSV of `n` rows, long enough to cross the reader's 1 MiB chunks, with a repeated row and a quoted newline. */
function bigCsv(n: number): string {
  const lines = ['topic,note,__expected1,__description'];
  for (let i = 0; i < n; i++) {
    // Row 7 repeats row 6 exactly (ids -2 and refs #2); every 50th row has a line break in a quoted cell.
    const k = i === 7 ? 6 : i;
    const note = k % 50 === 0 ? `"two\nlines ${k}"` : `note ${k} ${'x'.repeat(60)}`;
    // Row 9's regex does not compile: a warning, given once, as when read whole.
    const expected = i === 9 ? 'regex:[z-a]+' : `contains:subject ${k}`;
    lines.push(`subject ${k},${note},${expected},${k % 3 === 0 ? `case ${k}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

const CONFIG = (tests: string) => `prompts: ["About {{topic}}"]\nproviders: [echo]\ntests: ${tests}\n`;

describe('streamed suites (big CSV/JSONL test files)', () => {
  it('are the same suite as when read whole: cases, ids, refs, descriptions, lines, hash', async () => {
    const csv = bigCsv(16_000); // ~1.5 MB: rows cross chunk boundaries
    assert.ok(csv.length > 1.2 * 1024 * 1024);
    const path = writeSuite({ 'promptfooconfig.yaml': CONFIG('file://tests.csv'), 'tests.csv': csv });
    const whole = await load(path, false);
    const streamed = await load(path, true);
    assert.equal(whole.stream, undefined);
    assert.ok(streamed.stream, 'the big suite is streamed');
    assert.equal(caseCount(streamed), 16_000);
    assert.equal(streamed.source.contentHash, whole.source.contentHash);
    assert.deepEqual(streamed.source.files, whole.source.files);
    assert.deepEqual(streamed.warnings, whole.warnings);
    assert.equal(whole.warnings.length, 1);
    const a = [...streamed.stream];
    assert.deepEqual(a, whole.cases);
    assert.equal(a[7].id, `${a[6].id}-2`);
    assert.equal(a[7].ref, `${a[6].ref}#2`);
    assert.deepEqual(a[50].vars, { topic: 'subject 50', note: 'two\nlines 50' });
    // A second pass gives the very same cases.
    assert.deepEqual([...streamed.stream], a);
    // Read through `cases`, a streamed suite holds them (for library callers).
    assert.deepEqual(streamed.cases, whole.cases);
  });

  it('are surveyed on the first pass: the checks before a run find what a pass over every case finds', async () => {
    // Rows of several kinds: restricted to a provider or a prompt, naming their own provider, with
    // model-graded assertions (with and without a grader), and plain ones, repeated and interleaved.
    const kinds = [
      { assert: [{ type: 'contains', value: 'x' }] },
      { providers: ['echo'], assert: [{ type: 'icontains', value: 'x' }] },
      { prompts: ['second'], assert: [{ type: 'contains', value: 'x' }] },
      { options: { provider: 'echo' }, assert: [{ type: 'contains', value: 'x' }] },
      { assert: [{ type: 'llm-rubric', value: 'is fine' }] },
      { assert: [{ type: 'similar', value: 'x', provider: 'openai:chat:gpt-4o-mini' }] },
      { assert: [{ type: 'similar', value: 'x', provider: 'echo' }] },
    ];
    const lines: string[] = [];
    for (let i = 0; i < 700; i++) {
      const kind = kinds[(i * 5) % kinds.length];
      lines.push(JSON.stringify({ vars: { topic: `t${i}` }, ...kind }));
    }
    const config =
      'prompts:\n  - {id: first, raw: "A {{topic}}"}\n  - {id: second, raw: "B {{topic}}"}\nproviders: [echo, {id: echo, label: other}]\ntests: file://tests.jsonl\n';
    const path = writeSuite({ 'promptfooconfig.yaml': config, 'tests.jsonl': `${lines.join('\n')}\n` });
    const whole = await load(path, false);
    const streamed = await load(path, true);
    assert.ok(streamed.stream);
    const survey = [...surveyOf(streamed)];
    assert.ok(survey.length < 20, `one case of each kind, not ${survey.length}`);
    assert.equal(
      survey.reduce((n, e) => n + e.count, 0),
      700,
    );
    for (const repeat of [1, 3])
      assert.equal(
        countJobs(streamed, streamed.providers, { repeat }),
        countJobs(whole, whole.providers, { repeat }),
      );
    assert.deepEqual([...caseProviderSpecsOf(streamed)], [...caseProviderSpecs(whole)]);
    const problems = (suite: Suite): string[] => {
      try {
        checkGraders(suite, undefined);
      } catch (err) {
        assert.ok(err instanceof InputError);
        return err.diagnostics.map((d) => `${d.file}:${d.line} ${d.message}`);
      }
      return [];
    };
    const expected = problems(whole);
    assert.ok(expected.length >= 1, expected.join('\n'));
    assert.deepEqual(problems(streamed), expected);
  });

  it('read JSONL the same way, standalone (`Row #n`) and as a list entry', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 300; i++)
      lines.push(
        JSON.stringify({
          description: `d${i}`,
          vars: { topic: `t${i}` },
          assert: [{ type: 'contains', value: `t${i}` }],
        }),
      );
    const files = { 'tests.jsonl': `${lines.join('\n')}\n\n` };
    for (const tests of ['file://tests.jsonl', '["file://tests.jsonl"]']) {
      const path = writeSuite({ 'promptfooconfig.yaml': CONFIG(tests), ...files });
      const whole = await load(path, false);
      const streamed = await load(path, true);
      assert.ok(streamed.stream);
      assert.deepEqual([...streamed.stream], whole.cases);
      assert.equal(whole.cases[0].description, tests.startsWith('[') ? 'd0' : 'Row #1');
    }
  });

  it('report bad rows with their file and line, as when read whole', async () => {
    const csv = `topic,__expected1\nfine,contains:fine\nbad,"unterminated\n`;
    const jsonl = `{"vars":{"topic":"a"}}\n{"vars": oops}\n`;
    for (const [name, text] of [
      ['tests.csv', csv],
      ['tests.jsonl', jsonl],
    ]) {
      const path = writeSuite({ 'promptfooconfig.yaml': CONFIG(`file://${name}`), [name]: text });
      const messages = async (stream: boolean) => {
        try {
          await load(path, stream);
        } catch (err) {
          assert.ok(err instanceof InputError);
          return err.diagnostics.map((d) => `${d.file}:${d.line} ${d.message}`);
        }
        assert.fail('expected a load error');
      };
      const whole = await messages(false);
      assert.ok(whole.length > 0);
      assert.ok(
        whole.every((m) => m.includes(`${name}:`)),
        whole.join('\n'),
      );
      assert.deepEqual(await messages(true), whole);
    }
  });

  it('hold a suite in memory when its vars read files (read asynchronously)', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': CONFIG('file://tests.csv'),
      'tests.csv': 'topic,doc\na,file://doc.txt\n',
      'doc.txt': 'the document',
    });
    const suite = await load(path, true);
    assert.equal(suite.stream, undefined);
    assert.equal(suite.cases[0].vars.doc, 'the document');
  });

  it('run, filtered and whole, without ever building the case array, with the results of the suite read whole', async () => {
    const path = writeSuite({ 'promptfooconfig.yaml': CONFIG('file://tests.csv'), 'tests.csv': bigCsv(400) });
    const runsDir = mkdtempSync(join(tmpdir(), 'assay-streamed-'));
    runsDirs.push(runsDir);
    const resultsOf = async (
      suite: Suite,
      filters?: { pattern?: string; firstN?: number; sample?: number },
    ) => {
      const r = await evaluate({ suite, runsDir, filters });
      assert.equal(r.manifest.status, 'complete');
      return resultsInCaseOrder(r.runDir);
    };
    for (const filters of [undefined, { pattern: '^case [0-9]*0$' }, { firstN: 30 }, { sample: 25 }]) {
      const whole = await resultsOf(await load(path, false), filters);
      const streamed = await load(path, true);
      Object.defineProperty(streamed, 'cases', {
        get: (): Case[] => assert.fail('a run read every case of a streamed suite'),
      });
      assert.deepEqual(await resultsOf(streamed, filters), whole);
      assert.ok(whole.length > 0);
    }
  });
});
