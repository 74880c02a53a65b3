// The promptfoo corpus (issue 32): real promptfoo configs from public repositories
// (test/fixtures/promptfoo-corpus/). assay loads every original as written and runs every offline
// variant against the mock model and the scripted grader; its loads and its whole results file
// (shape, stats, every row, every field but times and ids) are compared with promptfoo 0.123.1's,
// recorded by scripts/promptfoo-corpus.js record. A difference that is not in
// known-differences.json fails, and so does a listed one that is gone, so the list shrinks as
// assay's promptfoo format is fixed.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type MockServer, startMockServer } from '../../support/mock-openai.js';
import {
  againstKnown,
  CORPUS_DIR,
  type ConfigComparison,
  type CorpusResult,
  configDir,
  countedForLoad,
  expectedFile,
  formatReport,
  type KnownDifferences,
  readCorpus,
  readKnown,
  runCorpus,
} from '../../support/promptfoo-corpus.js';
import { tempDir } from '../../support/tmp.js';

const tmp = tempDir('assay-pf-corpus-');
const entries = readCorpus();
const known = readKnown();
let mock: MockServer;
let result: Promise<CorpusResult>;

before(async () => {
  mock = await startMockServer({
    answers: JSON.parse(readFileSync(join(CORPUS_DIR, 'answers.json'), 'utf8')),
  });
  result = runCorpus({ mock, scratch: tmp.dir, concurrency: 2 });
  // A failure is reported by the tests that await it.
  result.catch(() => {});
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

describe('promptfoo corpus: real configs, loaded and run as promptfoo 0.123.1 loads and runs them', () => {
  it('every config has its source, licence, offline variant and promptfoo answers in the corpus', () => {
    assert.ok(entries.length >= 100, `${entries.length} configs`);
    const loads = JSON.parse(readFileSync(join(CORPUS_DIR, 'loads.json'), 'utf8'));
    for (const e of entries) {
      assert.match(e.commit, /^[0-9a-f]{40}$/, e.id);
      assert.ok(
        ['MIT', 'Apache-2.0', 'BSD', 'ISC', 'Unlicense', 'CC0'].includes(e.license),
        `${e.id}: ${e.license}`,
      );
      assert.ok(existsSync(join(CORPUS_DIR, e.dir, 'LICENSE')), `${e.dir}/LICENSE`);
      assert.ok(existsSync(join(CORPUS_DIR, e.dir, e.config)), e.id);
      for (const f of e.files) assert.ok(existsSync(join(CORPUS_DIR, e.dir, f)), `${e.id}: ${f}`);
      assert.ok(loads[e.id] !== undefined, `${e.id}: promptfoo's load verdict is recorded`);
      if (e.dropped) continue;
      assert.ok(
        e.offline && existsSync(join(configDir(e), e.offline.split('/').pop() as string)),
        `${e.id}: offline variant`,
      );
      assert.ok(Array.isArray(e.offlineChanges), `${e.id}: its changes are listed`);
      assert.ok(existsSync(expectedFile(e)), `${e.id}: promptfoo's results are recorded`);
    }
    const ids = new Set(entries.map((e) => e.id));
    for (const id of [...Object.keys(known.fields), ...Object.keys(known.loads)])
      assert.ok(ids.has(id), `known-differences.json names ${id}, which is not in the corpus`);
  });

  it('each original loads in assay exactly when it loads in promptfoo, less the known differences', async () => {
    const r = await result;
    const problems: string[] = [];
    for (const e of entries) {
      const l = r.loads[e.id];
      const listed = known.loads[e.id];
      if (l.promptfoo.loads !== l.assay.loads && !listed)
        problems.push(
          `${e.id}: promptfoo ${l.promptfoo.loads ? 'loads it' : `refuses it (${l.promptfoo.message})`}; assay ${l.assay.loads ? 'loads it' : `refuses it (${l.assay.message})`}`,
        );
      if (listed && (listed.promptfoo !== l.promptfoo.loads || listed.assay !== l.assay.loads))
        problems.push(
          `${e.id}: listed as promptfoo ${listed.promptfoo} / assay ${listed.assay}, now promptfoo ${l.promptfoo.loads} / assay ${l.assay.loads}: update known-differences.json`,
        );
    }
    assert.deepEqual(problems, []);
  });

  for (const e of entries) {
    if (e.dropped) continue;
    it(`${e.id}: every row as promptfoo writes it, less the known differences`, async () => {
      const r = await result;
      const c = r.comparisons.find((x) => x.id === e.id);
      assert.deepEqual(againstKnown(e.id, c, known), []);
    });
  }

  it('the known list is held both ways: a difference not listed fails, and so does a listed one that is gone', () => {
    const listed: KnownDifferences = {
      loads: {},
      fields: {
        cfg: { 'response.output': { rows: 2, reason: 'r' }, 'prompt.raw': { rows: 1, reason: 'r' } },
      },
    };
    const example = { row: '0/0', promptfoo: 'a', assay: 'b' };
    const found = (fields: ConfigComparison['fields']): ConfigComparison => ({
      id: 'cfg',
      rows: 2,
      equalRows: 0,
      coreEqualRows: 0,
      fields,
    });
    assert.deepEqual(
      againstKnown(
        'cfg',
        found({ 'response.output': { rows: 2, example }, 'prompt.raw': { rows: 1, example } }),
        listed,
      ),
      [],
    );
    const problems = againstKnown(
      'cfg',
      found({ 'response.output': { rows: 1, example }, vars: { rows: 1, example } }),
      listed,
    );
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(problems[0], /response\.output: 1 rows differ, 2 listed/);
    assert.match(
      problems[1],
      /new difference in vars \(1 rows\), e\.g\. row 0\/0: promptfoo "a" · assay "b"/,
    );
    assert.match(problems[2], /prompt\.raw: listed .* but no row differs now/);
  });

  it('the figures (loaded as written; rows equal field by field)', async (t) => {
    const r = await result;
    const counted = entries.filter(countedForLoad);
    assert.ok(counted.length > 0);
    // The figures; `node scripts/promptfoo-corpus.js report` prints the differences ranked as well.
    t.diagnostic(
      formatReport(r, new Date().toISOString().slice(0, 10), known).split('\n').slice(0, 4).join(' · '),
    );
  });
});
