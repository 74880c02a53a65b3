// Issue 25, apastra: what compare.py and evaluate_assertions.py answer on inputs written for assay,
// recorded in test/fixtures/apastra/fidelity.json by generate-fidelity.py (apastra's own code), and
// what assay answers on the same.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pyJsonLoads } from '../../src/core/python/json-loads.js';
import { inlineSpec } from '../../src/formats/apastra/cases.js';
import { getScorer } from '../../src/scorers/index.js';
import { runCli } from '../support/cli.js';
import { fixture } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

// biome-ignore lint/suspicious/noExplicitAny: recorded JSON read field by field
type Json = any;
const recorded: Json = JSON.parse(readFileSync(fixture('apastra', 'fidelity.json'), 'utf8'));
const POLICY = {
  baseline: 'x',
  rules: [{ metric: 'quality', severity: 'blocker', direction: 'higher_is_better', allowed_delta: 0.05 }],
};
const CARD = { normalized_metrics: { quality: 0.9 } };
const tmp = tempDir('assay-apastra-fidelity-');
after(tmp.cleanup);
let n = 0;

/** `assay compare BASELINE CANDIDATE --policy` from `cwd`, the paths as written; the report too. */
async function compare(files: Record<string, unknown>, baseline: string, candidate: string, cwd = '.') {
  const root = join(tmp.dir, `c${n++}`);
  for (const [p, doc] of Object.entries({ ...files, [join(cwd, 'policy.yaml')]: POLICY })) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), JSON.stringify(doc));
  }
  const r = await runCli(['compare', baseline, candidate, '--policy', 'policy.yaml', '-o', 'out.json'], {
    cwd: join(root, cwd),
  });
  let report: Json;
  try {
    report = JSON.parse(readFileSync(join(root, cwd, 'out.json'), 'utf8'));
  } catch {
    report = undefined;
  }
  return { ...r, report };
}

describe('apastra compare --policy: as compare.py', () => {
  it('names the inputs in baseline_ref/candidate_ref as the command line gave them', async () => {
    const { candidate, baseline, result } = recorded.refs;
    const r = await compare(
      { [join('work', candidate)]: CARD, [join('work', baseline)]: CARD },
      baseline,
      candidate,
      'work',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.report, result.report);
  });

  for (const [name, v] of Object.entries(recorded.bad_candidates) as [string, Json][]) {
    it(`a candidate compare.py crashes on (${name}: ${v.result.error}) is refused, exit 2, the file named`, async () => {
      assert.equal(v.result.exit, 1, 'compare.py crashed');
      const r = await compare({ 'cand.json': v.candidate, 'base.json': CARD }, 'base.json', 'cand.json');
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /^cand\.json: not an apastra scorecard \(candidate\): /m);
      assert.equal(r.report, undefined, 'no report written');
    });
  }

  for (const [name, v] of Object.entries(recorded.bad_baselines) as [string, Json][]) {
    const crashed = v.result.exit !== 0;
    it(`a baseline ${name}: ${crashed ? 'refused, as compare.py crashes' : 'compared, as compare.py does'}`, async () => {
      const r = await compare({ 'cand.json': CARD, 'base.json': v.baseline }, 'base.json', 'cand.json');
      if (crashed) {
        assert.equal(r.code, 2, r.stdout + r.stderr);
        assert.match(r.stderr, /^base\.json: not an apastra scorecard \(baseline\): /m);
      } else {
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(r.report, {
          ...v.result.report,
          baseline_ref: 'base.json',
          candidate_ref: 'cand.json',
        });
      }
    });
  }
});

describe('apastra compare --policy: metric values compare.py cannot subtract or compare', () => {
  for (const [name, v] of Object.entries(recorded.bad_pairs) as [string, Json][]) {
    const crashed = v.result.exit !== 0;
    it(`${name}: ${crashed ? `refused, exit 2, as compare.py crashes (${v.result.error})` : `${v.result.report.status}, as compare.py reports`}`, async () => {
      const r = await compare(
        { 'cand.json': v.candidate, 'base.json': v.baseline },
        'base.json',
        'cand.json',
      );
      if (crashed) {
        assert.equal(r.code, 2, r.stdout + r.stderr);
        assert.match(r.stderr, /is not a number/);
        assert.equal(r.report, undefined, 'no report written');
      } else {
        assert.equal(r.code, v.result.report.status === 'pass' ? 0 : 1, r.stderr);
        assert.deepEqual(r.report, {
          ...v.result.report,
          baseline_ref: 'base.json',
          candidate_ref: 'cand.json',
        });
      }
    });
  }
});

describe('apastra latency and cost assertions: as evaluate_assertions.py', () => {
  const score = async (metadata: { latency?: number; cost?: number }) => {
    const out: Record<string, number>[] = [];
    for (const a of recorded.no_metadata.assertions) {
      const spec = inlineSpec(a, pyJsonLoads(JSON.stringify(a)), 'compat', { file: 'x' });
      const scorer = getScorer(spec.type);
      assert.ok(scorer);
      const r = await scorer.score({
        output: 'Paris',
        outputValue: 'Paris',
        value: spec.value,
        spec,
        vars: {},
        prompt: '',
        response: { latencyMs: metadata.latency, cost: metadata.cost },
      });
      out.push({ [spec.metric as string]: r.score });
    }
    return out;
  };
  it('with the latency and cost measured (assay passes them as the metadata)', async () => {
    assert.deepEqual(await score(recorded.measured.metadata), recorded.measured.expected);
  });
  it('with nothing measured (the eval skill passes no metadata): latency and cost pass, their not- forms fail', async () => {
    assert.deepEqual(await score({}), recorded.no_metadata.expected);
  });
});
