import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../src/core/errors.js';
import { type AssertionSpec, type Case, SELF_GRADER, type Suite } from '../../src/core/types.js';
import { ResponseCache } from '../../src/engine/cache.js';
import { GraderPool, graderSpecFor } from '../../src/engine/graders.js';
import { checkGraders } from '../../src/evaluate/check-graders.js';
import { evaluate } from '../../src/evaluate.js';
import { registerProvider } from '../../src/providers/registry.js';
import type { Provider, ProviderRequest, ProviderResponse } from '../../src/providers/types.js';
import { DEFAULT_RETRY_POLICY } from '../../src/providers/types.js';
import { registerScorer } from '../../src/scorers/registry.js';
import { GraderError } from '../../src/scorers/types.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-graders-');
after(tmp.cleanup);

/** Calls made to fake providers, by provider id. */
const calls: Record<string, ProviderRequest[]> = {};

/** A fake provider kind `fake:<name>`: answers `judge:<name>`, fails for `fake:broken`, embeds by length. */
registerProvider({
  pattern: 'fake:<name>',
  matches: (id) => id.startsWith('fake:'),
  load: async () => (spec) => {
    const provider: Provider = {
      id: spec.id,
      label: spec.label ?? spec.id,
      describe: () => ({ id: spec.id }),
      async call(request): Promise<ProviderResponse> {
        calls[spec.id] = [...(calls[spec.id] ?? []), request];
        if (spec.id === 'fake:broken') return { output: null, error: 'HTTP 500 from fake', latencyMs: 1 };
        if (spec.id === 'fake:failing-model') return { output: null, error: 'model down', latencyMs: 1 };
        return { output: `judge:${spec.id}`, latencyMs: 1 };
      },
      async embed({ texts }) {
        return { embeddings: texts.map((t) => [t.length, 1]), latencyMs: 1 };
      },
    };
    return provider;
  },
});

// A scorer that needs a grader and reports which one answered.
registerScorer({
  type: 'test:graded',
  description: 'passes when the grader answers',
  graded: true,
  async score({ grader }) {
    const reply = await grader!.complete([{ role: 'user', content: 'grade' }]);
    return { pass: true, score: 1, reason: reply.output };
  },
});
// A scorer that uses embeddings when it can and skips otherwise.
registerScorer({
  type: 'test:maybe-embed',
  description: 'skips without embeddings',
  usesGrader: true,
  async score({ grader, output }) {
    if (!grader?.embed) return { pass: false, score: 0, reason: 'no embeddings', skip: true };
    const [v] = await grader.embed([output]);
    return { pass: true, score: 1, reason: `dim ${v.length}`, details: { first: v[0] } };
  },
});
// A scorer that passes when the output is the error text the format's tool would have scored.
registerScorer({
  type: 'test:error-text',
  description: 'scores 0.25 for [ERROR] text',
  score: ({ output }) => ({ pass: false, score: output.startsWith('[ERROR]') ? 0.25 : 1, reason: output }),
});

const ctx = { env: {}, maxConcurrency: 2, retry: DEFAULT_RETRY_POLICY };
const self: Provider = {
  id: 'fake:self',
  label: 'fake:self',
  describe: () => ({ id: 'fake:self' }),
  call: async () => ({ output: 'self answer', latencyMs: 1 }),
};

function suiteWith(asserts: AssertionSpec[], extra: Partial<Suite> = {}): Suite {
  const c: Case = { id: 'c1', vars: {}, asserts, metadata: {} };
  return {
    id: 's',
    name: 's',
    format: 'test',
    source: { path: join(tmp.dir, 'suite.yaml'), contentHash: 'h', files: [] },
    basePath: tmp.dir,
    prompts: [{ id: 'p', label: 'p', raw: 'hello' }],
    providers: [{ id: 'fake:model' }],
    cases: [c],
    scoring: {},
    warnings: [],
    ...extra,
  };
}

