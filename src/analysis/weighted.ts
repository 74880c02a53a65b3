import { pyRound } from '../core/python/text.js';
import type { WeightedScore } from '../core/scorecard.js';
import type { JobResult, WeightedScoreSpec } from '../core/types.js';
import { type MeanAccumulator, meanInterval, weightedMeanInterval } from './stats.js';

interface GroupAcc {
  pass: number;
  total: number;
  error: number;
  unscored: number;
  skip: number;
  scores: MeanAccumulator;
  /** Scores with their plan position, kept only when the spec rounds (see WeightedScoreSpec.roundGroup). */
  ordered?: { caseIndex: number; trial: number; providerId: string; score: number }[];
}

function metadataValue(r: JobResult, key: string): string {
  const v = r.case.metadata?.[key];
  if (v === undefined || v === null || v === '') return '(none)';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Accumulates a weighted score of group means (WeightedScoreSpec) one result at a time: the exact
 * means with 95% intervals, and, when the spec asks for it, the figures of a tool that rounds.
 */
export class WeightedScoreBuilder {
  private groups = new Map<string, GroupAcc>();

  constructor(private readonly spec: WeightedScoreSpec) {}

  /** Adds one job result. */
  add(r: JobResult): void {
    const value = metadataValue(r, this.spec.groupBy);
    let g = this.groups.get(value);
    if (!g) {
      g = { pass: 0, total: 0, error: 0, unscored: 0, skip: 0, scores: { n: 0, sum: 0, sumSq: 0 } };
      if (this.spec.roundGroup !== undefined) g.ordered = [];
      this.groups.set(value, g);
    }
    if (r.status === 'skip') {
      g.skip++;
      return;
    }
    if (r.status === 'error' && r.verdicts.length === 0 && this.spec.unscoredErrors === 'exclude') {
      g.unscored++;
      return;
    }
    g.total++;
    if (r.status === 'pass' || this.scoredErrorPasses(r)) g.pass++;
    if (r.status === 'error') g.error++;
    g.scores.n++;
    g.scores.sum += r.score;
    g.scores.sumSq += r.score * r.score;
    g.ordered?.push({ caseIndex: r.caseIndex, trial: r.trial, providerId: r.providerId, score: r.score });
  }

  /** Whether a scored error counts as passed in its group (WeightedScoreSpec.scoredErrorsPassAt). */
  private scoredErrorPasses(r: JobResult): boolean {
    const at = this.spec.scoredErrorsPassAt;
    if (!at || r.status !== 'error' || r.verdicts.length === 0) return false;
    const score = at.digits !== undefined ? pyRound(r.score, at.digits) : r.score;
    return score >= at.threshold;
  }

  /** The weighted score of everything added so far. */
  build(): WeightedScore {
    const spec = this.spec;
    const scale = spec.scale ?? 1;
    const order = Object.keys(spec.weights);
    const rank = (v: string): number => {
      const i = order.indexOf(v);
      return i < 0 ? order.length : i;
    };
    // Listed groups keep the order the suite gives them; others follow, sorted.
    const entries = [...this.groups.entries()]
      .map(([value, g]) => ({ value, g, weight: spec.weights[value] ?? spec.defaultWeight ?? 0 }))
      .sort((a, b) => rank(a.value) - rank(b.value) || (a.value < b.value ? -1 : 1));
    const groups: WeightedScore['groups'] = entries.map(({ value, g, weight }) => {
      const group: WeightedScore['groups'][number] = {
        value,
        weight,
        meanScore: meanInterval(g.scores),
        pass: g.pass,
        total: g.total,
        error: g.error,
        unscored: g.unscored,
        skip: g.skip,
      };
      if (spec.roundGroup !== undefined && g.total > 0)
        group.rounded = pyRound((orderedSum(g) / g.total) * scale, spec.roundGroup);
      return group;
    });
    const out: WeightedScore = {
      name: spec.name,
      groupBy: spec.groupBy,
      scale,
      score: weightedMeanInterval(entries.map((x) => ({ weight: x.weight, acc: x.g.scores }))),
      groups,
      notRun: order
        .filter((v) => !groups.some((g) => g.value === v && g.total > 0))
        .map((v) => ({ value: v, weight: spec.weights[v] })),
    };
    if (spec.roundGroup !== undefined) {
      // The tool's arithmetic: Σ rounded_i × w_i, then ÷ Σ w_i, each summed in group order.
      let weighted = 0;
      let active = 0;
      for (const g of groups) {
        if (g.rounded === undefined || !(g.weight > 0)) continue;
        weighted += g.rounded * g.weight;
        active += g.weight;
      }
      if (active > 0) {
        const total = weighted / active;
        out.rounded = spec.roundTotal !== undefined ? pyRound(total, spec.roundTotal) : total;
      }
    }
    return out;
  }
}

/** A group's scores summed left to right in plan order, as a tool looping over its tests does. */
function orderedSum(g: GroupAcc): number {
  const list = [...(g.ordered ?? [])].sort(
    (a, b) =>
      a.caseIndex - b.caseIndex ||
      a.trial - b.trial ||
      (a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0),
  );
  let sum = 0;
  for (const x of list) sum += x.score;
  return sum;
}
