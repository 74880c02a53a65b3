// Derived metrics per column (spec §6.3): promptfoo's weighted named-score totals, `__count`,
// entries that see the ones before them, and a metric that cannot be computed keeping its value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ColumnNamedScores } from '../../src/analysis/derived.js';
import { ScorecardBuilder } from '../../src/analysis/scorecard.js';
import type { JobResult } from '../../src/core/types.js';

describe('ColumnNamedScores', () => {
  it('totals each metric as value × weight over results and counts results in __count', () => {
    const col = new ColumnNamedScores([
      { name: 'mean_acc', expression: 'acc / __count' },
      { name: 'double', expression: 'mean_acc * 2' },
    ]);
    col.add({ namedScores: { acc: 1 }, namedScoreWeights: { acc: 2 } });
    col.add({ namedScores: { acc: 0.5 } });
    assert.equal(col.namedScores.acc, 2.5);
    assert.equal(col.namedScoreWeights.acc, 3);
    assert.equal(col.namedScoresCount.acc, 2);
    assert.deepEqual(col.derivedValues(), [
      { name: 'mean_acc', value: 1.25 },
      { name: 'double', value: 2.5 },
    ]);
  });

  it('keeps the previous value while a name is unknown, and starts at 0', () => {
    const col = new ColumnNamedScores([{ name: 'precision', expression: 'tp / (tp + fp)' }]);
    col.add({ namedScores: { tp: 1 } });
    assert.deepEqual(col.derivedValues(), [{ name: 'precision', value: 0 }], 'fp unknown yet');
    col.add({ namedScores: { fp: 1, tp: 0 } });
    assert.deepEqual(col.derivedValues(), [{ name: 'precision', value: 0.5 }]);
    col.add({});
    assert.deepEqual(col.derivedValues(), [{ name: 'precision', value: 0.5 }]);
  });

  it('re-evaluates after every result, so a metric may refer to its own previous value', () => {
    const col = new ColumnNamedScores([{ name: 'steps', expression: 'steps + 1' }]);
    for (let i = 0; i < 3; i++) col.add({});
    // As in promptfoo, the names an expression sees are taken before the metric is set to 0, so
    // the first result cannot compute it (unknown name) and it counts from the second on.
    assert.deepEqual(col.derivedValues(), [{ name: 'steps', value: 2 }]);
  });
});

function result(promptId: string, namedScores: Record<string, number>): JobResult {
  return {
    key: `${promptId}-${JSON.stringify(namedScores)}`,
    caseId: 'c',
    caseIndex: 0,
    promptId,
    promptLabel: promptId,
    providerId: 'echo',
    trial: 0,
    case: { vars: {} },
    prompt: { text: '', messages: [] },
    status: 'pass',
    output: '',
    verdicts: [],
    score: 1,
    reason: '',
    answer: { latencyMs: 0 },
    namedScores,
    startedAt: '',
  };
}

describe('scorecard derived metrics', () => {
  it('computes them per prompt × provider cell', () => {
    const b = new ScorecardBuilder({ derivedMetrics: [{ name: 'rate', expression: 'hit / __count' }] });
    b.add(result('p1', { hit: 1 }));
    b.add(result('p1', { hit: 0 }));
    b.add(result('p2', { hit: 1 }));
    const card = b.build();
    assert.deepEqual(
      card.cells.map((c) => [c.promptId, c.derivedMetrics]),
      [
        ['p1', [{ name: 'rate', value: 0.5 }]],
        ['p2', [{ name: 'rate', value: 1 }]],
      ],
    );
  });

  it('leaves cells without derivedMetrics when the suite has none', () => {
    const b = new ScorecardBuilder({});
    b.add(result('p1', { hit: 1 }));
    assert.equal(b.build().cells[0].derivedMetrics, undefined);
  });
});