describe('grader resolution', () => {
  it('prefers the assertion’s grader, then --grader, then the suite default', () => {
    const own = { id: 'fake:own' };
    const cli = { id: 'fake:cli' };
    const suite = { id: 'fake:suite' };
    assert.equal(graderSpecFor({ type: 'x', grader: own }, cli, suite), own);
    assert.equal(graderSpecFor({ type: 'x' }, cli, suite), cli);
    assert.equal(graderSpecFor({ type: 'x' }, undefined, suite), suite);
    assert.equal(graderSpecFor({ type: 'x' }, undefined, undefined), undefined);
  });

  it('resolves SELF_GRADER to the provider under test and shares one grader per provider', async () => {
    const pool = new GraderPool({ suiteDefault: { id: SELF_GRADER }, providerContext: ctx });
    const g = await pool.resolve({ type: 'x' }, self);
    assert.equal(g?.id, 'fake:self');
    assert.equal((await g?.complete([{ role: 'user', content: 'q' }]))?.output, 'self answer');
    const a = await pool.resolve({ type: 'x', grader: { id: 'fake:a' } }, self);
    const b = await pool.resolve({ type: 'y', grader: { id: 'fake:a' } }, self);
    assert.equal(a, b);
    assert.equal(a?.embed !== undefined, true);
    assert.equal(g?.embed, undefined, 'a provider without embed() gives a grader without embed');
    await pool.close();
  });

  it('turns a failed grader call into a GraderError and never caches it', async () => {
    const cache = ResponseCache.open(join(tmp.dir, 'c1.sqlite'));
    const pool = new GraderPool({ override: { id: 'fake:broken' }, providerContext: ctx, cache });
    const g = await pool.resolve({ type: 'x' }, self);
    await assert.rejects(g!.complete([{ role: 'user', content: 'q' }]), GraderError);
    await assert.rejects(g!.complete([{ role: 'user', content: 'q' }]), /HTTP 500 from fake/);
    assert.equal(calls['fake:broken'].length, 2);
    cache.close();
  });

  it('caches grader answers and embeddings in the response cache', async () => {
    const cache = ResponseCache.open(join(tmp.dir, 'c2.sqlite'));
    const pool = new GraderPool({ override: { id: 'fake:cached' }, providerContext: ctx, cache });
    const g = await pool.resolve({ type: 'x' }, self);
    const first = await g!.complete([{ role: 'user', content: 'same' }], { temperature: 0 });
    const second = await g!.complete([{ role: 'user', content: 'same' }], { temperature: 0 });
    assert.equal(first.output, second.output);
    assert.equal(second.cached, true);
    assert.equal(calls['fake:cached'].length, 1);
    assert.deepEqual(await g!.embed!(['abc']), [[3, 1]]);
    assert.deepEqual(await g!.embed!(['abc']), [[3, 1]]);
    cache.close();
  });
});

describe('checkGraders', () => {
  it('refuses a graded assertion with no grader anywhere, naming where it is', () => {
    const suite = suiteWith([{ type: 'test:graded', source: { file: 'cfg.yaml', line: 7, col: 5 } }]);
    assert.throws(
      () => checkGraders(suite, undefined),
      (err: unknown) =>
        err instanceof InputError &&
        /cfg\.yaml:7:5: test:graded needs a grader model and none is configured/.test(err.message),
    );
    checkGraders(suite, { id: 'fake:cli' });
    checkGraders({ ...suite, grader: { id: SELF_GRADER } }, undefined);
  });

  it('refuses an unknown grader provider but not a scorer that merely may use one', () => {
    assert.throws(
      () => checkGraders(suiteWith([{ type: 'test:graded' }]), { id: 'nope:x' }),
      /unknown provider/,
    );
    checkGraders(suiteWith([{ type: 'test:maybe-embed' }]), undefined);
  });
});

describe('evaluate with graders, skips and scored errors', () => {
  it('runs graded and embedding scorers through the suite grader and records skips and details', async () => {
    const { scorecard, runDir } = await evaluate({
      suite: suiteWith([{ type: 'test:graded' }, { type: 'test:maybe-embed' }], {
        grader: { id: 'fake:judge' },
      }),
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
    });
    assert.equal(scorecard.counts.pass, 1, runDir);
    const { readResults } = await import('../../src/runlog/reader.js');
    for await (const r of readResults(runDir)) {
      assert.equal(r.verdicts[0].reason, 'judge:fake:judge');
      assert.deepEqual(r.verdicts[1].details, { first: 'judge:fake:model'.length });
    }
  });

  it('a case marked with an error is recorded as that error without calling the provider', async () => {
    const suite = suiteWith([{ type: 'test:error-text' }], { providers: [{ id: 'fake:never-called' }] });
    suite.cases[0].error = "KeyError: 'content'";
    const { scorecard, runDir } = await evaluate({ suite, runsDir: join(tmp.dir, 'runs'), cache: false });
    assert.equal(scorecard.counts.error, 1);
    assert.equal(calls['fake:never-called'], undefined);
    const { readResults } = await import('../../src/runlog/reader.js');
    for await (const r of readResults(runDir)) assert.equal(r.error, "KeyError: 'content'");
  });

  it('a case whose only verdict skips is a skip, not a pass', async () => {
    const { scorecard } = await evaluate({
      suite: suiteWith([{ type: 'test:maybe-embed' }], { providers: [{ id: 'echo' }] }),
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
    });
    assert.deepEqual([scorecard.counts.skip, scorecard.counts.pass, scorecard.counts.total], [1, 0, 1]);
  });

  it('scoreErrorsAs scores the error text but keeps the job an error', async () => {
    const { scorecard, runDir } = await evaluate({
      suite: suiteWith([{ type: 'test:error-text' }], {
        providers: [{ id: 'fake:failing-model' }],
        scoring: { scoreErrorsAs: '[ERROR] {error}' },
      }),
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
    });
    assert.equal(scorecard.counts.error, 1);
    const { readResults } = await import('../../src/runlog/reader.js');
    for await (const r of readResults(runDir)) {
      assert.equal(r.status, 'error');
      assert.equal(r.score, 0.25);
      assert.equal(r.output, '[ERROR] model down');
      assert.equal(r.error, 'model down');
    }
  });
});
